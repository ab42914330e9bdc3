"""SubRip (``.srt``) and WebVTT (``.vtt``) subtitles with sentence-level cues.

Writing: one cue per sentence (punct.io.sentences.make_cues); a sentence beyond
the limits of ``CueLimits`` (42 characters a line, 2 lines, 7 seconds; a silence
over 2 s always splits) is split into the fewest cues that keep every line within
them, breaking at marks, pauses and phrase boundaries, and each cue's text is
wrapped the same way; a cue ends before the next begins. Recognizer tokens in
brackets (``<unk>``, ``[noise]``) are left out, or kept (``bracketed="escape"``:
``[unk]`` in SubRip, ``&lt;unk&gt;`` in WebVTT; ``shown``).
Cues never join two utterances or two speakers. WebVTT cues name their speaker
(``<v Ann>``) and, unless ``word_times=False``, carry each word's start as an
inline timestamp (``<00:00:03.390>morning``), which players ignore or use for
karaoke-style highlighting; as WebVTT requires, the timestamps of a cue increase (a word
that starts no later than the word before it, as real CTMs have a few, gets none).

Reading: every cue's text is split into words at white space (WebVTT tags and
entities, SubRip's formatting tags and the ASS override blocks of SubRip files,
``{\\an8}``, removed; attached marks become labels); the cue's start is the first
word's start, its end the last word's end, and in WebVTT an inline timestamp
is the start of the word after it. Other times are not in these formats: they
stay None. So a round trip keeps words, marks, speakers (WebVTT) and cue times,
and WebVTT also word starts; word ends inside a cue are lost. All words of a
file are one utterance.

Both formats share this module; the format is chosen by the file's extension
(``.vtt`` is WebVTT, anything else SubRip) or ``kind=``.
"""
from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from punct.errors import PunctError
from punct.data.tables import time_problem
from punct.fsutil import atomic_write
from punct.io.sentences import Cue, CueLimits, attach_marks_only, make_cues, make_word, punctuated, spelling, split_token
from punct.text.labels import O, stronger
from punct.text.words import Utterance, Word

if TYPE_CHECKING:
    from punct.io.options import WriteOptions

NAME = "srt"
EXTENSIONS = (".srt", ".vtt")

_TS = r"(?:(\d+):)?(\d{1,2}):(\d{2})[,.](\d{1,3})"
_TIMING_RE = re.compile(r"^\s*" + _TS + r"\s*-->\s*" + _TS + r"(?:\s+.*)?$")
_INLINE_TS_RE = re.compile(r"^<" + _TS + r">$")
_INLINE_TS_IN_TEXT_RE = re.compile(r"<" + _TS + r">")
_TAG_RE = re.compile(r"(<[^>]*>)")
_VOICE_RE = re.compile(r"^<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>$")
#: SubRip has no escaping: only its formatting tags are tags; ``<unk>`` is a word.
_SRT_TAG_RE = re.compile(r"^</?(?:i|b|u|s|font)(?:\s[^>]*)?>$", re.IGNORECASE)
#: ASS/SSA override blocks that SubRip files carry from subtitle editors and converters
#: (``{\an8}`` to place a cue at the top, ``{\i1}``): formatting, not words
_SSA_OVERRIDE_RE = re.compile(r"\{\\[^}]*\}")


def sniff(head: str) -> bool:
    """True if HEAD starts as WebVTT or SubRip (a cue number, then a timing line)."""
    h = head.lstrip("\ufeff")
    if h.startswith("WEBVTT"):
        return True
    lines = [l for l in h.splitlines() if l.strip()][:2]
    return len(lines) == 2 and lines[0].strip().isdigit() and bool(_TIMING_RE.match(lines[1]))


def kind_of(path: str | Path) -> str:
    """``"vtt"`` for a ``.vtt`` file, else ``"srt"``."""
    return "vtt" if str(path).lower().endswith(".vtt") else "srt"


def _seconds(groups: tuple) -> float:
    h, m, s, ms = groups
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms.ljust(3, "0")) / 1000.0


def _ms(t: float) -> int:
    """``t`` seconds in whole milliseconds, as a timestamp writes it."""
    return int(round(max(t, 0.0) * 1000))


def _stamp(t: float, sep: str) -> str:
    ms = _ms(t)
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _blocks(text: str, vtt: bool = False) -> list[tuple[int, list[str]]]:
    """Blocks of non-blank lines with the line number of their first line. In WebVTT, as its
    parser reads them, only an empty line ends a block (a cue line of spaces is cue text, as
    YouTube's captions have them), and so does a line with ``-->`` after a cue's timing line
    (it begins the next cue)."""
    out: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = 0
    for n, line in enumerate(text.splitlines(), 1):
        if vtt and cur and "-->" in line and any("-->" in x for x in cur):
            out.append((start, cur))
            cur = []
        if line.strip() or (vtt and line and cur):
            if not cur:
                start = n
            cur.append(line.rstrip())
        elif cur:
            out.append((start, cur))
            cur = []
    if cur:
        out.append((start, cur))
    return out


