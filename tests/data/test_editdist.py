"""punct.data.editdist.align_ids on rapidfuzz: the same alignment as the project's DP aligning
the whole in one piece, op for op; the standard (exact-word) error count beside the loose one."""
from __future__ import annotations

import random

import pytest

import punct.data.editdist as E
import punct.data.transfer as T
from punct.scoring.score import score_utterances
from punct.text.words import Utterance, Word

pytest.importorskip("rapidfuzz")


def _one_piece(a, b, monkeypatch):
    """The DP's own answer with no Hirschberg split and no common prefix matched off: its
    backtrace's tie rule over the whole (the module docstring)."""
    with monkeypatch.context() as m:
        m.setattr(E, "BASE_CELLS", 1 << 40)
        return E.align_ids_dp(a, b, match_prefix=False)


def _asr_like(rng: random.Random, n: int, vocab: int, err: float) -> tuple[list[int], list[int]]:
    """A reference of ``n`` ids from a small vocabulary (so words repeat, ``the the``) and a
    hypothesis with substitutions, deletions, insertions and repeated words at rate ``err``."""
    a = [rng.randrange(vocab) for _ in range(n)]
    b = []
    for x in a:
        r = rng.random()
        if r < err / 3:
            continue
        if r < 2 * err / 3:
            b.append(rng.randrange(vocab))
        elif r < err:
            b += [x, x if rng.random() < 0.5 else rng.randrange(vocab)]
        else:
            b.append(x)
    return a, b


@pytest.mark.parametrize("seed", range(12))
def test_anchored_alignment_is_the_one_piece_dp(seed, monkeypatch):
    rng = random.Random(seed)
    a, b = _asr_like(rng, rng.randrange(50, 400), vocab=rng.choice([3, 8, 40]), err=rng.choice([0.05, 0.15, 0.3]))
    assert E.align_ids(a, b) == _one_piece(a, b, monkeypatch)


def test_small_dp_is_the_dp_on_small_problems():
    rng = random.Random(5)
    for _ in range(500):
        a = [rng.randrange(3) for _ in range(rng.randrange(0, 9))]
        b = [rng.randrange(3) for _ in range(rng.randrange(0, 9))]
        assert E._small_dp(a, b) == E.align_ids_dp(a, b, match_prefix=False), (a, b)


def test_without_rapidfuzz_the_dp_aligns_the_whole(monkeypatch):
    a, b = _asr_like(random.Random(3), 300, 8, 0.15)
    monkeypatch.setattr(E, "rapidfuzz_levenshtein", lambda: None)
    assert E.align_ids(a, b) == E.align_ids_dp(a, b)
    assert T.exact_word_errors(["we're", "here", "u.s."], ["we", "are", "here", "us"]) == 3


@pytest.mark.parametrize("ref,hyp,loose,exact", [
    ("we're here in the u.s. today", "we 're here in the us today", 0, 3),  # clitic split, dots: loose matches
    ("yes so we grew", "yes so we grew", 0, 0),
    ("the the cat sat", "the cat sat down", 2, 2),
    ("a b c", "", 3, 3),
])
def test_exact_and_loose_word_errors(ref, hyp, loose, exact):
    r = Utterance("u", [Word(w) for w in ref.split()])
    h = Utterance("u", [Word(w) for w in hyp.split()])
    t = score_utterances([r], [h]).transfer
    assert (t.word_errors, t.exact_errors) == (loose, exact)
    table = score_utterances([r], [h]).format_table()
    if loose or exact:
        assert f"WER {100 * exact / len(ref.split()):.1f}  standard" in table
