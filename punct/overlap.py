"""Held-out text in the training text: word n-grams of a test set that a training set also has.

Training text gathered from the web (TED transcripts, call transcripts) can hold the very talks a
benchmark tests on, which would make every score on it too good. A long n-gram (12 words by
default) almost never repeats by chance between different texts, so the share of a test set's
n-grams found in the training text measures how much of the test text was seen in training:
about 0% for disjoint sets, near 100% for a test talk copied into the training text.

Only the held-out n-grams are kept in memory; the training words are streamed past them.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from punct.text.words import Utterance

#: n-gram order: long enough that distinct texts almost never share one
DEFAULT_N = 12
#: an utterance with more than this share of its n-grams in the training text counts as seen
SEEN_SHARE = 0.5


def _ngrams(words: Sequence[str], n: int) -> Iterable[tuple[str, ...]]:
    return (tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def heldout_overlap(heldout: Sequence[Utterance], train: Iterable[Utterance], n: int = DEFAULT_N) -> dict:
    """How much of HELDOUT's text TRAIN holds: ``{"n", "ngrams", "shared", "shared_pct",
    "utterances", "utterances_seen"}`` where ``ngrams`` counts HELDOUT's distinct word n-grams,
    ``shared`` those that occur in TRAIN, and ``utterances_seen`` the HELDOUT utterances more than
    half of whose n-grams occur in TRAIN (a talk copied into the training text)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    per_utt = [set(_ngrams([w.text for w in u.words], n)) for u in heldout]
    wanted = set().union(*per_utt) if per_utt else set()
    found: set[tuple[str, ...]] = set()
    if wanted:
        for u in train:
            for g in _ngrams([w.text for w in u.words], n):
                if g in wanted:
                    found.add(g)
    seen = sum(1 for s in per_utt if s and len(s & found) > SEEN_SHARE * len(s))
    return {"n": n, "ngrams": len(wanted), "shared": len(found),
            "shared_pct": round(100.0 * len(found) / len(wanted), 3) if wanted else 0.0,
            "utterances": len(per_utt), "utterances_seen": seen}
