"""punct.bin.datadir_tools: split a data directory into balanced parts and merge back; subsets; overlap."""
from __future__ import annotations

import pytest

from punct.bin.datadir_tools import main
from punct.data.splits import merge_ctms, merge_tables, split_datadir, subset_datadir, sum_reports
from punct.data.datadir import validate_datadir
from punct.errors import PunctError
from punct.data.tables import read_table


def make(d, n_reco=5, per_reco=3):
    d.mkdir()
    text, labels, u2s, segs, wav, times, written, spk = {}, {}, {}, {}, {}, {}, {}, {}
    for r in range(n_reco):
        reco = f"rec{r}"
        wav[reco] = f"/audio/{reco}.flac"
        for k in range(per_reco):
            u = f"spk{r % 2}-{reco}-{k}"
            text[u] = "a b" if k else "a b c d e"
            labels[u] = "O PERIOD" if k else "O O O O PERIOD"
            u2s[u] = f"spk{r % 2}"
            segs[u] = f"{reco} {k * 2 + r * 0.5:.2f} {k * 2 + 1 + r * 0.5:.2f}"
            times[u] = " ".join(f"{k + i * 0.1:.3f},{k + i * 0.1 + 0.1:.3f}" for i in range(len(text[u].split())))
            written[u] = text[u].upper()  # the per-word spellings a case head learns from
            spk[u] = " ".join(u2s[u] for _ in text[u].split())
    for name, rows in (("text", text), ("labels", labels), ("utt2spk", u2s), ("segments", segs), ("wav.scp", wav),
                       ("word_times", times), ("written", written), ("word_speakers", spk)):
        (d / name).write_text("".join(f"{k} {v}\n" for k, v in sorted(rows.items())))
    s2u = {}
    for u, s in sorted(u2s.items()):
        s2u.setdefault(s, []).append(u)
    (d / "spk2utt").write_text("".join(f"{s} {' '.join(us)}\n" for s, us in sorted(s2u.items())))
    return d


def test_split_merge_round_trip(tmp_path):
    d = make(tmp_path / "data")
    parts = split_datadir(d, 3)
    assert [p.name for p in parts] == ["1", "2", "3"] and (d / "split3" / ".done").exists()
    seen = {}
    for p in parts:
        validate_datadir(p)
        recos = {v[0] for _, v, _ in read_table(p / "segments")}
        assert recos == {k for k, _, _ in read_table(p / "wav.scp")}  # whole recordings, their wav.scp lines
        for k, _, _ in read_table(p / "text"):
            assert k not in seen
            seen[k] = p.name
    sizes = sorted(len(read_table(p / "text")) for p in parts)
    assert sizes == [3, 6, 6]  # 5 recordings of equal length over 3 parts
    for name in ("text", "labels", "word_times", "segments", "utt2spk"):
        merge_tables([p / name for p in parts], tmp_path / name)
        assert (tmp_path / name).read_text() == (d / name).read_text()


