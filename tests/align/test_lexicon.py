"""punct.align.lexicon: transcript tokens onto dictionary words."""
from __future__ import annotations

import pytest

from punct.align.dictionary import edit_distance, read_dictionary, strip_variant
from punct.align.lexicon import clitic_split
from punct.errors import PunctError


def units(lex, text):
    m = lex.map_tokens(text.split())
    return [(u.tokens, u.words, u.clitic) for u in m.units], m


def test_dictionary_words_and_clitics(lexicon_factory):
    lex = lexicon_factory()
    got, m = units(lex, "do n't we 're ca n't the")
    assert got == [((0, 1), ["don't"], "n't"), ((2, 3), ["we're"], "'re"), ((4, 5), ["can't"], "n't"),
                   ((6,), ["the"], None)]
    assert m.n_lts == 0 and m.added == {}


def test_numbers_hyphens_and_spelled_letters(lexicon_factory):
    lex = lexicon_factory()
    got, m = units(lex, "1990s seventy-five xkcd mr. Café")
    assert got[0][1] == ["nineteen", "nineties"]
    assert got[1][1] in (["seventy-five"], ["seventy", "five"])
    assert got[2][1] == ["x", "k", "c", "d"]
    assert got[3][1] == ["mr."]
    assert got[4][1] == ["cafe"]  # upper case and accents are not out-of-dictionary
    assert m.n_lts == 0


def test_made_up_words_use_letter_to_sound(lexicon_factory):
    lex = lexicon_factory()
    got, m = units(lex, "the blorptic zanthrofy 's hat")
    assert m.n_lts == 2 and m.lts_tokens == ["blorptic", "zanthrofy"]
    assert got[2] == ((2, 3), ["zanthrofy's"], "'s")
    assert m.added["zanthrofy's"][-1] == "Z" and m.added["zanthrofy's"][:-1] == m.added["zanthrofy"]
    assert m.added["blorptic"][0] == "B"


def test_token_without_letters_or_digits_is_an_error(lexicon_factory):
    lex = lexicon_factory()
    with pytest.raises(PunctError) as e:
        lex.map_tokens(["hello", "%%", "world"], "data/text", 7)
    assert str(e.value) == "data/text:7: transcript token '%%' (word 2) has no letters or digits"


def test_helpers(tmp_path):
    assert strip_variant("will(2)") == "will" and strip_variant("will") == "will"
    assert clitic_split("n't", ["D", "OW", "N", "T"]) == 2
    assert clitic_split("'s", ["IH", "T", "S"]) == 1
    assert clitic_split("'s", ["B", "AH", "S", "IH", "Z"]) == 2
    assert edit_distance("kitten", "sitting") == 3
    p = tmp_path / "d.dict"
    p.write_text("a AH\na(2) EY\nbad\n")
    with pytest.raises(PunctError, match=r"d.dict:3: expected 'WORD PHONE...'"):
        read_dictionary(p)
