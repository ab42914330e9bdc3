"""The IWSLT2011 punctuation benchmark format: one ``word<TAB>LABEL`` line per word.

The label (punct.text.labels.LABELS) is the mark after the word. The whole file is
one utterance whose id is the file name without its extension (the benchmark
files are one stream of talks). A line with an empty word and a label (a few in
``dev2012``: ``<TAB>COMMA``) gives its mark to the previous word, the stronger
mark winning; these are counted and logged. An unknown label, a line without
exactly one tab or with an empty label, and a file without words are errors
naming the file and line. Writing concatenates the utterances (their
boundaries are not kept).
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterable

from punct.errors import PunctError
from punct.fsutil import atomic_write, iter_lines
from punct.text.labels import LABELS, O, is_label, stronger
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

NAME = "iwslt"
EXTENSIONS = (".tsv", ".iwslt")

_LINE_RE = re.compile(r"^[^\t\n]*\t(?:" + "|".join(LABELS) + r")\r?$")


def utt_id_of(path: Path) -> str:
    """An utterance id from a file name: the name without extension, white space made ``_``."""
    name = path.name
    for ext in EXTENSIONS:
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    return re.sub(r"\s+", "_", name) or "utt"


def read(path: str | Path) -> list[Utterance]:
    """Read a ``word<TAB>LABEL`` file as one utterance."""
    words, _ = read_words(path)
    return [Utterance(id=utt_id_of(path), words=words)]


def read_words(path: str | Path) -> tuple[list[Word], int]:
    """The words of a ``word<TAB>LABEL`` file, and how many lines had an empty word
    (their mark went to the word before; the stronger mark wins)."""
    path = Path(path)
    words: list[Word] = []
    empty_words = dropped = 0
    for lineno, line in iter_lines(path):
        parts = line.split("\t")
        if len(parts) != 2:
            raise PunctError(f"expected 'word<TAB>LABEL', got {len(parts) - 1} tabs: {line[:60]!r}", path, lineno)
        word, label = parts[0].strip(), parts[1].strip()
        if not is_label(label):
            raise PunctError(f"unknown label {label!r} (expected one of {' '.join(LABELS)})", path, lineno)
        if not word:
            empty_words += 1
            if words:
                words[-1].label = stronger(words[-1].label, label)
            elif label != O:
                dropped += 1
            continue
        if any(c.isspace() for c in word):
            raise PunctError(f"word {word!r} contains white space", path, lineno)
        words.append(Word(text=word, label=label))
    if not words:
        raise PunctError("no words (expected 'word<TAB>LABEL' lines)", path)
    if empty_words:
        log.info("%s: %d lines with an empty word gave their mark to the previous word (%d marks dropped at the start)",
                 path, empty_words, dropped)
    return words, empty_words


def write(utts: Iterable[Utterance], path: str | Path) -> None:
    """Write all words of ``utts`` as ``word<TAB>LABEL`` lines (utterance boundaries are lost)."""
    path = Path(path)
    with atomic_write(path) as f:
        n = 0
        for u in utts:
            for w in u.words:
                if not w.text or any(c.isspace() for c in w.text):
                    raise PunctError(f"utterance {u.id!r}: invalid word {w.text!r}", path)
                f.write(f"{w.text}\t{w.label}\n")
                n += 1
        if n == 0:
            raise PunctError("no words to write", path)


def sniff(head: str) -> bool:
    """True if the first (up to 20) lines are all ``word<TAB>LABEL``."""
    lines = [ln for ln in head.lstrip("\ufeff").split("\n")[:20] if ln]
    if len(lines) > 1 and not head.endswith("\n"):
        lines = lines[:-1]  # the last line may be cut off
    return bool(lines) and all(_LINE_RE.match(ln) for ln in lines)
