"""Words as ASR formats write them, and the sentences and subtitle cues built from them.

Shared by the CTM, TextGrid, JSON and subtitle readers and writers:

- ``split_token``: a written token (``Hello,`` ``GOOD`` ``U.S.`` ``<unk>``) ->
  its word and the label of the marks attached to it;
- ``word_from_token``: the same as a punct.text.words.Word, lower-cased ``text``
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

from punct.text.labels import O, SENTENCE_END, map_mark, mark_of
from punct.text.words import Utterance, Word

#: Marks that may follow a word and are read as its label (punct.text.labels.map_mark).
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
    from punct.text.labels import stronger

    _, label = split_token(token)
    if words and label != O:
        words[-1].label = stronger(words[-1].label, label)


def warn_marks_only(path, lines: list[int]) -> None:
    """Warn once that the text lines ``lines`` of ``path`` hold marks but no word: their
    marks are dropped or join the word before as one label (a line of ``. . . ?``)."""
    if lines:
        import logging

        logging.getLogger("punct.io").warning(
            "%s: %d line(s) hold only punctuation, no word (first: line %d); their marks are dropped or joined "
            "to the word before as one mark", path, len(lines), lines[0])


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
    #: seconds a cue stays at least, where the next cue leaves room (Netflix: 5/6 s, 20 frames):
    #: a one-word cue ("yeah.") spoken in 0.13 s cannot be read
    min_seconds: float = 5 / 6


@dataclass
class Cue:
    """One subtitle: its words (with labels), time span, speaker and wrapped lines."""

    start: float
    end: float
    words: list[Word]
    speaker: str | None
    lines: list[str]


#: Words a line or cue should not end with (an article, preposition, conjunction, possessive or
#: auxiliary left hanging): subtitle style guides (Netflix's, the BBC's) ask for line breaks at
#: phrase boundaries, and a break after one of these splits a phrase.
_NO_BREAK_AFTER = frozenset(
    "a an the of to in on at by for with from into onto about as and or but nor than that if my our your his her its "
    "their this these those is are was were be been will would shall should can could may might must do does did "
    "has have had not very i we you they he she it's i'm we're we've we'll i'll you're they're".split())
#: Words that begin a clause or phrase (conjunctions, relative words, prepositions): a break
#: before one of them is a little better.
_BREAK_BEFORE = frozenset("and but or so because which who whom whose when where while although though then if "
                          "that since unless until on in at for with from of by about into during after before "
                          "without".split())


def break_costs(words: Sequence[Word], times: Sequence[tuple[float, float]] | None = None) -> list[float]:
    """How bad a line or cue break after each word is (lower is better): a sentence end or a
    mark is a good place, a pause helps, a break after a word of ``_NO_BREAK_AFTER`` or
    before a word other than one of ``_BREAK_BEFORE`` splits a phrase. The last entry is 0."""
    out = []
    for k, w in enumerate(words):
        if k == len(words) - 1:
            out.append(0.0)
            continue
        if w.label in SENTENCE_END:
            cost = -1.0
        elif w.label != O:
            cost = -0.6
        else:
            cost = 1.0 if spelling(w).lower() in _NO_BREAK_AFTER else 0.0
            if spelling(words[k + 1]).lower() in _BREAK_BEFORE:
                cost -= 0.3
        if times is not None:
            cost -= min(max(times[k + 1][0] - times[k][1], 0.0), 1.0) * 0.5
        out.append(cost)
    return out


def wrap_lines(tokens: Sequence[str], max_chars: int, max_lines: int, costs: Sequence[float] | None = None) -> list[str]:
    """Break ``tokens`` into the fewest lines of at most ``max_chars`` characters (at most
    ``max_lines``; a line is longer only when the tokens cannot fit), choosing among such
    layouts the one of balanced lines whose breaks have the lowest ``costs`` (the cost of a
    break after each token, ``break_costs``)."""
    text = " ".join(tokens)
    n = len(tokens)
    if len(text) <= max_chars or n < 2 or max_lines < 2:
        return [text]
    costs = list(costs) if costs is not None else [0.0] * n
    ends = [0]  # ends[j]: characters of tokens[:j] joined
    for k, t in enumerate(tokens):
        ends.append(ends[-1] + len(t) + (1 if k else 0))
    width = lambda i, j: ends[j] - ends[i] - (1 if i else 0)  # noqa: E731  (tokens[i:j] joined)
    best: tuple[float, list[int]] | None = None
    for m in range(2, min(max_lines, n) + 1):
        target = (len(text) - (m - 1)) / m
        # f[l][j]: (cost, breaks) of tokens[:j] in l lines
        f: list[dict[int, tuple[float, list[int]]]] = [{0: (0.0, [])}]
        for line in range(1, m + 1):
            row: dict[int, tuple[float, list[int]]] = {}
            for i, (c0, br) in f[line - 1].items():
                for j in range(i + 1, n + 1 - (m - line)):
                    if line == m and j != n:
                        continue
                    w = width(i, j)
                    c = c0 + 1000.0 * max(0, w - max_chars) + abs(w - target) / max_chars + (costs[j - 1] if j < n else 0)
                    if j not in row or c < row[j][0]:
                        row[j] = (c, br + [j])
            f.append(row)
        cand = f[m].get(n)
        if cand is not None and (best is None or cand[0] < best[0]):
            best = cand
        if best is not None and best[0] < 1000.0:
            break  # the fewest lines that fit
    assert best is not None
    cuts = [0] + best[1]
    return [" ".join(tokens[a:b]) for a, b in zip(cuts, cuts[1:])]


def _fit_lines(lengths: Sequence[int], limits: CueLimits) -> bool:
    """True if tokens of these lengths fit in ``max_lines`` lines of ``max_line_chars`` (greedy
    filling uses the fewest lines)."""
    lines, cur = 1, -1
    for n in lengths:
        if n > limits.max_line_chars:
            return False
        if cur + 1 + n <= limits.max_line_chars:
            cur += 1 + n
        else:
            lines, cur = lines + 1, n
    return lines <= limits.max_lines


def _split_points(words: Sequence[Word], times: Sequence[tuple[float, float]], limits: CueLimits) -> list[list[int]]:
    """Index ranges of the cues of one sentence: split at silences over ``max_gap``, then into
    the fewest cues that fit the limits (every line within ``max_line_chars``, at most
    ``max_lines``, at most ``max_seconds``), with the best breaks (``break_costs``) and no cue
    much shorter than a second. A single word is a cue even when it breaks a limit."""
    n = len(words)
    lens = [len(punctuated(w)) for w in words]
    costs = break_costs(words, times)
    out: list[list[int]] = []
    a = 0
    for k in range(n):
        if k == n - 1 or times[k + 1][0] - times[k][1] > limits.max_gap:
            out += _best_cues(a, k + 1, lens, times, costs, limits)
            a = k + 1
    return out


def _best_cues(lo: int, hi: int, lens: Sequence[int], times: Sequence[tuple[float, float]],
               costs: Sequence[float], limits: CueLimits) -> list[list[int]]:
    """The cues of words lo..hi-1 (see ``_split_points``): a shortest path over cue ends, each
    cue costing 1, plus its end's break cost, plus a penalty when it is shorter than 1.2 s or
    20 characters (a flash the eye cannot read), plus the square of its unused share of
    ``max_lines * max_line_chars`` (so that cues of a sentence are about as long)."""
    inf = float("inf")
    capacity = limits.max_line_chars * limits.max_lines
    g = [inf] * (hi + 1)
    back = [lo] * (hi + 1)
    g[lo] = 0.0
    for i in range(lo, hi):
        if g[i] == inf:
            continue
        line_lens: list[int] = []
        end = times[i][1]
        for j in range(i + 1, hi + 1):
            line_lens.append(lens[j - 1])
            end = max(end, times[j - 1][1])
            if j > i + 1 and (not _fit_lines(line_lens, limits) or end - times[i][0] > limits.max_seconds):
                break
            chars = sum(line_lens) + len(line_lens) - 1
            short = 0.8 * max(0.0, 1.0 - (end - times[i][0]) / 1.2) + 0.4 * max(0.0, 1.0 - chars / 20)
            empty = (1.0 - min(chars / capacity, 1.0)) ** 2  # convex: of as many cues, evenly filled ones
            c = g[i] + 1.0 + short + empty + (costs[j - 1] if j < hi else 0.0)
            if c < g[j]:
                g[j], back[j] = c, i
    cuts = [hi]
    while cuts[-1] > lo:
        cuts.append(back[cuts[-1]])
    cuts.reverse()
    return [list(range(a, b)) for a, b in zip(cuts, cuts[1:])]


def make_cues(utts: Sequence[Utterance], limits: CueLimits = CueLimits()) -> list[Cue]:
    """Subtitle cues of the utterances, in order of start time: one per sentence, a
    sentence that breaks ``limits`` split into the fewest cues that fit, at marks, pauses
    and phrase boundaries (``_split_points``), each wrapped into lines the same way; a cue
    lasts at most ``max_seconds`` and ends no later than the next cue starts, and a shorter one
    than ``min_seconds`` is held on screen that long where the next cue leaves room (not the
    last cue). Words
    without times get times spread between timed neighbours; an utterance with no timed
    word raises ValueError."""
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
            costs = break_costs(sent, st)
            for rng in _split_points(sent, st, limits):
                ws = [sent[i] for i in rng]
                start, end = min(st[i][0] for i in rng), max(st[i][1] for i in rng)  # words out of time order too
                end = min(max(end, start), start + limits.max_seconds)  # a single long word: shown max_seconds
                lines = wrap_lines([punctuated(w) for w in ws], limits.max_line_chars, limits.max_lines,
                                   [costs[i] for i in rng[:-1]] + [0.0])
                cues.append(Cue(start=start, end=end, words=ws, speaker=speaker_of(ws[0], u), lines=lines))
    cues.sort(key=lambda c: c.start)
    for c, nxt in zip(cues, cues[1:]):  # the last is left as spoken (the recording may end with it)
        fit_end(c, nxt.start, limits.min_seconds)
    return cues


def fit_end(c: Cue, next_start: float, min_seconds: float) -> None:
    """Cue ``c`` ends when the next cue begins at ``next_start`` (words whose times overlap),
    and a short cue stays up to ``min_seconds``, as far as the next one allows."""
    if c.end > next_start:
        c.end = max(next_start, c.start)
    if c.end - c.start < min_seconds:
        c.end = max(c.end, min(c.start + min_seconds, next_start))
