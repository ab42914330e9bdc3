"""Live punctuation: each word's mark decided, once and for good, while words still arrive
(``punct restore --live``).

A ``LiveStream`` holds the words of one recording as they come. A word's mark is decided when
``lookahead`` speech words have followed it, or when its right edge is known: a pause of more
than ``flush_after`` seconds follows it in the word times, the caller says that one does
(``pause``: no input for that long), or the input ends
(``close``). It is decided by one window of the one inference path (Restorer.restore) over the
words from the start of the open sentence, or of the ``context`` sentences decided before it
(windows start at sentence ends, as offline windows do: punct.engine.infer), to exactly the
``lookahead``-th word after it (or the edge), cut on the left to the model's window of tokens.
Two sentences of left context (the default) cost about twice the compute of none and bring a
lookahead of 10 words from 3 points below offline F1 to within 1-2 (RESULTS.md, "Live
punctuation"). So the mark is the one a direct
call on those words gives, whether the words came one at a time or many at once, and it never
changes.

Pauses, for a model that reads them, are what is known when the mark is decided: every word of
the window has the pause before it and after it, but the window's last word, whose pause after
is flagged unknown (the model falls back to the words there; at lookahead 0 that is the decided
word itself). At a pause in the word times the next word's start is known; after ``pause`` the
pause is taken to be ``flush_after`` seconds; at the end the recording ends.

Case: the decided word is spelled as its window spells it (a case head's true case, or sentence
case with ``capitalize``); the window begins a sentence, as the word after a sentence end does.

``decide`` runs the windows of many streams in one batch (a benchmark over many recordings).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from punct.text.labels import O, SENTENCE_END
from punct.text.words import Utterance, Word, is_nonspeech

if TYPE_CHECKING:
    from punct.engine.restorer import Restorer

#: how a window ends on the right (module docstring): more words follow it, a pause seen in the
#: times (the next word known), a pause the caller reported, the end of the input
OPEN, GAP, PAUSE, END = "open", "gap", "pause", "end"

#: words of right context before a mark is final, by default: the smallest lookahead measured
#: within 2 points of offline F1 on both the Earnings-21 Kaldi CTMs (-0.6) and test2011 (-1.1)
#: with the default model (RESULTS.md, "Live punctuation"; benchmarks/bench_live.py)
DEFAULT_LOOKAHEAD = 5
#: seconds of pause (or of no input) after which the words so far are decided: over twice
#: the median pause before a period in Earnings-22 (0.45 s, ../shared/data/README.md)
DEFAULT_FLUSH_AFTER = 1.0
#: sentences of left context: 0 costs half the compute and 1-3 points of F1
DEFAULT_CONTEXT = 2


@dataclass
class Window:
    """The words one model call reads for a stream, from stream index ``first`` on (as copies
    in ``utt``), how it ends (``tail``), and the stream indices of the words it decides."""
    stream: "LiveStream"
    first: int
    tail: str
    decide: list[int]
    utt: Utterance
    pauses: dict | None


class LiveStream:
    """One recording's words as they arrive, and their marks as they are decided (module
    docstring). ``push`` words, ``pause`` or ``close`` it; ``ready`` gives the decided words
    (copies, in order, each with its label and spelling) through ``step`` or ``decide``."""

    def __init__(self, restorer: "Restorer", lookahead: int = DEFAULT_LOOKAHEAD,
                 flush_after: float | None = DEFAULT_FLUSH_AFTER, case: bool = True, capitalize: bool = False,
                 end_sentence: bool = True, name: str = "live", context: int = DEFAULT_CONTEXT):
        if lookahead < 0:
            raise ValueError(f"lookahead must be at least 0, got {lookahead}")
        if flush_after is not None and not flush_after > 0:
            raise ValueError(f"flush_after must be positive (or None), got {flush_after}")
        self.restorer = restorer
        self.lookahead = int(lookahead)
        self.flush_after = flush_after
        self.case = bool(case and restorer.has_case)
        self.capitalize = bool(capitalize and not self.case)
        self.end_sentence = bool(end_sentence)  # the last word of the input takes a period or question mark
        self.name = name
        self.words: list[Word] = []  # from index ``base`` of the stream on
        self.base = 0  # stream index of self.words[0]
        if context < 0:
            raise ValueError(f"context must be at least 0 sentences, got {context}")
        self.context = int(context)  # decided sentences a window reads before the open one (module docstring)
        #: stream indices of the first words of the last ``context`` sentences and of the open one (last)
        self._starts: list[int] = [0]
        self.next = 0  # stream index of the next word to decide
        self.edges: list[tuple[int, str]] = []  # (stream index a right edge is before, its kind), in order
        self.arrived = 0  # words pushed
        self.closed = False
        self.ready: list[Word] = []  # decided, not yet taken
        #: per decided word: (words pushed when it was decided) - (its position + 1)
        self.delays: list[int] = []
        self._speech = 0  # speech words pushed
        self._speech_at: list[int] = []  # per word of self.words: speech words pushed up to and including it
        self._window_tokens = max(2, int(restorer.window))

    # ------------------------------------------------------------------ input
    def push(self, words: Sequence[Word]) -> None:
        """Append words (the recording's next ones, in order)."""
        if self.closed:
            raise ValueError("the stream is closed")
        for w in words:
            prev = self._last_speech()
            if (self.flush_after is not None and prev is not None and not is_nonspeech(w) and w.start is not None
                    and prev.end is not None and w.start - prev.end > self.flush_after):
                self._edge(self.arrived, GAP)
            self.words.append(w)
            self.arrived += 1
            if not is_nonspeech(w):
                self._speech += 1
            self._speech_at.append(self._speech)

    def pause(self) -> None:
        """A pause follows the newest word (no input for ``flush_after`` seconds): the words so
        far are decided with what has come."""
        if self.pending:
            self._edge(self.arrived, PAUSE)

    def close(self) -> None:
        """The input ends: every word is decided, the last one ends a sentence."""
        if not self.closed:
            self._edge(self.arrived, END)
            self.closed = True

    def _edge(self, at: int, kind: str) -> None:
        if self.edges and self.edges[-1][0] == at:
            if kind == END:  # the end of the input outranks a pause at the same place
                self.edges[-1] = (at, END)
            return
        self.edges.append((at, kind))

    def _last_speech(self) -> Word | None:
        for w in reversed(self.words):
            if not is_nonspeech(w):
                return w
        return None

    def _word(self, i: int) -> Word:
        return self.words[i - self.base]

    # ------------------------------------------------------------------ windows
    def want(self) -> Window | None:
        """The window that decides the next word, or None until one can be decided (words
        that are not speech are decided at once: no mark)."""
        while self.next < self.arrived:
            i = self.next
            if is_nonspeech(self._word(i)):
                self._settle_one(i, O, None)
                continue
            edge = next(((a, k) for a, k in self.edges if a > i), None)
            # the lookahead-th speech word after i, if it has come before the edge
            want = self._speech_at[i - self.base] + self.lookahead
            last = None
            if self._speech >= want:
                last = self._index_of_speech(want, i)
            if last is not None and (edge is None or last < edge[0]):
                return self._window(i, last, OPEN, [i])
            if edge is None:
                return None
            last = edge[0] - 1
            return self._window(i, last, edge[1], list(range(i, last + 1)))
        return None

    def _index_of_speech(self, count: int, lo: int) -> int:
        """The stream index of the word after which ``count`` speech words have been pushed."""
        import bisect

        k = bisect.bisect_left(self._speech_at, count, lo - self.base)
        return k + self.base

    def _window(self, i: int, last: int, tail: str, decide: list[int]) -> Window:
        first = max(self._starts[0], self.base)
        tokens = 0
        for j in range(last, first - 1, -1):  # the left end: at most the model's window of tokens
            w = self._word(j)
            if not is_nonspeech(w):
                tokens += len(self.restorer.model_tokens(w))
            if tokens > self._window_tokens and j < i:
                first = j + 1
                break
        words = [dataclasses.replace(self._word(j), label=O) for j in range(first, last + 1)]
        utt = Utterance(id=f"{self.name}:{first}", words=words)
        pauses = self._pauses(first, last, tail, words) if self.restorer.inputs is not None else None
        return Window(self, first, tail, decide, utt, pauses)

    def _pauses(self, first: int, last: int, tail: str, words: list[Word]) -> dict:
        """{id(copy): PAUSE_FEATURES row} of the window's words, as far as they are known."""
        from punct.prosody.pause import PAUSE_CAP, PAUSE_FEATURES, pause_features

        ctx = [self._word(j) for j in range(max(first - 1, self.base), last + 1)]
        if tail == GAP and last + 1 < self.base + len(self.words):
            ctx.append(self._word(last + 1))
        ctx = [w for w in ctx if not is_nonspeech(w)]
        feats = pause_features([Utterance(id="w", words=ctx)])["w"]
        by_word = {id(w): feats[k] for k, w in enumerate(ctx)}
        col = {n: c for c, n in enumerate(PAUSE_FEATURES)}
        out = {id(c): by_word[id(self._word(j))].copy()
               for j, c in zip(range(first, last + 1), words) if not is_nonspeech(c)}
        copies = [c for c in words if not is_nonspeech(c)]
        if copies and tail in (OPEN, PAUSE):
            row = out[id(copies[-1])]
            timed = copies[-1].end is not None and copies[-1].start is not None
            for name in ("edge_after", "segment_after", "speaker_change_after"):
                row[col[name]] = 0.0
            if tail == OPEN or not timed:
                row[col["pause_after"]] = 0.0
                row[col["pause_after_unknown"]] = 1.0
            else:
                row[col["pause_after"]] = min(PAUSE_CAP, self.flush_after or PAUSE_CAP)
                row[col["pause_after_unknown"]] = 0.0
        return out

    # ------------------------------------------------------------------ decisions
    def settle(self, window: Window, out: Utterance) -> None:
        """Take the decisions of ``window`` from its restored utterance ``out``: its words in
        order, up to the first sentence end (after it the open sentence starts anew, so the
        next word needs another window)."""
        by_index = {window.first + k: w for k, w in enumerate(out.words)}
        for i in window.decide:
            if i != self.next:
                break
            w = by_index[i]
            self._settle_one(i, w.label, w)
            if w.label in SENTENCE_END:
                break

    def _settle_one(self, i: int, label: str, spelled: Word | None) -> None:
        """Word ``i`` decided: ``label``, spelled as ``spelled`` (its window's copy; None: as input)."""
        w = dataclasses.replace(self._word(i), label=label)
        if spelled is not None:
            w.written = spelled.written
        self.ready.append(w)
        self.delays.append(self.arrived - (i + 1))
        self.next = i + 1
        if label in SENTENCE_END:
            self._starts = (self._starts + [i + 1])[-(self.context + 1):]
        self.edges = [(a, k) for a, k in self.edges if a > self.next]
        self._trim()

    def _trim(self) -> None:
        """Forget the words no window reads again: those before the open sentence but the last
        (its end is the first word's pause before), and any beyond a few windows back (a
        sentence that never ends is cut to the model's window anyway)."""
        keep = max(self._starts[0] - 1, self.next - 4 * self._window_tokens, self.base)
        drop = keep - self.base
        if drop > 1024:
            del self.words[:drop]
            del self._speech_at[:drop]
            self.base = keep

    def step(self) -> list[Word]:
        """Decide all that can be decided now, one window at a time; the decided words."""
        decide(self.restorer, [self])
        return self.take()

    def take(self) -> list[Word]:
        out, self.ready = self.ready, []
        return out

    @property
    def pending(self) -> bool:
        """Some word has come and is not decided yet."""
        return self.next < self.arrived

    @property
    def done(self) -> bool:
        """Closed and every word decided."""
        return self.closed and not self.pending


def decide(restorer: "Restorer", streams: Sequence[LiveStream]) -> None:
    """Decide every word of ``streams`` that can be decided now, the windows of all streams
    run together (one Restorer.restore a round, batched by the kernel)."""
    from punct.text.casing import capitalize

    while True:
        wins = [w for w in (s.want() for s in streams) if w is not None]
        if not wins:
            return
        for ending in (False, True):  # the windows that end the input, their last word a sentence end
            for group in _batches([w for w in wins if (w.tail == END and w.stream.end_sentence) == ending]):
                pauses = None
                if restorer.inputs is not None:
                    pauses = {k: row for w in group for k, row in (w.pauses or {}).items()}
                outs = restorer.restore([w.utt for w in group], copy=False, end_sentence=ending,
                                        case=group[0].stream.case, pauses=pauses, quiet=True)
                for w, out in zip(group, outs):
                    if w.stream.capitalize:
                        capitalize([out.words])
                    w.stream.settle(w, out)


def _batches(wins: list[Window]) -> list[list[Window]]:
    """Windows of about one length together: a batch is padded to its longest window, and the
    windows of a live step range from a few words to a few sentences."""
    wins = sorted(wins, key=lambda w: len(w.utt.words))
    out: list[list[Window]] = []
    for w in wins:
        if out and len(w.utt.words) <= 1.25 * len(out[-1][0].utt.words) + 4:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def direct_labels(restorer: "Restorer", words: Sequence[Word], lookahead: int, case: bool = False) -> list[Word]:
    """What ``LiveStream`` must give for untimed speech ``words`` fed in any way, made from direct
    calls: word i restored by ``Restorer.restore`` on the words from the start of its sentence
    (as decided so far) to the ``lookahead``-th word after it, or to the last word, ending the
    input, when fewer follow. The tests compare the live filter with it."""
    out_words: list[Word] = []
    start, n = 0, len(words)
    for i in range(n):
        end = i + lookahead > n - 1
        last = n - 1 if end else i + lookahead
        utt = Utterance(id="direct", words=[dataclasses.replace(w, label=O) for w in words[start:last + 1]])
        (out,) = restorer.restore([utt], end_sentence=end, case=case, quiet=True)
        w = out.words[i - start]
        out_words.append(w)
        if w.label in SENTENCE_END:
            start = i + 1
    return out_words
