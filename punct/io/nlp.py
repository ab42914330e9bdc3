"""Rev's pipe-separated ``.nlp`` transcripts (Earnings-21 and Earnings-22).

A header line names the columns; two layouts occur in the corpora:

- ``token|speaker|ts|endTs|punctuation|case|tags|wer_tags`` (Earnings-21
  references; the ASR engine outputs lack ``wer_tags``);
- ``token|speaker|ts|endTs|punctuation|prepunctuation|case|tags|oldTs|oldEndTs|ali_comment``
  (Earnings-22 force-aligned references; one file also has ``wer_tags``).

Columns are found by name: ``token`` and ``punctuation`` are required,
``speaker``, ``ts`` and ``endTs`` are used when present (an empty field is
None). One file is one call: one utterance whose id is the file name without
``.nlp`` (white space made ``_``). Each word's ``text`` is the token lower-cased;
the token as written is kept in ``Word.written`` when that field exists. The
punctuation is mapped with punct.text.labels.map_mark: ``! ;`` -> PERIOD, ``: - –``
-> COMMA, and the ellipsis ``…`` -> PERIOD (a speaker trailing off ends the
sentence as spoken). A line whose field count differs from the header's, or a
time that is not a number, is an error naming the file and line.

What the real files contain, and what is done with it (counts over the 33
Earnings-21 calls and 125 Earnings-22 calls in ../shared/data):

- CRLF line ends in every file; they are stripped.
- Non-speech tags in the references, ``<inaudible>`` ``<crosstalk>`` ``<unk>``
  ``<laugh>`` ``<affirmative>`` ``<silence>`` ``<cough>`` (about 1,200 in
  Earnings-21 and 1,100 in Earnings-22): not words an ASR system can output, so
  they are dropped; a mark on a tag (``<inaudible>.``, about a third of them)
  goes to the word before it, the stronger mark winning.
- Google and Microsoft write a percent sign in the punctuation column
  (``20|...|%|`` and ``%.``; about 540 and 240 times): ``%`` is folded back into
  the token (``20%``, as the references write it) and the rest is the mark.
- A token with marks inside it: Microsoft's ``****.`` (a masked word with its
  full stop): trailing marks of a token without letters or digits become its
  punctuation. Abbreviations keep their dots (``U.S.``, ``p.m.`` in the
  references and Speechmatics); the aligner's normalizer matches them anyway.
- Tokens that are symbols, spoken as words: ``&`` ``/`` ``+`` ``%`` ``*``
  ``#`` ``×`` ``'`` (references), ``-`` ``&`` ``.`` (Google): kept as words.
- Cut-off words with a trailing hyphen (``the-``, ``I-``, 830 in Earnings-21
  references), hyphenated words (``COVID-19``, ``long-term``) and numbers as
  digits (``2020``, ``10-12``, ``€33``, ``4.1``): kept as they are.
- Contractions are single tokens (``we're``), except Microsoft's ``'s`` as a
  token of its own (240 times); the aligner matches both.
- Speakers are numbers, ``UU`` (Speechmatics) or empty (Rev ESPnet); times are
  empty in the Earnings-21 references, in Microsoft's and ESPnet's output, and
  for the words Earnings-22 could not align (``ali_comment`` ``del``).
- One token in the references has a trailing space (``burden ``): tokens are
  stripped. ``prepunctuation`` is empty everywhere and is ignored.

Writing produces the Earnings-21 engine layout
``token|speaker|ts|endTs|punctuation|case|tags`` with the mark of each label.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterable

from punct.errors import PunctError
from punct.data.tables import seconds
from punct.fsutil import atomic_write
from punct.text.labels import O, map_mark, mark_of, stronger
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

NAME = "nlp"
EXTENSIONS = (".nlp",)

WRITE_COLUMNS = ("token", "speaker", "ts", "endTs", "punctuation", "case", "tags")

_TAG_RE = re.compile(r"^<[^<>\s]+>$")
_ALNUM_RE = re.compile(r"[^\W_]")
_TRAILING_MARKS_RE = re.compile(r"[.,?!;:\u2026]+$")
_HAS_WRITTEN = "written" in getattr(Word, "__dataclass_fields__", {})


def utt_id_of(path: Path) -> str:
    """The utterance id of an ``.nlp`` file: its name without the suffix, white space as ``_``."""
    name = path.name
    if name.lower().endswith(".nlp"):
        name = name[:-4]
    return re.sub(r"\s+", "_", name) or "call"


def _time(value: str, path: Path, lineno: int, column: str) -> float | None:
    value = value.strip()
    if not value:
        return None
    return seconds(value, column, path, lineno)


def read(path: str | Path) -> list[Utterance]:
    """Read one ``.nlp`` file as one utterance (see the module docstring)."""
    path = Path(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        lineno = data[: e.start].count(b"\n") + 1
        raise PunctError("line is not valid UTF-8", path, lineno) from None
    lines = text.lstrip("\ufeff").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].strip():
        raise PunctError("empty file (expected a header 'token|speaker|ts|endTs|punctuation|...')", path, 1)
    header = [h.strip() for h in lines[0].rstrip("\r").split("|")]
    col = {name: i for i, name in enumerate(header)}
    if "token" not in col or "punctuation" not in col:
        raise PunctError(f"expected a header naming the columns 'token' and 'punctuation', got {lines[0][:80]!r}", path, 1)
    it, ip = col["token"], col["punctuation"]
    isp, its, ite = col.get("speaker"), col.get("ts"), col.get("endTs")
    words: list[Word] = []
    tags = tag_marks = dropped = 0
    for lineno, line in enumerate(lines[1:], 2):
        line = line.rstrip("\r")
        parts = line.split("|")
        if len(parts) != len(header):
            raise PunctError(f"expected {len(header)} '|'-separated fields as in the header, got {len(parts)}", path, lineno)
        token = parts[it].strip()
        punct = parts[ip].strip()
        if "%" in punct:
            token, punct = token + "%", punct.replace("%", "")
        if token and not _ALNUM_RE.search(token):
            m = _TRAILING_MARKS_RE.search(token)
            if m and m.start() > 0:
                token, punct = token[: m.start()], token[m.start():] + punct
        label = map_mark(punct)
        if not token or _TAG_RE.match(token):
            tags += 1
            if label != O:
                tag_marks += 1
                if words:
                    words[-1].label = stronger(words[-1].label, label)
                else:
                    dropped += 1
            continue
        w = Word(
            text=token.lower(),
            label=label,
            start=_time(parts[its], path, lineno, "ts") if its is not None else None,
            end=_time(parts[ite], path, lineno, "endTs") if ite is not None else None,
            speaker=(parts[isp].strip() or None) if isp is not None else None,
        )
        if _HAS_WRITTEN and token != w.text:
            w.written = token
        words.append(w)
    if not words:
        raise PunctError("no words (only a header, or only non-speech tags)", path)
    if tags or tag_marks:
        log.debug("%s: dropped %d non-speech tags and empty tokens; %d marks on them went to the previous word "
                 "(%d at the start were dropped)", path, tags, tag_marks, dropped)
    return [Utterance(id=utt_id_of(path), words=words)]


def write(utts: Iterable[Utterance], path: str | Path) -> None:
    """Write all words of ``utts`` in the engine layout (``token|speaker|ts|endTs|punctuation|case|tags``)."""
    path = Path(path)

    def t(x: float | None) -> str:
        return "" if x is None else f"{x:.3f}".rstrip("0").rstrip(".")

    with atomic_write(path) as f:
        f.write("|".join(WRITE_COLUMNS) + "\n")
        n = 0
        for u in utts:
            for w in u.words:
                token = getattr(w, "written", None) or w.text
                if not token or "|" in token or any(c.isspace() for c in token):
                    raise PunctError(f"utterance {u.id!r}: invalid word {token!r}", path)
                spk = w.speaker or u.speaker or ""
                f.write(f"{token}|{spk}|{t(w.start)}|{t(w.end)}|{mark_of(w.label)}||\n")
                n += 1
        if n == 0:
            raise PunctError("no words to write", path)


def sniff(head: str) -> bool:
    """True if the first line is a header with ``token`` and ``punctuation`` columns."""
    first = head.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    cols = first.split("|")
    return len(cols) > 1 and cols[0] == "token" and "punctuation" in cols