def test_split_by_speaker_and_errors(tmp_path, capsys):
    d = make(tmp_path / "data")
    parts = split_datadir(d, 2, by="speaker")
    assert {tuple(sorted({v[0] for _, v, _ in read_table(p / "utt2spk")})) for p in parts} == {("spk0",), ("spk1",)}
    with pytest.raises(PunctError, match="cannot split 2 speakers into 3 jobs"):
        split_datadir(d, 3, by="speaker")
    assert main(["split", "--nj", "9", str(d)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and "cannot split 5 recordings into 9 jobs" in err[-1]


def test_merge_rejects_a_key_in_two_parts(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("u1 x\nu2 y\n")
    b.write_text("u2 z\n")
    with pytest.raises(PunctError, match="key 'u2' is in more than one part"):
        merge_tables([a, b], tmp_path / "out")


def test_merge_ctms_sorts_and_reports_add_up(tmp_path):
    a, b = tmp_path / "a.ctm", tmp_path / "b.ctm"
    a.write_text("r2 1 0.50 0.10 x 0.9\nr1 1 1.00 0.10 y\n")
    b.write_text("r1 1 0.20 0.10 z 0.5\n")
    assert merge_ctms([a, b], tmp_path / "m.ctm") == 3
    assert [l.split()[4] for l in (tmp_path / "m.ctm").read_text().splitlines()] == ["z", "y", "x"]
    assert sum_reports([{"words": 2, "failed": ["u1"], "lts": {"a": 1}, "tracker": "yinfft"},
                        {"words": 3, "failed": [], "lts": {"a": 1, "b": 2}, "tracker": "yinfft"}]) == \
        {"words": 5, "failed": ["u1"], "lts": {"a": 2, "b": 2}, "tracker": "yinfft"}


def test_subset_by_list_exclusion_count_and_words(tmp_path):
    import json

    d = make(tmp_path / "data")  # 15 utterances in 5 recordings: 5 of 5 words, 10 of 2
    keys = [k for k, _, _ in read_table(d / "text")]
    (tmp_path / "list").write_text(f"{keys[0]}\n{keys[3]} anything after the key\n{keys[4]}\n")
    stats = subset_datadir(d, tmp_path / "a", utt_list=tmp_path / "list")
    a = tmp_path / "a"
    assert [k for k, _, _ in read_table(a / "text")] == [keys[0], keys[3], keys[4]] and (a / ".done").exists()
    validate_datadir(a)
    for per_word in ("written", "word_speakers", "word_times"):  # every per-word file comes along
        assert [k for k, _, _ in read_table(a / per_word)] == [keys[0], keys[3], keys[4]], per_word
    assert {k for k, _, _ in read_table(a / "wav.scp")} == {v[0] for _, v, _ in read_table(a / "segments")}
    assert (a / "spk2utt").read_text().split()[1:] == [keys[0], keys[3], keys[4]]  # all of spk0
    assert stats == json.loads((a / "stats.json").read_text())
    assert stats["words"] == sum(len(v) for k, v, _ in read_table(d / "text") if k in (keys[0], keys[3], keys[4]))
    assert stats["labels"]["PERIOD"] == 3 and stats["selection"] == {"utt_list": str(tmp_path / "list")}
    # the complement, then its last 2; the leading utterances until 6 words (the last one whole)
    subset_datadir(d, tmp_path / "b", exclude=a / "text", last=2)
    rest = [k for k in keys if k not in (keys[0], keys[3], keys[4])]
    assert [k for k, _, _ in read_table(tmp_path / "b" / "text")] == rest[-2:]
    w = subset_datadir(d, tmp_path / "c", words=6)
    first = [len(v) for _, v, _ in read_table(d / "text")]
    n = next(i for i in range(1, len(first) + 1) if sum(first[:i]) >= 6)
    assert w["utterances"] == n and w["words"] == sum(first[:n]) >= 6 > sum(first[:n - 1])
    assert main(["subset", "--first", "2", str(d), str(tmp_path / "e")]) == 0
    assert len(read_table(tmp_path / "e" / "text")) == 2


def test_subset_errors(tmp_path, capsys):
    d = make(tmp_path / "data")
    (tmp_path / "list").write_text("nosuch-utt\n")
    with pytest.raises(PunctError, match="utterance 'nosuch-utt' is not in .*text .1 such."):
        subset_datadir(d, tmp_path / "x", utt_list=tmp_path / "list")
    with pytest.raises(PunctError, match="no utterance is left"):
        subset_datadir(d, tmp_path / "x", exclude=d / "text")
    with pytest.raises(PunctError, match="another directory than its source"):
        subset_datadir(d, d, first=1)
    assert not (tmp_path / "x").exists()  # nothing half-written
    assert main(["subset", "--words", "0", str(d), str(tmp_path / "x")]) == 1
    assert capsys.readouterr().err.strip() == "error: --words must be at least 1, got 0"
    # an output that is someone's folder or a file is refused and left as it was
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep\n")
    (tmp_path / "f").write_text("keep\n")
    for target in (mine, tmp_path / "f"):
        assert main(["subset", "--first", "1", str(d), str(target)]) == 1
        assert capsys.readouterr().err.strip().startswith(f"error: {target}: exists and ")
    assert (mine / "notes.txt").read_text() == (tmp_path / "f").read_text() == "keep\n" and len(list(mine.iterdir())) == 1
    assert main(["subset", "--first", "1", str(d), str(tmp_path / "ok")]) == 0  # and its own output is redone
    assert main(["subset", "--first", "2", str(d), str(tmp_path / "ok")]) == 0
    assert len(read_table(tmp_path / "ok" / "text")) == 2
    # a bad line of the source is told by its place there, not in the temporary copy
    lines = (d / "labels").read_text().splitlines()
    lines[1] = lines[1].rsplit(" ", 1)[0] + " EXCLAM"
    (d / "labels").write_text("\n".join(lines) + "\n")
    assert main(["subset", "--first", "3", str(d), str(tmp_path / "y")]) == 1
    assert capsys.readouterr().err.strip().startswith(f"error: {d / 'labels'}:2: unknown label 'EXCLAM'")
    with pytest.raises(SystemExit):  # argparse: they exclude each other
        main(["subset", "--first", "1", "--last", "1", str(d), str(tmp_path / "x")])


def _talks(d, talks):
    d.mkdir()
    (d / "text").write_text("".join(f"{k} {' '.join(ws)}\n" for k, ws in talks.items()))
    (d / "labels").write_text("".join(f"{k} {' '.join(['O'] * (len(ws) - 1) + ['PERIOD'])}\n" for k, ws in talks.items()))
    return d


def test_overlap_finds_a_copied_talk_and_records_it(tmp_path, capsys):
    import json

    talk = lambda tag, n=20: [f"{tag}{i}" for i in range(n)]  # noqa: E731
    train = _talks(tmp_path / "train", {"t1": talk("a"), "t2": talk("b")})
    (train / "stats.json").write_text(json.dumps({"words": 40, "heldout_overlap": {"older": {"shared": 1}}}))
    # test: one talk of its own, one the training text holds (its first 15 words of 20)
    test = _talks(tmp_path / "test", {"x1": talk("c"), "x2": talk("b", 15) + talk("d", 5)})
    dev = _talks(tmp_path / "dev", {"y1": talk("e")})
    assert main(["overlap", str(train), str(test), str(dev)]) == 0
    out = capsys.readouterr().out.splitlines()
    # test's distinct 12-grams: 9 of x1, 9 of x2, of which 4 lie inside x2's first 15 words
    assert out == [f"test: 4 of its 18 distinct 12-grams (22.22%) are in {train}; 0 of its 2 utterances have more "
                   "than half of theirs there",
                   f"dev: 0 of its 9 distinct 12-grams (0.00%) are in {train}; 0 of its 1 utterances have more than half "
                   "of theirs there"]
    assert json.loads((train / "stats.json").read_text())["heldout_overlap"] == {"older": {"shared": 1}}  # only --record writes
    assert main(["overlap", "--record", "--n", "5", str(train), str(test)]) == 0
    ov = json.loads((train / "stats.json").read_text())["heldout_overlap"]
    assert ov["older"] == {"shared": 1}  # earlier figures are kept
    assert ov["test"] == {"n": 5, "ngrams": 32, "shared": 11, "shared_pct": 34.375, "utterances": 2,
                          "utterances_seen": 1}
    capsys.readouterr()
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "text").write_text((train / "text").read_text())
    assert main(["overlap", "--record", str(tmp_path / "bare"), str(test)]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'bare' / 'stats.json'}: no stats.json to record the overlap in"
    (test / "labels").unlink()  # the words alone count: an ASR hypothesis has no labels
    assert main(["overlap", str(train), str(test)]) == 0
    assert capsys.readouterr().out.startswith("test: 4 of its 18 distinct 12-grams (22.22%)")
    assert main(["overlap", str(train), str(tmp_path / "nope")]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope'}: data directory not found"


def test_validate_command_warns_of_what_kaldi_needs_and_punct_does_not(tmp_path, caplog):
    import logging

    d = make(tmp_path / "data")
    with caplog.at_level(logging.INFO, logger="punct"):
        assert main(["validate", str(d)]) == 0
    assert "valid, 45 words" in caplog.text and "Kaldi's tools" not in caplog.text
    (d / "spk2utt").unlink()
    (d / "utt2spk").unlink()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="punct"):
        assert main(["validate", str(d)]) == 0
    assert "no utt2spk or spk2utt: punct does without, Kaldi's tools" in caplog.text
