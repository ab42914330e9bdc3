"""The pronouncing dictionary file of pocketsphinx (CMU style): reading it, variant tags.

``word PH ON ES`` per line; alternative pronunciations are ``word(2)``, ``word(3)``.
Also a small edit distance for phone sequences.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from punct.errors import PunctError

_VARIANT_RE = re.compile(r"\(\d+\)$")


def strip_variant(word: str) -> str:
    """``will(2)`` -> ``will``: pocketsphinx marks pronunciation variants this way."""
    return _VARIANT_RE.sub("", word)


def read_dictionary(path: str | Path) -> dict[str, list[list[str]]]:
    """Read a pocketsphinx/CMU dictionary (``word PH ON ES``, variants ``word(2)``)."""
    path = Path(path)
    prons: dict[str, list[list[str]]] = {}
    try:
        f = open(path, encoding="utf-8-sig")
    except FileNotFoundError:
        raise PunctError("pronouncing dictionary not found", path) from None
    with f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts or line.startswith(";;;"):
                continue
            if len(parts) < 2:
                raise PunctError(f"expected 'WORD PHONE...', got {line.strip()!r}", path, lineno)
            prons.setdefault(strip_variant(parts[0]), []).append(parts[1:])
    if not prons:
        raise PunctError("pronouncing dictionary is empty", path)
    return prons


def edit_distance(a: Sequence, b: Sequence) -> int:
    """Levenshtein distance of two sequences."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]
