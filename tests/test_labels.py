import pytest

from punct import labels as L


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
