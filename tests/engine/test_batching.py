"""punct.engine.batching: slices that start at sentence starts and carry an unfinished sentence,
long sentences skipped or cut, the seeded epoch order, collation, case targets cut with the words."""
import numpy as np

from punct.engine.batching import IGNORE, collate, epoch_order, make_slices, slice_bounds
from punct.text.labels import label_id

O, C, P, Q = (label_id(x) for x in ("O", "COMMA", "PERIOD", "QUESTION"))


def test_slices_start_at_sentence_starts_and_carry_unfinished_sentence():
    #        0  1  2  3  4  5  6  7  8  9 10 11
    labs = [O, P, O, C, Q, O, O, O, P, O, O, P]
    b = slice_bounds(np.array(labs, np.int8), 5)
    # window [0,5): last sentence end at 4 -> next slice starts at 5
    # window [5,10): last sentence end at 8 -> next at 9; [9,12) is the rest
    assert b == [(0, 5, 5), (5, 10, 10), (9, 12, 12)]
    b = slice_bounds(np.array(labs, np.int8), 5, tail_in_loss=False)
    assert b == [(0, 5, 5), (5, 10, 9), (9, 12, 12)]


def test_long_sentence_skip_or_cut():
    labs = np.array([O, P, O, O, O, O, O, O, O, P, O, P], np.int8)
    # the sentence 2..9 does not fit in 4 words
    assert slice_bounds(labs, 4, long_sentences="skip") == [(0, 4, 4), (10, 12, 12)]
    assert slice_bounds(labs, 4, long_sentences="cut") == [(0, 4, 4), (2, 6, 6), (6, 10, 10), (10, 12, 12)]


def test_make_slices_arrays():
    w = np.arange(10, 22)
    labs = [O, P, O, C, Q, O, O, O, P, O, O, P]
    s = make_slices(w, labs, 5, tail_in_loss=False)
    assert s.ids.dtype == np.int32 and s.labels.dtype == np.int8
    assert s.lengths.tolist() == [5, 5, 3]
    assert s.ids[1].tolist() == [15, 16, 17, 18, 19]
    assert s.labels[1].tolist() == [O, O, O, P, IGNORE]  # word 9 carried over, not in this loss
    assert s.ids[2].tolist() == [19, 20, 21, 0, 0]
    assert s.labels[2].tolist() == [O, O, P, IGNORE, IGNORE]


def test_epoch_order_is_seeded_permutation():
    a = epoch_order(10, 3, seed=1, epoch=0)
    assert [len(x) for x in a] == [3, 3, 3, 1]
    assert sorted(np.concatenate(a).tolist()) == list(range(10))
    assert all((x == y).all() for x, y in zip(a, epoch_order(10, 3, seed=1, epoch=0)))
    assert not all((x == y).all() for x, y in zip(a, epoch_order(10, 3, seed=1, epoch=1)))


def test_collate_masks_and_ignores():
    s = make_slices(np.arange(10, 22), [O, P, O, C, Q, O, O, O, P, O, O, P], 5, tail_in_loss=False)
    ids, mask, y = collate(s, np.array([2, 1]))
    assert ids.shape == (2, 5) and mask.tolist()[0] == [True, True, True, False, False]
    assert y.tolist()[0] == [O, O, P, -100, -100] and y.tolist()[1][4] == -100


def test_case_targets_are_cut_with_the_words(tmp_path):
    from punct.data.datadir import write_datadir
    from punct.engine.batching import load_slices
    from punct.text.labels import CASE_TO_ID
    from punct.engine.vocab import Vocabulary
    from punct.text.words import Utterance, Word

    words = [Word("so", written="So"), Word("i", written="I"), Word("met", written="met"),
             Word("ibm", label="PERIOD", written="IBM")]
    write_datadir(tmp_path / "d", [Utterance("u1", words)])
    vocab = Vocabulary.build([["so", "i", "met", "ibm"]], min_count=1)
    s = load_slices(tmp_path / "d", vocab, length=10, cases=True, cache=tmp_path / "c.npz")
    assert s.cases[0, :4].tolist() == [CASE_TO_ID[c] for c in ("CAP", "CAP", "LOWER", "UPPER")]
    again = load_slices(tmp_path / "d", vocab, length=10, cases=True, cache=tmp_path / "c.npz")
    assert np.array_equal(again.cases, s.cases)
    assert load_slices(tmp_path / "d", vocab, length=10).cases is None
    (tmp_path / "d" / "written").unlink()  # no spelling: no case targets, and the cache is not reused
    assert (load_slices(tmp_path / "d", vocab, length=10, cases=True, cache=tmp_path / "c.npz").cases < 0).all()