def _cue_words(lines: list[str], start: float, end: float, vtt: bool, speaker: str | None) -> list[Word]:
    """Words of one cue's text lines (see the module docstring for their times)."""
    items: list[tuple[str, float | None, str | None]] = []  # token, inline start, speaker
    pending: float | None = None
    text = " ".join(lines) if vtt else _SSA_OVERRIDE_RE.sub("", " ".join(lines))
    for part in _TAG_RE.split(text):
        if not part:
            continue
        if part.startswith("<") and part.endswith(">") and (vtt or _SRT_TAG_RE.match(part)):
            m = _INLINE_TS_RE.match(part)
            if m:
                pending = _seconds(m.groups())
                if time_problem(pending) is not None:
                    pending = None  # an absurd inline stamp: the word is timed by its cue instead
                continue
            v = _VOICE_RE.match(part)
            if v and vtt:
                speaker = (v.group(1) or "").strip() or None
            continue
        for tok in (html.unescape(part) if vtt else part).split():
            items.append((tok, pending, speaker))
            pending = None
    words: list[Word] = []
    for k, (tok, t, spk) in enumerate(items):
        core, label = split_token(tok)
        if not core:
            attach_marks_only(words, tok)
            continue
        words.append(make_word(core, label, start=t if t is not None else (start if not words else None), end=None,
                               speaker=spk))
    if words:
        words[-1].end = end
        if words[0].start is None:
            words[0].start = start
    return words


def read(path: str | Path) -> list[Utterance]:
    """Read an SRT or WebVTT file (by its first line) into one Utterance."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PunctError(f"not valid UTF-8 ({e.reason} at byte {e.start})", path) from None
    if not text.strip():
        raise PunctError("empty file (expected subtitles)", path)
    vtt = text.lstrip().startswith("WEBVTT")
    blocks = _blocks(text, vtt)
    if vtt:
        blocks = blocks[1:]  # the WEBVTT header block
    # YouTube's automatic captions roll: each cue repeats the line before it (its new words come
    # with <c> timestamp tags); a repeated line, without tags, is read once
    rolling = vtt and "<c>" in text and _INLINE_TS_IN_TEXT_RE.search(text) is not None
    last_line = None
    words: list[Word] = []
    for lineno, lines in blocks:
        if vtt and lines[0].split(" ", 1)[0] in ("NOTE", "STYLE", "REGION"):
            continue
        t = 0
        if not _TIMING_RE.match(lines[0]):
            t = 1  # a cue number (SRT) or identifier (WebVTT)
            if not vtt and not lines[0].strip().isdigit():
                raise PunctError(f"expected a cue number, got {lines[0].strip()[:40]!r}", path, lineno)
        if t >= len(lines) or not _TIMING_RE.match(lines[t]):
            sep = "." if vtt else ","
            raise PunctError(f"expected a cue timing 'HH:MM:SS{sep}mmm --> HH:MM:SS{sep}mmm'", path, lineno + t)
        m = _TIMING_RE.match(lines[t])
        start, end = _seconds(m.groups()[:4]), _seconds(m.groups()[4:])
        for x in (start, end):
            if time_problem(x) is not None:
                raise PunctError(f"cue time {x:g} {time_problem(x)}", path, lineno + t)
        if end < start:
            raise PunctError(f"cue ends ({end:.3f}) before it starts ({start:.3f})", path, lineno + t)
        text_lines = lines[t + 1 :]
        if rolling:
            plain = [" ".join(_TAG_RE.sub(" ", x).split()) for x in text_lines]
            text_lines = [x for x, p in zip(text_lines, plain) if p != last_line or _TAG_RE.search(x)]
            last_line = next((p for p in reversed(plain) if p), last_line)
        words += _cue_words(text_lines, start, end, vtt, None)
    if not words:
        raise PunctError("no words in the subtitles", path)
    spk = {w.speaker for w in words}
    stem = path.stem
    return [Utterance(id=stem, words=words, recording=stem, speaker=spk.pop() if len(spk) == 1 else None)]


def _vtt_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def is_bracketed(w: Word) -> bool:
    """A recognizer's token in angle or square brackets (``<unk>``, ``[noise]``, ``<sil>``)."""
    s = spelling(w)
    return len(s) >= 2 and (s[0], s[-1]) in (("<", ">"), ("[", "]"))


