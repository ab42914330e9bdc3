"""punct.bin.transfer, stage 5: the reference marks carried onto hypothesis words as HYP/labels,
the statistics in --report, a finished transfer skipped, utterance sets that differ refused
before anything is written (the alignment itself: tests/data/test_transfer.py)."""
from __future__ import annotations

import json

import pytest

from punct.bin import transfer
from punct.data.datadir import load_utterances, write_datadir
from punct.fsutil import is_done
from punct.text.words import Utterance, Word


def utt(uid, spec):
    """``so revenue, grew.`` -> words with the marks as labels."""
    marks = {",": "COMMA", ".": "PERIOD", "?": "QUESTION"}
    return Utterance(uid, [Word(w.rstrip(",.?"), marks.get(w[-1], "O")) for w in spec.split()])


def write_hyp(d, utts):
    """A hypothesis data directory: no labels until the transfer."""
    write_datadir(d, utts)
    (d / "labels").unlink()


@pytest.fixture
def dirs(tmp_path):
    ref, hyp = tmp_path / "ref", tmp_path / "hyp"
    write_datadir(ref, [utt("u1", "so, revenue grew. thanks."), utt("u2", "any questions?")])
    write_hyp(hyp, [utt("u1", "so revenue thanks"), utt("u2", "any questions")])
    return ref, hyp


def test_marks_are_carried_and_a_deleted_words_mark_moves_back(dirs, tmp_path):
    ref, hyp = dirs
    assert transfer.main(["--ref", str(ref), "--hyp", str(hyp), "--report", str(tmp_path / "t.json")]) == 0
    assert [u.labels for u in load_utterances(hyp)] == [["COMMA", "PERIOD", "PERIOD"], ["O", "QUESTION"]]
    stats = json.loads((tmp_path / "t.json").read_text())
    assert (stats["marks"], stats["carried"], stats["moved"], stats["deletions"]) == (4, 3, 1, 1)
    assert is_done(hyp / "labels")


def test_a_finished_transfer_is_skipped_unless_forced(dirs, caplog):
    ref, hyp = dirs
    assert transfer.main(["--ref", str(ref), "--hyp", str(hyp)]) == 0
    (hyp / "labels").write_text("u1 O O O\nu2 O O\n")
    assert transfer.main(["--ref", str(ref), "--hyp", str(hyp)]) == 0
    assert "is finished; skipping" in caplog.text and (hyp / "labels").read_text() == "u1 O O O\nu2 O O\n"
    assert transfer.main(["--ref", str(ref), "--hyp", str(hyp), "--force"]) == 0
    assert (hyp / "labels").read_text() == "u1 COMMA PERIOD PERIOD\nu2 O QUESTION\n"


@pytest.mark.parametrize("hyp_utts,problem", [
    (["u1"], "reference utterance 'u2' has no hypothesis (1 such)"),
    (["u1", "u2", "u3"], "utterance 'u3' is not in the reference (1 such)"),
])
def test_hypotheses_of_other_utterances_are_refused(dirs, capsys, hyp_utts, problem):
    ref, hyp = dirs
    write_hyp(hyp, [utt(u, "so revenue") for u in hyp_utts])
    assert transfer.main(["--ref", str(ref), "--hyp", str(hyp)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"error: {hyp / 'text'}: {problem}"
    assert not (hyp / "labels").exists()
