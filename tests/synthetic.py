"""The synthetic corpus of the engine and model tests: the mark after a word is decided by
the next word, so a model can only learn it with outputs aligned to words (a helper module,
imported as ``tests.synthetic``; the fixtures that write it are in tests/conftest.py)."""
from __future__ import annotations

import random

from punct.text.words import Utterance, Word

WORDS = [f"w{i}" for i in range(30)]


def next_word_rule(nxt: str | None) -> str:
    """The label of a word given the word after it (None at the end of an utterance)."""
    if nxt is None:
        return "PERIOD"
    k = int(nxt[1:])
    return "PERIOD" if k < 3 else "COMMA" if k < 6 else "QUESTION" if k < 8 else "O"


def make_utts(n_utts: int, n_words: int, seed: int) -> list[Utterance]:
    """``n_utts`` utterances of ``n_words`` random words each, labelled by ``next_word_rule``."""
    rng = random.Random(seed)
    utts = []
    for u in range(n_utts):
        texts = [rng.choice(WORDS) for _ in range(n_words)]
        words = [Word(t, next_word_rule(texts[i + 1] if i + 1 < len(texts) else None)) for i, t in enumerate(texts)]
        utts.append(Utterance(f"utt{u:03d}", words))
    return utts
