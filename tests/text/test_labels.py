"""punct.text.labels: marks mapped to labels, the label inventory and its ids, the stronger mark,
and the case classes of words."""
import pytest

from punct.text import labels as L
from punct.text.labels import CAP, LOWER, MIXED, UPPER, apply_case, case_of


@pytest.mark.parametrize(
    "mark,label",
    [
        (",", "COMMA"), (".", "PERIOD"), ("?", "QUESTION"), ("!", "PERIOD"), (";", "PERIOD"),
        (":", "COMMA"), ("--", "COMMA"), ("-", "COMMA"), ("—", "COMMA"), ("", "O"), ('"', "O"),
        ("?!", "QUESTION"), (".,", "PERIOD"), (",\"", "COMMA"), ("...", "PERIOD"), ("…", "PERIOD"),
    ],
)
def test_map_mark(mark, label):
    assert L.map_mark(mark) == label


def test_label_ids_follow_inventory():
    assert [L.label_id(x) for x in L.LABELS] == [0, 1, 2, 3]
    assert L.LABELS[0] == L.O
    with pytest.raises(ValueError, match="unknown label 'EXCLAMATION'"):
        L.label_id("EXCLAMATION")


def test_stronger_and_marks():
    assert L.stronger("COMMA", "PERIOD") == "PERIOD"
    assert L.stronger("QUESTION", "PERIOD") == "QUESTION"
    assert L.stronger("O", "O") == "O"
    assert [L.mark_of(x) for x in L.LABELS] == ["", ",", ".", "?"]
    assert L.SENTENCE_END == {"PERIOD", "QUESTION"}


@pytest.mark.parametrize("word,case", [
    ("rate", LOWER), ("3d", LOWER), ("%", LOWER), ("Rate", CAP), ("I", CAP), ("Q4", CAP),
    ("IBM", UPPER), ("U.S.", UPPER), ("iPhone", MIXED), ("McDonald", MIXED), ("O'Brien", MIXED),
])
def test_case_of(word, case):
    assert case_of(word) == case


@pytest.mark.parametrize("word,case,out", [
    ("RATE", LOWER, "rate"), ("rate", CAP, "Rate"), ("'tis", CAP, "'Tis"), ("ibm", UPPER, "IBM"),
    ("iphone", MIXED, "iPhone"), ("mcdonald", MIXED, "mcdonald"),
])
def test_apply_case(word, case, out):
    assert apply_case(word, case, {"iphone": "iPhone"}) == out


def test_apply_case_refuses_an_unknown_class():
    with pytest.raises(ValueError, match="unknown case class"):
        apply_case("x", "TITLE")


def test_case_of_and_apply_case_round_trip():
    for w in ["rate", "Rate", "IBM", "iPhone", "O'Brien"]:
        assert apply_case(w.lower(), case_of(w), {w.lower(): w} if case_of(w) == MIXED else None) == w
