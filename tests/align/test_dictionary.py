"""punct.align.dictionary: the pocketsphinx (CMU) pronouncing dictionary read with its
variants, its faults named by file and line, and the edit distance of phone sequences."""
from __future__ import annotations

import pytest

from punct.align.dictionary import edit_distance, read_dictionary, strip_variant
from punct.errors import PunctError


def test_variants_join_their_word_and_comments_and_blank_lines_are_skipped(tmp_path):
    p = tmp_path / "d.dict"
    p.write_text(";;; a comment line\n\nread R IY D\nread(2) R EH D\nred R EH D\n", encoding="utf-8-sig")
    assert read_dictionary(p) == {"read": [["R", "IY", "D"], ["R", "EH", "D"]], "red": [["R", "EH", "D"]]}


def test_only_a_trailing_number_in_brackets_is_a_variant():
    assert strip_variant("read(12)") == "read"
    assert [strip_variant(w) for w in ("(paren)", "a(b)", "x(2)y")] == ["(paren)", "a(b)", "x(2)y"]


def test_a_missing_or_empty_dictionary_is_an_error(tmp_path):
    with pytest.raises(PunctError, match="pronouncing dictionary not found"):
        read_dictionary(tmp_path / "none.dict")
    (tmp_path / "e.dict").write_text(";;; nothing but a comment\n")
    with pytest.raises(PunctError, match="pronouncing dictionary is empty"):
        read_dictionary(tmp_path / "e.dict")


@pytest.mark.parametrize("a,b,d", [("", "", 0), ("abc", "", 3), ("", "ab", 2), (["K", "AE", "T"], ["K", "AE", "T"], 0),
                                   (["K", "AE", "T"], ["B", "AE", "T", "S"], 2), ("flaw", "lawn", 2)])
def test_edit_distance(a, b, d):
    assert edit_distance(a, b) == d == edit_distance(b, a)
