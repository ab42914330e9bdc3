"""Words as ASR formats write them, and the sentences and subtitle cues built from them.

Shared by the CTM, TextGrid, JSON and subtitle readers and writers:

- ``split_token``: a written token (``Hello,`` ``GOOD`` ``U.S.`` ``<unk>``) ->
  its word and the label of the marks attached to it;
- ``word_from_token``: the same as a punct.words.Word, lower-cased ``text``
  for models and scorers, the input's spelling in ``written``;
- ``punctuated``: a word as written back (spelling + mark: ``Hello,``);
- ``split_sentences``: words -> sentences (after PERIOD/QUESTION, and at a
  change of speaker);
- ``make_cues``: sentences -> subtitle cues within CueLimits.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from punct.labels import O, SENTENCE_END, COMMA, map_mark, mark_of
from punct.words import Utterance, Word

#: Marks that may follow a word and are read as its label (punct.labels.map_mark).
#: A trailing hyphen is not among them: in ASR output it marks a cut-off word (``th-``).
TRAILING_MARKS = ",.?!;:\u2026"
#: Closing quotes and brackets stripped after a word (not the apostrophe: ``students'``).
CLOSERS = "\"\u201d\u00bb)]}"
#: Opening quotes, brackets and inverted marks stripped before a word.
OPENERS = "\"\u201c\u00ab([{\u00bf\u00a1"
#: Abbreviations whose final dot is part of the word, not a PERIOD (``U.S.`` ``a.m.``).
_ABBREV_RE = re.compile(r"^(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}\.$")
_KEEP_DOT = frozenset({"mr.", "mrs.", "ms.", "dr.", "st.", "jr.", "sr.", "vs."})
_DASHES = frozenset("-\u2013\u2014")


def split_token(token: str) -> tuple[str, str]:
    """``(word, label)`` of a written token: ``"Hello,"`` -> ``("Hello", "COMMA")``.

    Leading quotes/brackets and trailing marks, quotes and brackets are removed;
    the trailing marks give the label (``?!`` -> QUESTION). Tokens in angle or
    square brackets (``<unk>`` ``[noise]``) are words as they are, marks after
    them their label (``[noise].`` -> ``("[noise]", "PERIOD")``). ``word`` is
    empty when the token holds marks only. An abbreviation keeps its final dot
    (``U.S.`` -> ``("U.S.", "O")``), so a PERIOD after it cannot be told apart.
    """
    tok = token.strip()
    if len(tok) >= 2 and ((tok[0] == "<" and tok[-1] == ">") or (tok[0] == "[" and tok[-1] == "]")):
        return tok, O
    if tok[:1] in ("<", "["):  # a bracketed token with marks after it (``[noise].``): its marks are its label
        close = tok.find(">" if tok[0] == "<" else "]")
        if close >= 2 and tok[close + 1:] and all(c in TRAILING_MARKS for c in tok[close + 1:]):
            return tok[: close + 1], map_mark(tok[close + 1:])
    i, j = 0, len(tok)
    while i < j and tok[i] in OPENERS:
        i += 1
    while j > i and (tok[j - 1] in TRAILING_MARKS or tok[j - 1] in CLOSERS):
        j -= 1
    core, tail = tok[i:j], tok[j:]
    if core and set(core) <= _DASHES:  # a free-standing dash is a mark (COMMA), not a word
        return "", map_mark(core)
    if tail.startswith(".") and core and (_ABBREV_RE.match(core + ".") or (core + ".").lower() in _KEEP_DOT):
        core, tail = core + ".", tail[1:]
    marks = "".join(c for c in tail if c in TRAILING_MARKS)
    return core, map_mark(marks) if marks else O


def make_word(core: str, label: str = O, **fields) -> Word:
    """A Word of spelling ``core``: ``text`` lower-cased, ``written`` the spelling when it differs."""
    text = core.lower()
    return Word(text=text, label=label, written=core if core != text else None, **fields)


def word_from_token(token: str, **fields) -> Word | None:
    """``split_token`` as a Word (times etc. from ``fields``); None for a token of marks only."""
    core, label = split_token(token)
    if not core:
        return None
    return make_word(core, label, **fields)


def attach_marks_only(words: list[Word], token: str) -> None:
    """A token of marks only (``,`` ``...``) makes the label of the word before it stronger."""
    from punct.labels import stronger

    _, label = split_token(token)
    if words and label != O:
        words[-1].label = stronger(words[-1].label, label)


def spelling(w: Word) -> str:
    """The word as the input wrote it."""
    return w.written if w.written is not None else w.text


def punctuated(w: Word) -> str:
    """The word as written back: its spelling and the mark of its label (``Hello,``).

    An abbreviation ending in a dot (``U.S.``) does not get a second dot.
    """
    s = spelling(w)
    m = mark_of(w.label)
    if m == "." and s.endswith("."):
        return s
    return s + m


def punctuated_line(words: Sequence[Word]) -> str:
    """WORDS written with their marks, space-separated, on one line."""
    return " ".join(punctuated(w) for w in words)


def speaker_of(w: Word, utt: Utterance | None = None) -> str | None:
    """The word's speaker, else its utterance's."""
    if w.speaker is not None:
        return w.speaker
    return utt.speaker if utt is not None else None


def split_sentences(words: Sequence[Word], utt: Utterance | None = None) -> list[list[Word]]:
    """Sentences of ``words``: a sentence ends after a PERIOD or QUESTION label and
    before a change of speaker. The last sentence may lack a final mark."""
    out: list[list[Word]] = []
    cur: list[Word] = []
    prev_spk = None
    for w in words:
        spk = speaker_of(w, utt)
        if cur and spk != prev_spk:
            out.append(cur)
            cur = []
        cur.append(w)
        prev_spk = spk
        if w.label in SENTENCE_END:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def estimated_times(words: Sequence[Word]) -> list[tuple[float, float]] | None:
    """(start, end) of every word, for display: the times a word has, the missing ones
    spread evenly between the nearest known times around them (a subtitle cue that
    gives only its first start and last end spreads its words over the cue).
    None when no word has any time."""
    slots: list[float | None] = []
    for w in words:
        slots.append(w.start)
        slots.append(w.end)
    known = [i for i, x in enumerate(slots) if x is not None]
    if not known:
        return None
    first, last = known[0], known[-1]
    for i in range(first):
        slots[i] = slots[first]
    for i in range(last + 1, len(slots)):
        slots[i] = slots[last]
    for a, b in zip(known, known[1:]):
        if b - a > 1:
            lo, hi = slots[a], slots[b]
            for i in range(a + 1, b):
                slots[i] = lo + (hi - lo) * (i - a) / (b - a)
    return [(slots[2 * i], max(slots[2 * i], slots[2 * i + 1])) for i in range(len(words))]


@dataclass(frozen=True)
class CueLimits:
    """Limits of one subtitle cue. The defaults follow Netflix's English Timed Text
    Style Guide (at most 42 characters per line, 2 lines, 7 seconds per event)."""

    #: characters per line; a cue's text is wrapped into lines of at most this many
    max_line_chars: int = 42
    #: lines per cue; a sentence longer than max_line_chars * max_lines is split
    max_lines: int = 2
    #: seconds from a cue's first word start to its last word end
    max_seconds: float = 7.0
    #: a silence longer than this inside a sentence always starts a new cue
    max_gap: float = 2.0


@dataclass
class Cue:
    """One subtitle: its words (with labels), time span, speaker and wrapped lines."""

    start: float
    end: float
    words: list[Word]
    speaker: str | None
    lines: list[str]


def wrap_lines(tokens: Sequence[str], max_chars: int, max_lines: int) -> list[str]:
    """Break ``tokens`` into at most ``max_lines`` lines of similar length (a line is
    longer than ``max_chars`` only when a single token is)."""
    text = " ".join(tokens)
    if len(text) <= max_chars or len(tokens) < 2 or max_lines < 2:
        return [text]
    lines: list[str] = []
    rest = list(tokens)
    while rest:
        left = max_lines - len(lines)
        total = len(" ".join(rest))
        if left <= 1 or total <= max_chars:
            lines.append(" ".join(rest))
            break
        target = total / left
        best_k, best_cost = 1, None
        for k in range(1, len(rest)):
            length = len(" ".join(rest[:k]))
            over = max(0, length - max_chars) * 100
            cost = over + abs(length - target)
            if best_cost is None or cost < best_cost:
                best_k, best_cost = k, cost
        lines.append(" ".join(rest[:best_k]))
        rest = rest[best_k:]
    return lines


def _fits(words: Sequence[Word], times: Sequence[tuple[float, float]], limits: CueLimits) -> bool:
    chars = len(punctuated_line(words))
    secs = times[-1][1] - times[0][0]
    return chars <= limits.max_line_chars * limits.max_lines and secs <= limits.max_seconds


def _split_points(words: Sequence[Word], times: Sequence[tuple[float, float]], limits: CueLimits) -> list[list[int]]:
    """Index ranges of the cues of one sentence (recursive best split)."""
    n = len(words)
    # forced splits at long silences
    pieces: list[tuple[int, int]] = []
    a = 0
    for k in range(n - 1):
        if times[k + 1][0] - times[k][1] > limits.max_gap:
            pieces.append((a, k + 1))
            a = k + 1
    pieces.append((a, n))
    out: list[list[int]] = []

    def rec(lo: int, hi: int) -> None:
        if hi - lo <= 1 or _fits(words[lo:hi], times[lo:hi], limits):
            out.append(list(range(lo, hi)))
            return
        lens = [len(punctuated(w)) + 1 for w in words[lo:hi]]
        total = sum(lens)
        best, best_cost = lo + 1, None
        acc = 0
        for k in range(lo, hi - 1):  # split after word k
            acc += lens[k - lo]
            balance = abs(2 * acc - total) / total  # 0 = halves of equal length
            comma = 0.5 if words[k].label == COMMA else 0.0
            pause = min(max(times[k + 1][0] - times[k][1], 0.0), 1.0) * 0.3
            cost = balance - comma - pause
            if best_cost is None or cost < best_cost:
                best, best_cost = k + 1, cost
        rec(lo, best)
        rec(best, hi)

    for lo, hi in pieces:
        rec(lo, hi)
    return out


def make_cues(utts: Sequence[Utterance], limits: CueLimits = CueLimits()) -> list[Cue]:
    """Subtitle cues of the utterances, in order of start time: one per sentence, a
    sentence that breaks ``limits`` split at a comma, a pause or its middle (in that
    order of preference). Words without times get times spread between timed
    neighbours; an utterance with no timed word raises ValueError."""
    cues: list[Cue] = []
    for u in utts:
        if not u.words:
            continue
        times = estimated_times(u.words)
        if times is None:
            raise ValueError(f"utterance {u.id!r} has no word times")
        index = {id(w): i for i, w in enumerate(u.words)}
        for sent in split_sentences(u.words, u):
            s0 = index[id(sent[0])]
            st = times[s0 : s0 + len(sent)]
            for rng in _split_points(sent, st, limits):
                ws = [sent[i] for i in rng]
                start, end = st[rng[0]][0], max(t[1] for t in (st[i] for i in rng))
                lines = wrap_lines([punctuated(w) for w in ws], limits.max_line_chars, limits.max_lines)
                cues.append(Cue(start=start, end=max(end, start), words=ws, speaker=speaker_of(ws[0], u), lines=lines))
    cues.sort(key=lambda c: c.start)
    return cues
