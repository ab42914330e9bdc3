"""What ``punct restore --live`` reads and writes: a growing input read a line at a time, and
output written as the marks are decided.

Input, told by its first line that is not blank unless ``kind`` says (``LINE_KINDS``):

``vosk``   Vosk's results, one JSON object a line (or spread over lines, as Vosk's
           ``Result()`` prints them): ``{"result": [{"word", "start", "end", "conf"}...],
           "text"}`` (timed words), ``{"text"}`` alone (words without times), ``{"alternatives":
           [...]}`` (the first), a word object ``{"word", "start", "end"}``; partial results
           (``{"partial"}``) are skipped: their words come again in the final result. The end of
           a result decides nothing by itself (a pause of unknown length); a silence in the times
           or of the input does.
``ctm``    CTM lines ``file channel start duration word [confidence]`` (punct.io.ctm), as an
           online Kaldi decoder prints them; a new file or channel is a new recording.
``words``  plain text: the words of each line, in order.

A line that does not parse gets a one-line warning naming it, and its words are kept when they
can be read (a CTM line's word without its times, the ``text`` of a broken JSON object, a line
of words): a bad line loses no words.

Output (``LiveWriter``): punctuated text (a sentence a line, each word written as soon as it
is decided), JSON lines (a word a line: its spelling, mark, times), CTM (the words as read, each
mark on a ``;; punct-mark`` line), SubRip or WebVTT cues (each written when its sentence is
decided and the next word's start says how long it may stay; punct.io.sentences.make_cues).
Every write is flushed.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import TextIO

from punct.io.sentences import CueLimits, fit_end, make_cues, punctuated, spelling, word_from_token
from punct.text.labels import LABEL_TO_MARK, SENTENCE_END
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

LINE_KINDS = ("vosk", "ctm", "words")
LIVE_OUTPUTS = ("text", "json", "ctm", "srt", "vtt")
#: what --input-format may call them
KIND_ALIASES = {"vosk": "vosk", "json": "vosk", "ctm": "ctm", "words": "words", "text": "words"}
_MAX_JSON_LINES = 10000  # a JSON object spread over more lines than this is not coming to an end
_TEXT_RE = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)')  # its closing quote may be missing


@dataclass
class Chunk:
    """Words read from the input: ``key`` their recording ((file, channel) of a CTM; None: the
    one stream of the input)."""
    key: tuple[str, str] | None
    words: list[Word] = field(default_factory=list)


class LineReader:
    """Lines of a live input (module docstring) into ``Chunk``s; ``name`` is the input in warnings."""

    def __init__(self, kind: str | None = None, name: str = "<stdin>"):
        if kind is not None and kind not in LINE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(LINE_KINDS)}, not {kind!r}")
        self.kind = kind
        self.name = name
        self.warnings = 0
        self.partials = 0
        self._json: list[str] = []  # the lines of a JSON object not yet complete
        self._json_line = 0

    def feed(self, line: str, lineno: int) -> list[Chunk]:
        """The chunks of one line (without its newline)."""
        if self._json:
            return self._more_json(line)
        s = line.strip()
        if not s:
            return []
        if self.kind is None:
            self.kind = _sniff(s)
            log.info("%s: live input read as %s", self.name, self.kind)
        if self.kind == "vosk":
            if not s.startswith("{"):
                return self._bad(lineno, "not a JSON object", line)
            self._json, self._json_line = [line], lineno
            return self._more_json(None)
        if self.kind == "ctm":
            return self._ctm(s, lineno)
        return self._words(s.split())

    def end(self) -> list[Chunk]:
        """At the end of the input: what an unfinished JSON object holds."""
        if not self._json:
            return []
        text, self._json = "\n".join(self._json), []
        return self._bad(self._json_line, "a JSON object that does not end", text)

    # ------------------------------------------------------------------ kinds
    def _more_json(self, line: str | None) -> list[Chunk]:
        if line is not None:
            self._json.append(line)
        text = "\n".join(self._json)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            if e.pos >= len(text.rstrip()) and len(self._json) < _MAX_JSON_LINES:
                return []  # the object goes on on the next line
            lines, start = self._json, self._json_line
            self._json = []
            if len(lines) > 1 and lines[-1].lstrip().startswith("{"):  # an object left unfinished, then a new one
                bad = self._bad(start, "a JSON object that does not end", "\n".join(lines[:-1]))
                return bad + self.feed(lines[-1], start + len(lines) - 1)
            return self._bad(start, f"invalid JSON ({e.msg})", text)
        self._json = []
        if not isinstance(obj, dict):
            return self._bad(self._json_line, "a JSON value that is not an object", text)
        return self._vosk(obj, self._json_line)

    def _vosk(self, obj: dict, lineno: int) -> list[Chunk]:
        if "partial" in obj and "result" not in obj and "text" not in obj:
            self.partials += 1
            return []
        if isinstance(obj.get("alternatives"), list) and obj["alternatives"]:
            obj = obj["alternatives"][0] if isinstance(obj["alternatives"][0], dict) else {}
        items = obj.get("result")
        if isinstance(items, list):
            words = [w for k, it in enumerate(items) for w in self._timed_words(it, lineno, k)]
            return [Chunk(None, words)] if words else []
        if "word" in obj:
            words = self._timed_words(obj, lineno, 0)
            return [Chunk(None, words)] if words else []
        text = obj.get("text")
        if isinstance(text, str):
            return self._words(text.split())
        return self._bad(lineno, "a JSON object with no 'result', 'text' or 'word'", json.dumps(obj)[:80])

    def _timed_words(self, it, lineno: int, k: int) -> list[Word]:
        """The word of result item ``k`` with its times (bad ones warned of and left out), or the
        words of an item that holds several, without times."""
        if not isinstance(it, dict) or not isinstance(it.get("word", it.get("text")), str):
            self._warn(lineno, f"result item {k + 1} has no 'word'; skipped")
            return []
        token = it.get("word", it.get("text"))
        start, end, conf = it.get("start"), it.get("end"), it.get("conf")
        ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")
                 for x in (start, end)) and end >= start >= 0
        if not ok:
            if start is not None or end is not None:
                self._warn(lineno, f"word {token!r} has bad times ({start!r}, {end!r}); kept without them")
            start = end = None
        if not (isinstance(conf, (int, float)) and not isinstance(conf, bool) and conf == conf):
            conf = None
        if len(token.split()) > 1:
            self._warn(lineno, f"result item {k + 1} holds {len(token.split())} words; kept without times")
            return [w for c in self._words(token.split()) for w in c.words]
        w = word_from_token(token.strip(), start=start, end=end, conf=None if conf is None else float(conf))
        return [w] if w is not None else []

    def _ctm(self, s: str, lineno: int) -> list[Chunk]:
        if s.startswith(";;"):
            return []
        from punct.errors import PunctError
        from punct.io.ctm import word_line

        try:
            key, (start, end, token, conf, _, raw) = word_line(s, self.name, lineno)
        except PunctError as e:
            f = s.split()
            if len(f) >= 5:  # the word is there; its times or fields are not
                self._warn(lineno, f"{e.message}; its word {f[4]!r} kept without times")
                w = word_from_token(f[4])
                return [Chunk((f[0], f[1]), [w])] if w is not None else []
            return self._bad(lineno, e.message, s)
        w = word_from_token(token, start=round(start, 6), end=round(end, 6), conf=conf, raw_times=raw)
        return [Chunk(key, [w])] if w is not None else []

    def _words(self, tokens: list[str]) -> list[Chunk]:
        """Plain words, of the input's one stream."""
        words = [w for w in (word_from_token(t) for t in tokens) if w is not None]
        return [Chunk(None, words)] if words else []

    def _bad(self, lineno: int, problem: str, text: str) -> list[Chunk]:
        """A line that does not parse: a warning, and the words that can be read from it."""
        m = _TEXT_RE.search(text) if self.kind == "vosk" else None
        if m is not None:
            try:
                words = json.loads('"' + m.group(1) + '"').split()
            except json.JSONDecodeError:
                words = m.group(1).split()
            self._warn(lineno, f"{problem}; the {len(words)} word(s) of its \"text\" kept")
            return self._words(words)
        if text.lstrip().startswith("{"):
            self._warn(lineno, f"{problem}; no words in it")
            return []
        self._warn(lineno, f"{problem}; its words kept as plain words")
        return self._words(text.split())

    def _warn(self, lineno: int, message: str) -> None:
        self.warnings += 1
        log.warning("%s:%d: %s", self.name, lineno, message)


