"""punct.bin.datadir_tools: its commands and their one-line errors (split, subset, overlap, validate;
the splits and subsets themselves: tests/data/test_splits.py)."""
from __future__ import annotations

import pytest

from punct.bin.datadir_tools import main
from punct.data.splits import subset_datadir
from punct.data.tables import read_table
from punct.errors import PunctError
from tests.data.sample_dirs import make


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
