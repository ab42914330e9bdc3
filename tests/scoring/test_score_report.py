"""punct.scoring.score_report: every score of a ScoreReport from a hand-made confusion matrix,
checked by hand (per mark, overall, boundaries, sentence ends, SER, Err, case), the scores that
are undefined, and the files it writes (the counting of real words: test_score.py)."""
from __future__ import annotations

import json

import pytest

from punct.scoring.score_report import PRF, ScoreReport, SlotError
from punct.text.labels import CASES, LABELS

#: rows reference, columns hypothesis: O COMMA PERIOD QUESTION
MATRIX = [[80, 5, 1, 0],   # O: 6 inserted marks
          [3, 10, 2, 0],   # COMMA: 10 right, 3 deleted, 2 taken for periods
          [1, 0, 8, 1],    # PERIOD: 8 right, 1 deleted, 1 a question
          [0, 0, 1, 3]]    # QUESTION: 3 right, 1 a period


def report(matrix=MATRIX, **kw):
    return ScoreReport({r: {h: matrix[i][j] for j, h in enumerate(LABELS)} for i, r in enumerate(LABELS)}, **kw)


def test_each_mark_and_overall_by_hand():
    r = report()
    comma, period, question = (r.per_class[k] for k in ("COMMA", "PERIOD", "QUESTION"))
    assert (comma.tp, comma.fp, comma.fn) == (10, 5, 5) and comma.f1 == pytest.approx(200 / 3)
    assert (period.tp, period.fp, period.fn) == (8, 4, 2) and period.precision == pytest.approx(200 / 3)
    assert (question.tp, question.fp, question.fn) == (3, 1, 1) and question.recall == 75.0
    o = r.overall
    assert (o.tp, o.fp, o.fn) == (21, 10, 8) and o.f1 == pytest.approx(100 * 42 / 60)


def test_boundaries_sentence_ends_and_the_error_rates():
    r = report()
    b = r.boundary  # any mark against none: 25 marks found, 6 inserted, 4 deleted
    assert (b.tp, b.fp, b.fn) == (25, 6, 4)
    s = r.sentence  # PERIOD or QUESTION against the rest: a question taken for a period is right here
    assert (s.tp, s.fp, s.fn) == (13, 3, 1)
    assert (r.substitutions, r.deletions, r.insertions, r.ref_marks) == (4, 4, 6, 29)
    assert r.ser == pytest.approx(100 * 14 / 29) and r.err == pytest.approx(100 * 14 / 115) and r.slots == 115
    assert r.wer is None and r.hyp_marks == 31


def test_undefined_scores_are_none():
    empty = report([[5, 0, 0, 0]] + [[0, 0, 0, 0]] * 3)
    assert empty.overall.f1 is None and empty.overall.precision is None and empty.ser is None
    assert empty.err == 0.0 and report([[0] * 4] * 4).err is None
    missed = report([[5, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert missed.overall.f1 == 0.0 and missed.overall.precision is None  # no hypothesis marks
    assert PRF(0, 0, 0).to_dict() == {"precision": None, "recall": None, "f1": None, "tp": 0, "fp": 0, "fn": 0,
                                      "ref": 0, "hyp": 0}


def test_case_classes_leave_lower_out():
    case = {r: {h: 0 for h in CASES} for r in CASES}
    case[CASES[0]][CASES[0]] = 50
    case[CASES[1]][CASES[1]] = 6
    case[CASES[1]][CASES[0]] = 2
    case[CASES[0]][CASES[1]] = 1
    r = report(case_confusion=case, mark_case=PRF(20, 3, 4))
    cap = r.case_classes[CASES[1]]
    assert set(r.case_classes) == set(CASES[1:]) and (cap.tp, cap.fp, cap.fn) == (6, 1, 2)
    assert r.case_overall.tp == 6 and r.to_dict()["case"]["overall"]["f1"] == pytest.approx(100 * 12 / 15)
    assert report().case_classes is None and report().to_dict()["case"] is None


def test_the_json_table_and_files(tmp_path):
    r = report(errors=[SlotError("u1", 4, "COMMA", "O", "so [COMMA->O] we")])
    d = r.to_dict()
    assert d["confusion"]["matrix"] == MATRIX and d["counts"]["wrong_slots"] == 14
    assert d["overall"]["f1"] == pytest.approx(70.0) and "bootstrap" not in d
    table = r.format_table()
    assert "SER 48.3  (S 4 + D 4 + I 6 over 29 reference marks)" in table
    assert "Err 12.2  (14 wrong of 115 slots)" in table
    assert "case not scored" in table
    r.write_dir(tmp_path / "scoring")
    assert sorted(p.name for p in (tmp_path / "scoring").iterdir()) == ["confusion.txt", "errors.txt", "report.json",
                                                                         "report.txt"]
    assert (tmp_path / "scoring" / "errors.txt").read_text() == "u1 4\tCOMMA->O\tso [COMMA->O] we\n"
    assert json.loads((tmp_path / "scoring" / "report.json").read_text())["ser"] == pytest.approx(100 * 14 / 29)
