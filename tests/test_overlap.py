"""punct.overlap: held-out n-grams found in the training text."""
from __future__ import annotations

import pytest

from punct.overlap import heldout_overlap
from punct.text.words import Utterance, Word


def utt(uid: str, text: str) -> Utterance:
    return Utterance(uid, [Word(t) for t in text.split()])


def test_counts_shared_ngrams_and_seen_utterances():
    heldout = [utt("a", "the cat sat on the mat"), utt("b", "one two three four"), utt("c", "x")]
    train = [utt("t1", "yesterday the cat sat on the mat again"), utt("t2", "one two five")]
    ov = heldout_overlap(heldout, train, n=3)
    # a: 4 trigrams, all in t1; b: 2 trigrams, none (t2 has "one two five"); c: too short for one
    assert ov == {"n": 3, "ngrams": 6, "shared": 4, "shared_pct": 66.667, "utterances": 3, "utterances_seen": 1}


def test_half_is_not_seen_and_train_is_streamed_once():
    heldout = [utt("a", "a b c d")]  # bigrams ab bc cd
    ov = heldout_overlap(heldout, iter([utt("t", "a b q c d")]), n=2)  # ab and cd: 2 of 3 > half
    assert ov["shared"] == 2 and ov["utterances_seen"] == 1
    ov = heldout_overlap([utt("a", "a b c d e")], iter([utt("t", "a b q c d")]), n=2)  # 2 of 4: not more than half
    assert ov["shared"] == 2 and ov["utterances_seen"] == 0


def test_empty_inputs_and_bad_n():
    assert heldout_overlap([], [utt("t", "a b c")])["shared_pct"] == 0.0
    assert heldout_overlap([utt("a", "a b c")], [])["shared"] == 0
    with pytest.raises(ValueError):
        heldout_overlap([], [], n=0)