def _sniff(line: str) -> str:
    if line.startswith("{"):
        return "vosk"
    from punct.io.ctm import sniff

    return "ctm" if sniff(line) else "words"


# ---------------------------------------------------------------------------- output

class LiveWriter:
    """Writes decided words to ``out`` as they come (module docstring); ``fmt`` one of
    ``LIVE_OUTPUTS``. ``write(words, key)``: words of recording ``key``; ``pause(key)``: a pause
    follows them; ``end(key)``: the recording ends; ``close()``: the input ends."""

    def __init__(self, out: TextIO, fmt: str = "text", limits: CueLimits = CueLimits(), word_times: bool = True,
                 bracketed: str = "drop", ctm_marks: str = "comment", flush_after: float | None = None):
        if fmt not in LIVE_OUTPUTS:
            raise ValueError(f"live output must be one of {', '.join(LIVE_OUTPUTS)}, not {fmt!r}")
        self.out, self.fmt, self.limits = out, fmt, limits
        self.word_times, self.bracketed, self.ctm_marks = word_times, bracketed, ctm_marks
        self.flush_after = flush_after
        self.cues_written = 0
        self._line_open = False
        self._gap = False  # text: a recording ended, the next one's words begin after a blank line
        self._last_key: object = ()
        self._sentence: list[Word] = []  # subtitles: the open sentence's shown words
        self._held: list = []  # subtitles: cues waiting for the next word's start
        self._header = False

    def write(self, words: list[Word], key=None) -> None:
        if not words:
            return
        if key != self._last_key:
            if self._last_key != ():
                self.end(self._last_key)
            self._last_key = key
        if self.fmt == "text":
            self._text(words)
        elif self.fmt == "json":
            for w in words:
                d = {"text": spelling(w), "mark": LABEL_TO_MARK[w.label], "start": w.start, "end": w.end}
                if w.conf is not None:
                    d["conf"] = w.conf
                if key is not None:
                    d["recording"], d["channel"] = key
                self.out.write(json.dumps(d, ensure_ascii=False) + "\n")
        elif self.fmt == "ctm":
            self._ctm(words, key)
        else:
            self._cues(words)
        self.out.flush()

    def pause(self, key=None) -> None:
        """A pause of at least ``flush_after`` seconds follows the words written: held cues may stay."""
        if self.fmt in ("srt", "vtt"):
            self._cue_sentence(force=True)  # a pause ends a cue: what was said before it is shown
            last = self._held[-1].end if self._held else None
            self._release(None if last is None or self.flush_after is None else last + self.flush_after)
            self.out.flush()

    def end(self, key=None) -> None:
        """The recording ``key`` ends."""
        if self.fmt == "text":
            if self._line_open:
                self.out.write("\n")
                self._line_open = False
            self._gap = True
        if self.fmt in ("srt", "vtt"):
            self._cue_sentence(force=True)
            self._release(None)
        self._last_key = ()
        self.out.flush()

    def close(self) -> None:
        if self._last_key != ():
            self.end(self._last_key)
        if self.fmt == "vtt" and not self._header:
            self._vtt_header()
        self.out.flush()

    # ------------------------------------------------------------------ forms
    def _text(self, words: list[Word]) -> None:
        for w in words:
            if self._gap:  # a blank line between recordings, as the offline text
                self.out.write("\n")
                self._gap = False
            self.out.write((" " if self._line_open else "") + punctuated(w))
            self._line_open = True
            if w.label in SENTENCE_END:
                self.out.write("\n")
                self._line_open = False

    def _ctm(self, words: list[Word], key) -> None:
        from punct.errors import PunctError
        from punct.io.ctm import word_lines

        fid, ch = key if key is not None else ("live", "1")
        for w in words:
            if w.start is None or w.end is None:
                raise PunctError(f"word {spelling(w)!r} has no times: a CTM output needs timed input (CTM lines or "
                                 "Vosk results with words)")
            try:
                self.out.write(word_lines(w, fid, ch, self.ctm_marks, as_read=True))
            except ValueError as e:
                raise PunctError(str(e)) from None

    def _vtt_header(self) -> None:
        self.out.write("WEBVTT\n")
        self._header = True

    def _cues(self, words: list[Word]) -> None:
        from punct.io.subtitles import shown

        if self.fmt == "vtt" and not self._header:
            self._vtt_header()
        for w in shown([Utterance(id="live", words=words)], self.fmt, self.bracketed)[0].words:
            if w.start is None and w.end is None and not any(x.start is not None for x in self._sentence):
                from punct.errors import PunctError

                raise PunctError(f"word {spelling(w)!r} has no times: subtitles need timed input (CTM lines or Vosk "
                                 "results with words)")
            if self._held and w.start is not None:
                self._release(w.start)
            self._sentence.append(w)
            if w.label in SENTENCE_END:
                self._cue_sentence(force=True)
        self._cue_sentence(force=False)

    def _cue_sentence(self, force: bool) -> None:
        """The open sentence's cues: all of them when it is decided (``force``), else all but the
        last when it has grown to three (a sentence that goes on and on)."""
        if not self._sentence:
            return
        cues = make_cues([Utterance(id="live", words=self._sentence)], self.limits)
        if not force:
            if len(cues) < 3:
                return
            cues = cues[:-1]
        n = sum(len(c.words) for c in cues)
        self._sentence = self._sentence[n:]
        for c in cues:
            if self._held:
                self._release(c.start)
            self._held.append(c)

    def _release(self, next_start: float | None) -> None:
        """Write the held cues, the last held one kept on screen up to ``min_seconds`` where
        ``next_start`` leaves room (None: as spoken)."""
        from punct.io.subtitles import srt_cue, vtt_cue

        for k, c in enumerate(self._held):
            nxt = self._held[k + 1].start if k + 1 < len(self._held) else next_start
            if nxt is not None:
                fit_end(c, nxt, self.limits.min_seconds)
            self.cues_written += 1
            self.out.write(("\n" if self.cues_written > 1 or self.fmt == "vtt" else "")
                           + (srt_cue(self.cues_written, c) if self.fmt == "srt" else vtt_cue(c, self.word_times)))
        self._held = []


