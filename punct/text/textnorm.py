"""Tokenize written English the way the IWSLT2011 test set is tokenized.

The rules were read off ``iwslt2011/test2011`` and ``dev2012`` (see
recipes/iwslt2011/README.md for the evidence):

- lower case; ``'s 're 'm 'll n't`` are tokens of their own (``we 're``,
  ``do n't``, ``ca n't``, ``wo n't``, ``ai n't``), ``'ve`` and ``'d`` stay
  attached (``we've``, ``i'd``);
- hyphenated words, numbers (``10,000``, ``2.5``, ``9/11``, ``2:15``, ``$100``,
  ``1990s``, ``'90s``) and ``o'clock`` stay whole; ``50%`` becomes ``50 percent``;
- ``Mr. Mrs. Ms. Dr.`` keep their dot (``mr.``); any other abbreviation loses its
  inner dots and its final dot is a mark, as in the test set (``U.S.`` ->
  ``us`` + PERIOD, ``I.Q.`` -> ``iq`` + PERIOD, ``a.m.`` -> ``am`` + PERIOD);
- marks become the label of the word before them (punct.text.labels.map_mark:
  ``! ;`` -> PERIOD, ``:`` and free-standing ``-`` ``--`` -> COMMA); quotes,
  brackets and other symbols are removed; when several marks follow a word the
  stronger wins; a mark before the first word is dropped;
- a free-standing ``&`` is the word ``and``; ``&`` inside a word stays (``r&d``);
- curly apostrophes are made straight; music notes are removed.
"""
from __future__ import annotations

import html
import re
from typing import Mapping

from punct.text.labels import map_mark, stronger
from punct.text.words import Word

#: Abbreviations that keep their dot as part of the word (the test set has
#: ``mr.`` and ``dr.`` with label O; ``mrs.`` and ``ms.`` follow by analogy).
KEEP_DOT = frozenset({"mr.", "mrs.", "ms.", "dr."})

#: Clitics split off as tokens of their own (``n't`` is handled separately).
_CLITICS = ("'s", "'re", "'m", "'ll")
#: Every clitic token of IWSLT-style text (``we 're``, ``do n't``, ``i 've``): matched as one
#: word with the word before it (punct.data.transfer), joined to it for a model of ASR spelling
#: (punct.engine.restorer) and in the Earnings preparation.
CLITICS = frozenset({"'s", "'re", "'m", "'ll", "'ve", "'d", "n't"})

#: Stage notes: a parenthesised span of at most this many words is dropped
#: (``(Laughter)``, ``(Applause)``, ``(Music: "Mary Had a Little Lamb")``);
#: a longer one is speech in parentheses and keeps its words.
MAX_STAGE_NOTE_WORDS = 6
#: Square-bracketed spans dropped as notes (others are the transcriber's
#: insertions, like ``[the]``, and keep their words).
BRACKET_NOTES = frozenset({"unclear", "inaudible", "music", "video", "bleep", "laughter", "applause", "audio"})

_PAREN_RE = re.compile(r"\(([^()]*)\)")
_BRACKET_RE = re.compile(r"\[([^\[\]]*)\]")
_DASH_RE = re.compile(r"\s*(?:-{2,}|[\u2012\u2013\u2014\u2015\u2212])\s*")
_ELLIPSIS_RE = re.compile(r"\s*(?:\.{3,}|\u2026)")
# Characters removed outright (quotes, brackets, music notes, other symbols).
_REMOVE_RE = re.compile(r"[\"\u201c\u201d\u201e\u00ab\u00bb()\[\]{}<>\u266a\u266b\u266c\u2669*_=|~^`\\]")
_APOS_RE = re.compile(r"[\u2018\u2019\u02bc\u0060\u00b4]")
_SPACE_RE = re.compile(r"\s+")
# A token made of marks only.
_ALNUM_RE = re.compile(r"[^\W_]")
# Splits the inside of a chunk on marks that are not part of a number.
_INNER_SPLIT_RE = re.compile(r"(,(?!\d{3}(?!\d))|(?<!\d):|:(?!\d)|[?!;]|\.(?=[A-Z][a-z]))")
_ABBREV_RE = re.compile(r"^(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}\.?$")


def straight_apostrophes(text: str) -> str:
    """``text`` with the curly and other apostrophes typists and some recognizers write
    (``don\u2019t``, ``don\u02bct``, ``don`t``) made the ASCII ``'`` the corpora are normalized to."""
    return _APOS_RE.sub("'", text)


def unescape_html(text: str) -> str:
    """Replace HTML entities (``&quot;`` ``&#39;`` ``&amp;``), also double-escaped ones."""
    for _ in range(3):
        if "&" not in text:
            break
        new = html.unescape(text)
        if new == text:
            break
        text = new
    return text


def _paren_note(m: re.Match) -> str:
    inner = m.group(1)
    return " " if len(inner.split()) <= MAX_STAGE_NOTE_WORDS else " " + inner + " "


def _bracket_note(m: re.Match) -> str:
    inner = m.group(1)
    return " " if inner.strip().lower() in BRACKET_NOTES else " " + inner + " "


