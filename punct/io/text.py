"""Punctuated plain text: one utterance per line.

Two layouts, told apart by the file name:

- ``text.punct`` (or any name ending in ``.punct``): Kaldi style,
  ``UTT_ID word word, word.`` per line, as the decoder writes it
  (punct.engine.decode.write_decode): the first field is the utterance id and
  ids must be unique. An id alone on its line is an utterance without words.
- anything else (``.txt``): each non-empty line is an utterance, whose id is
  the file name without extension and the line number (``talk-000003``).
  Blank lines are skipped.

The text is tokenized with punct.text.textnorm.normalize_written (lower case, marks
become the label of the word before them, ``U.S.`` is ``us`` plus PERIOD, and
so on, the IWSLT2011 conventions). Clitics the input already split off
(``it 's``, ``do n't``, as in the decoder's own output) are joined back before
tokenizing so that they come out as the same tokens. A line that gives no word
(only marks) is an utterance without words in the Kaldi layout and is skipped
in the plain one.

As an input to restore (``read_input``), a plain-text transcript is one utterance of
spoken words whose spelling is kept (marks already attached become labels, which
restoring replaces).

Writing: ``word word, word.`` with each word followed by the mark of its label;
the Kaldi layout (sorted ids) when the name ends in ``.punct``, else one line per
utterance without ids.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from punct.errors import PunctError
from punct.fsutil import atomic_write, iter_lines
from punct.io.sentences import attach_marks_only, warn_marks_only, word_from_token
from punct.text.labels import mark_of
from punct.text.textnorm import normalize_written
from punct.text.words import Utterance, Word

NAME = "text"
EXTENSIONS = (".txt", ".punct")

_CLITIC_RE = re.compile(r"(?<=\S) +((?:'|\u2019)(?:s|re|m|ll|ve|d)|n(?:'|\u2019)t)(?=[\s,.?!;:\"]|$)", re.IGNORECASE)
_WORD_END_MARK_RE = re.compile(r"[^\W\d_][.,?!](?:\s|$)")


def has_ids(path: str | Path) -> bool:
    """True for the Kaldi layout (``text.punct``, ``*.punct``)."""
    return Path(path).name.lower().endswith(".punct")


def _stem(path: Path) -> str:
    name = path.name
    for ext in EXTENSIONS:
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    return re.sub(r"\s+", "_", name) or "line"


def tokenize_line(text: str):
    """The Words (with labels) of one line of punctuated text."""
    return normalize_written(_CLITIC_RE.sub(r"\1", text))


def read(path: str | Path) -> list[Utterance]:
    """Read punctuated text (see the module docstring for the two layouts)."""
    path = Path(path)
    kaldi = has_ids(path)
    stem = _stem(path)
    utts: list[Utterance] = []
    seen: dict[str, int] = {}
    marks_only: list[int] = []
    for lineno, line in iter_lines(path):
        if not line.strip():
            if kaldi:
                raise PunctError("empty line (expected 'UTT_ID text')", path, lineno)
            continue
        if kaldi:
            fields = line.split(maxsplit=1)
            uid, body = fields[0], fields[1] if len(fields) > 1 else ""
            if uid in seen:
                raise PunctError(f"duplicate utterance id {uid!r} (first on line {seen[uid]})", path, lineno)
            seen[uid] = lineno
        else:
            uid, body = f"{stem}-{lineno:06d}", line
        words = tokenize_line(body)
        if not words and body.strip():
            marks_only.append(lineno)
        if not words and not kaldi:
            continue
        utts.append(Utterance(id=uid, words=words))
    warn_marks_only(path, marks_only)
    if not utts or not any(u.words for u in utts):
        raise PunctError("no words in the file", path)
    return utts


def read_input(path: str | Path) -> list[Utterance]:
    """A plain-text transcript as one utterance: every white-space token is a word
    (its spelling kept; marks already attached become labels, which restoring replaces)."""
    path = Path(path)
    words: list[Word] = []
    marks_only: list[int] = []
    for lineno, line in iter_lines(path):
        n = len(words)
        for tok in line.split():
            w = word_from_token(tok)
            if w is None:
                attach_marks_only(words, tok)
            else:
                words.append(w)
        if len(words) == n and line.strip():
            marks_only.append(lineno)
    warn_marks_only(path, marks_only)
    if not words:
        raise PunctError("no words (empty input)", path)
    return [Utterance(id=path.stem, words=words)]


def punctuated(utt: Utterance) -> str:
    """``word word, word.``: each word followed by the mark of its label."""
    return " ".join(w.text + mark_of(w.label) for w in utt.words)


def write(utts: Iterable[Utterance], path: str | Path) -> None:
    """Write one line per utterance (``UTT_ID text`` sorted by id for ``*.punct`` names)."""
    path = Path(path)
    utts = list(utts)
    if not utts:
        raise PunctError("no utterances to write", path)
    if has_ids(path):
        ids = [u.id for u in utts]
        if len(set(ids)) != len(ids):
            raise PunctError("duplicate utterance ids", path)
        for u in utts:
            if not u.id or any(c.isspace() for c in u.id):
                raise PunctError(f"invalid utterance id {u.id!r} (empty or contains white space)", path)
        utts = sorted(utts, key=lambda u: u.id.encode("utf-8"))
    with atomic_write(path) as f:
        for u in utts:
            body = punctuated(u)
            if has_ids(path):
                f.write(f"{u.id} {body}\n" if body else f"{u.id}\n")
            else:
                f.write(body + "\n")


def sniff(head: str) -> bool:
    """True for text with marks after words, no tabs, and no other format's signature."""
    head = head.lstrip("\ufeff")
    first = head.split("\n", 1)[0]
    if "\t" in head or head.lstrip()[:1] in ("{", "[", "<") or "|" in first:
        return False
    return bool(_WORD_END_MARK_RE.search(head))
