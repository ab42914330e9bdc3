"""punct.bin.datadir_tools: split a data directory into balanced parts and merge back."""
from __future__ import annotations

import pytest

from punct.bin.datadir_tools import main, merge_ctms, merge_tables, split_datadir, sum_reports
from punct.datadir import read_table, validate_datadir
from punct.errors import PunctError


def make(d, n_reco=5, per_reco=3):
    d.mkdir()
    text, labels, u2s, segs, wav, times = {}, {}, {}, {}, {}, {}
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
    for name, rows in (("text", text), ("labels", labels), ("utt2spk", u2s), ("segments", segs), ("wav.scp", wav),
                       ("word_times", times)):
        (d / name).write_text("".join(f"{k} {v}\n" for k, v in sorted(rows.items())))
    spk = {}
    for u, s in sorted(u2s.items()):
        spk.setdefault(s, []).append(u)
    (d / "spk2utt").write_text("".join(f"{s} {' '.join(us)}\n" for s, us in sorted(spk.items())))
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
