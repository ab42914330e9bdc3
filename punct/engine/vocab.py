"""The word vocabulary of a model: built from training data, saved inside checkpoints."""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from punct.models import EOS, PAD, SPECIALS, UNK, UNK_ID


@dataclass
class Vocabulary:
    """Words <-> ids. Ids 0, 1, 2 are ``<pad>``, ``<unk>``, ``</s>`` (punct.models.SPECIALS)."""

    words: list[str]
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if tuple(self.words[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a vocabulary must start with {' '.join(SPECIALS)}")
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("duplicate words in vocabulary")

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], min_count: int = 2, max_size: int = 0) -> "Vocabulary":
        """Words seen at least ``min_count`` times, most frequent first (ties by spelling);
        at most ``max_size`` of them (0: no limit), after the special tokens."""
        counts: Counter[str] = Counter()
        for s in sentences:
            counts.update(s)
        for sp in SPECIALS:
            counts.pop(sp, None)
        kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        if max_size > 0:
            kept = kept[:max_size]
        return cls(list(SPECIALS) + kept)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def id(self, word: str) -> int:
        return self.index.get(word, UNK_ID)

    def encode(self, words: Sequence[str]) -> list[int]:
        get = self.index.get
        return [get(w, UNK_ID) for w in words]

    def digest(self) -> str:
        """A short hash of the word list (cache keys)."""
        return hashlib.sha1("\n".join(self.words).encode("utf-8")).hexdigest()[:16]

    def to_list(self) -> list[str]:
        return list(self.words)

    @classmethod
    def from_list(cls, words: Sequence[str]) -> "Vocabulary":
        return cls(list(words))

    def write(self, path) -> None:
        from punct.fsutil import atomic_write

        with atomic_write(path) as f:
            for w in self.words:
                f.write(w + "\n")


__all__ = ["Vocabulary", "PAD", "UNK", "EOS"]