def shown(utts: Iterable[Utterance], kind: str, bracketed: str = "drop") -> list[Utterance]:
    """The utterances as subtitles show them (punct.io.options.BRACKETED): bracketed tokens
    left out (``drop``; a mark of theirs goes to the word before), or kept (``escape``), in
    SubRip in square brackets (``[unk]``: SubRip has no escape, and players read ``<unk>`` as a
    tag), in WebVTT as they are (escaped as ``&lt;unk&gt;`` when written). The words are copies."""
    from dataclasses import replace

    out = []
    for u in utts:
        words: list[Word] = []
        for w in u.words:
            if not is_bracketed(w):
                words.append(replace(w))
            elif bracketed == "drop":
                if words and w.label != O:
                    words[-1].label = stronger(words[-1].label, w.label)
            elif kind == "srt" and spelling(w).startswith("<"):
                words.append(replace(w, written="[" + spelling(w)[1:-1] + "]"))
            else:
                words.append(replace(w))
        out.append(replace(u, words=words))
    return out


def to_srt(utts: Iterable[Utterance], limits: CueLimits = CueLimits(), bracketed: str = "drop") -> str:
    """SubRip text of the utterances' sentence cues."""
    return "\n".join(srt_cue(i, c) for i, c in enumerate(_cues(shown(utts, "srt", bracketed), limits), 1))


def srt_cue(i: int, c: Cue) -> str:
    """SubRip block ``i`` (counted from 1) of cue ``c``."""
    return f"{i}\n{_stamp(c.start, ',')} --> {_stamp(c.end, ',')}\n" + "\n".join(c.lines) + "\n"


def to_vtt(utts: Iterable[Utterance], limits: CueLimits = CueLimits(), word_times: bool = True,
           bracketed: str = "drop") -> str:
    """WebVTT text of the utterances' sentence cues (speakers as ``<v>``, word starts inline
    unless ``word_times=False``)."""
    return "\n".join(["WEBVTT\n"] + [vtt_cue(c, word_times) for c in _cues(shown(utts, "vtt", bracketed), limits)])


def vtt_cue(c: Cue, word_times: bool = True) -> str:
    """WebVTT block of cue ``c`` (its speaker as ``<v>``, word starts inline with ``word_times``)."""
    tokens = []
    last, end = _ms(c.start), _ms(c.end)
    for k, w in enumerate(c.words):
        tok = _vtt_escape(punctuated(w))
        # WebVTT: a timestamp lies inside its cue and after the one before it, as written (in ms); a
        # word that starts no later (times out of order or equal, as real CTMs have them) gets none
        if word_times and k > 0 and w.start is not None and last < _ms(w.start) < end:
            tok = f"<{_stamp(w.start, '.')}>" + tok
            last = _ms(w.start)
        tokens.append(tok)
    # the lines of c.lines, with the (escaped, timestamped) tokens: words hold no spaces
    lines, pos = [], 0
    for line in c.lines:
        n = len(line.split(" "))
        lines.append(" ".join(tokens[pos : pos + n]))
        pos += n
    if c.speaker is not None:
        lines[0] = f"<v {_vtt_escape(c.speaker)}>" + lines[0]
    return f"{_stamp(c.start, '.')} --> {_stamp(c.end, '.')}\n" + "\n".join(lines) + "\n"


def _cues(utts: Iterable[Utterance], limits: CueLimits):
    try:
        return make_cues(list(utts), limits)
    except ValueError as e:
        raise PunctError(f"subtitles need word times: {e}") from None


def write(utts: Iterable[Utterance], path: str | Path, kind: str | None = None, limits: CueLimits = CueLimits(),
          word_times: bool = True, bracketed: str = "drop", options: "WriteOptions | None" = None) -> None:
    """Write SubRip or WebVTT (``kind`` ``"srt"``/``"vtt"``, default by extension); ``options``
    (punct.io.options.WriteOptions), when given, sets the limits, word times and bracketed tokens."""
    path = Path(path)
    kind = kind or kind_of(path)
    if kind not in ("srt", "vtt"):
        raise PunctError(f"unknown subtitle kind {kind!r} (srt or vtt)", path)
    if options is not None:
        limits, word_times, bracketed = options.cue_limits, options.word_times, options.bracketed
    try:
        text = to_vtt(utts, limits, word_times, bracketed) if kind == "vtt" else to_srt(utts, limits, bracketed)
    except PunctError as e:
        raise PunctError(e.message, path) from None
    with atomic_write(path) as f:
        f.write(text)
