"""punct.engine.vocab: the vocabulary with its special ids and min_count, its word list round trip, a bad list refused."""
import pytest

from punct.engine.vocab import Vocabulary
from punct.models import EOS_ID, PAD_ID, UNK_ID


def test_min_count_and_specials():
    v = Vocabulary.build([["a", "b", "a"], ["c", "b", "a", "d", "d"]], min_count=2)
    assert v.words[:3] == ["<pad>", "<unk>", "</s>"]
    assert v.words[3:] == ["a", "b", "d"]  # by count, then spelling; "c" seen once
    assert v.encode(["a", "c", "zzz"]) == [3, UNK_ID, UNK_ID]
    assert (v.id("<pad>"), v.id("</s>")) == (PAD_ID, EOS_ID)
    assert len(Vocabulary.build([["a", "b", "a", "b", "c", "c"]], min_count=1, max_size=2)) == 5


def test_round_trip_and_bad_list():
    v = Vocabulary.build([["x", "x", "y", "y"]])
    assert Vocabulary.from_list(v.to_list()).words == v.words
    assert v.digest() == Vocabulary.from_list(v.to_list()).digest()
    with pytest.raises(ValueError):
        Vocabulary(["a", "<unk>", "</s>"])