def strip_stage_notes(text: str) -> str:
    """Drop stage notes: a parenthesised span of at most MAX_STAGE_NOTE_WORDS words.

    ``(Laughter)`` ``(Applause ends)`` ``(Audience: Yes.)`` go; a longer
    parenthesised span is kept without its parentheses. Square brackets named
    in BRACKET_NOTES (``[unclear]``) go; others (``[the]``) keep their words.
    """
    if "(" in text:
        prev = None
        while prev != text:  # innermost first, so nested notes are handled
            prev = text
            text = _PAREN_RE.sub(_paren_note, text)
    if "[" in text:
        text = _BRACKET_RE.sub(_bracket_note, text)
    return text


def _split_clitics(word: str) -> list[str]:
    """``don't`` -> ``do n't``, ``We're`` -> ``We 're``; ``we've`` ``i'd`` stay whole
    (matched in lower case, the spelling kept)."""
    if "'" not in word:
        return [word]
    low = word.lower()
    if len(low) != len(word):  # a letter whose lower case is longer: split the lower-case form
        word = low
    if low.endswith("n't") and len(word) > 3:
        return [word[:-3], word[-3:]]
    for c in _CLITICS:
        if low.endswith(c) and len(word) > len(c):
            return _split_clitics(word[: -len(c)]) + [word[-len(c):]]
    return [word]


def _normalize_body(body: str) -> list[str]:
    """Split one word-like string's clitics and remove its abbreviation dots (spelling kept)."""
    parts = re.split(r"([-/])", body)
    for i in range(0, len(parts), 2):
        p = parts[i]
        if "." in p and _ABBREV_RE.match(p) and p.lower() not in KEEP_DOT:
            parts[i] = p.replace(".", "")
    word = "".join(parts)
    if word in ("&",):
        return ["and"]
    return [w for w in _split_clitics(word) if w]


def _chunk_tokens(chunk: str, out: list[tuple[bool, str]]) -> None:
    """Append (is_word, text) items for one white-space separated chunk."""
    if not _ALNUM_RE.search(chunk):
        if chunk == "&":
            out.append((True, "and"))
        else:
            out.append((False, chunk))
        return
    # Leading marks: everything before the first letter/digit, except $ @ and
    # an apostrophe or dot directly before a digit ('90s, .5).
    i = 0
    n = len(chunk)
    while i < n and not _ALNUM_RE.match(chunk[i]):
        c = chunk[i]
        if c in "$@":
            break
        if c in "'." and i + 1 < n and chunk[i + 1].isdigit():
            break
        i += 1
    if i:
        out.append((False, chunk[:i]))
    # Trailing marks: everything after the last letter/digit; a kept-dot
    # abbreviation (Mr.) keeps its dot; '%' becomes the word 'percent'.
    j = n
    while j > i and not _ALNUM_RE.match(chunk[j - 1]):
        j -= 1
    body, tail = chunk[i:j], chunk[j:]
    percent = False
    if tail.startswith(".") and (body + ".").lower() in KEEP_DOT:
        body, tail = body + ".", tail[1:]
    if tail.startswith("%"):
        percent, tail = True, tail[1:]
    # Marks inside the body ("end,the", "yes?no") split it.
    pieces = _INNER_SPLIT_RE.split(body) if any(c in body for c in ",:?!;.") else [body]
    for k, piece in enumerate(pieces):
        if k % 2 == 1:
            out.append((False, piece))
            continue
        piece = re.sub(r"^'+(?!\d)|'+$", "", piece)
        if not piece or not _ALNUM_RE.search(piece):
            if piece:
                out.append((False, piece))
            continue
        if "%" in piece:  # 50%-plus and the like: keep the number, say percent
            left, _, right = piece.partition("%")
            for w in _normalize_body(left):
                out.append((True, w))
            out.append((True, "percent"))
            if right.strip("-'"):
                for w in _normalize_body(right.strip("-'")):
                    out.append((True, w))
            continue
        for w in _normalize_body(piece):
            out.append((True, w))
    if percent:
        out.append((True, "percent"))
    if tail:
        out.append((False, tail))


def _prepare(text: str) -> str:
    text = straight_apostrophes(text)
    text = _DASH_RE.sub(" -- ", text)
    text = _ELLIPSIS_RE.sub(" ... ", text)
    text = _REMOVE_RE.sub(" ", text)
    return text


def tokenize_punctuated(text: str, mark_map: Mapping[str, str] | None = None, keep_case: bool = False) -> list[Word]:
    """Tokenize punctuated written text into words, each labelled with the mark after it.

    ``text`` should already be HTML-unescaped and free of stage notes (see
    ``normalize_written``). Returns Words (punct.text.words.Word) whose ``text`` is lower
    case; with ``keep_case`` a word spelled otherwise keeps its spelling in ``written``.
    """
    items: list[tuple[bool, str]] = []
    for chunk in _prepare(text).split():
        _chunk_tokens(chunk, items)
    words: list[Word] = []
    for is_word, tok in items:
        if is_word:
            low = tok.lower()
            words.append(Word(text=low, written=tok if keep_case and tok != low else None))
        elif words:
            lab = map_mark(tok, mark_map)
            words[-1].label = stronger(words[-1].label, lab)
    return words


def normalize_written(text: str, mark_map: Mapping[str, str] | None = None, keep_case: bool = False) -> list[Word]:
    """Unescape HTML, drop stage notes, and tokenize (``tokenize_punctuated``)."""
    return tokenize_punctuated(strip_stage_notes(unescape_html(text)), mark_map, keep_case)
