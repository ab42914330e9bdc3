"""NIST/Kaldi CTM: ``file channel start duration word [confidence]``, one word a line.
NIST's rich-transcription CTM adds a token type and a speaker (``... word conf type
[speaker]``, the type one of ``NIST_TYPES``; the NeMo Forced Aligner writes
``hello NA lex NA``): read too, a confidence ``NA`` (in any CTM) as none; the type
and the speaker are not read, and written back only ``as_read``.

Reading: ``;;`` lines are comments; one Utterance per (file, channel) (id = the
file, or ``file-channel`` when a file has several channels), in the order
NIST sclite wants (file and channel in ASCII order, words by start time).
Lines out of time order are kept in file order with a warning: the order a
recognizer wrote is its transcript, and sorting by start time scrambles words
whose times overlap (seen in the Earnings-21 Rev CTMs: "as a result" became
"as result a"); ``sort=True`` sorts by start time as NIST sclite wants; words
that overlap the previous word are kept, with a warning (both happen in real
Kaldi output). A mark attached to a word (``hello,``), or given on a ``;; punct-mark``
line after it (see Writing), becomes its label; the
spelling is kept in ``Word.written`` (``GOOD``), ``Word.text`` is lower case.

A CTM of Kaldi *utterances* (times relative to each segment, as ``get_ctm``
writes without ``convert_ctm``) is read with ``segments``: words move to
absolute times and to the segment's recording; each segment stays an Utterance.

Writing: the words with their marks in one of three forms (``marks``:
``comment``, the default, the words as the input spelled them and each mark on a
``;; punct-mark FILE CHANNEL START MARK`` line after its word, which NIST sclite and
sctk's ctmValidator.pl skip as a comment and this reader attaches back to the word;
``glued``, ``hello,``, which those tools read as another word; ``none``); one line per word, files and channels in
ASCII order, a channel's utterances by their first word's start, and each
utterance's words in their own order, the order their marks were decided in (so a
CTM read in file order comes back in it); ``sort=True`` orders every channel's
lines by start time, as NIST sclite wants. The two differ only where the words are
out of time order.
Times are written in seconds with 2 or 3 decimals (millisecond precision); with
``as_read`` (``punct restore``'s CTM), a word read from a CTM keeps its start, duration and
the fields after it as the input wrote them (``3.2400``, ``1``, ``NA lex NA``).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterable, Mapping

from punct.errors import PunctError
from punct.fsutil import atomic_write, iter_lines
from punct.io.sentences import attach_marks_only, punctuated, spelling, split_token, make_word
from punct.data.tables import Segment, finite_number, read_table, seconds, read_segments as read_kaldi_segments
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

NAME = "ctm"
EXTENSIONS = (".ctm",)


#: the token types of the 7th field of a NIST rich-transcription CTM (sctk's ctmValidator.pl)
NIST_TYPES = frozenset({"lex", "frag", "fp", "un-lex", "for-lex", "non-lex", "misc"})


def _field_count_ok(f: list[str]) -> bool:
    """5 or 6 fields, or 7 or 8 whose 7th is a NIST token type."""
    return len(f) in (5, 6) or (len(f) in (7, 8) and f[6].lower() in NIST_TYPES)


def sniff(head: str) -> bool:
    """True if the first non-comment line has 5 or 6 fields (7 or 8 with a NIST token type)
    with numeric start and duration."""
    for line in head.splitlines():
        if not line.strip() or line.startswith(";;"):
            continue
        f = line.split()
        if not _field_count_ok(f):
            return False
        try:
            float(f[2]), float(f[3])
        except ValueError:
            return False
        return True
    return False


def read_segments(path: str | Path) -> dict[str, Segment]:
    """A ``segments`` file beside a CTM: Kaldi's (``punct.data.tables.read_segments``), in any order."""
    return read_kaldi_segments(path, sorted_keys=False)


def read_utt2spk(path: str | Path) -> dict[str, str]:
    """An ``utt2spk`` file beside a CTM: ``utterance speaker`` lines, unique, in any order."""
    out = {}
    for utt, f, lineno in read_table(path, sorted_keys=False):
        if len(f) != 1:
            raise PunctError(f"expected 'utterance speaker', got {len(f) + 1} fields", path, lineno)
        out[utt] = f[0]
    return out


def read(path: str | Path, segments: str | Path | Mapping[str, Segment] | None = None,
         utt2spk: Mapping[str, str] | None = None, sort: bool = False) -> list[Utterance]:
    """Read a CTM into Utterances (see the module docstring).

    ``segments`` (a Kaldi ``segments`` file or its dict) makes the first field an
    utterance id with times relative to the segment; ``utt2spk`` sets speakers.
    ``sort=True`` sorts each channel's words by start time (default: file order).
    """
    path = Path(path)
    if isinstance(segments, (str, Path)):
        segments = read_segments(segments)
    return _build(_parse(path), path, segments, utt2spk, sort)


#: a CTM's words by (file, channel): (start, end, token, confidence, line number, (start, duration,
#: the fields after the word or None) as written: Word.raw_times) in file order
_Groups = dict[tuple[str, str], list[tuple[float, float, str, float | None, int, tuple[str, str, str | None]]]]


def _parse(path: Path) -> _Groups:
    groups: _Groups = {}
    for lineno, line in iter_lines(path):
        if line.startswith(MARK_COMMENT + " "):
            _comment_mark(groups, line, path, lineno)
            continue
        if not line.strip() or line.startswith(";;"):
            continue
        key, entry = word_line(line, path, lineno)
        groups.setdefault(key, []).append(entry)
    if not groups:
        raise PunctError("no words (empty CTM)", path)
    return groups


def word_line(line: str, path: str | Path, lineno: int) -> tuple[tuple[str, str], tuple]:
    """((file, channel), (start, end, token, confidence, line number, raw times)) of one word
    line of a CTM (``_Groups``); a PunctError names the line's problem."""
    fl = line.split()
    if not _field_count_ok(fl):
        raise PunctError(f"expected 5 or 6 fields 'file channel start duration word [confidence]' (or 7 or 8, "
                         f"'... confidence type [speaker]', type one of {', '.join(sorted(NIST_TYPES))}), got "
                         f"{len(fl)}" + (f" (type {fl[6]!r})" if len(fl) in (7, 8) else ""), path, lineno)
    start = seconds(fl[2], "start time", path, lineno)
    dur = seconds(fl[3], "duration", path, lineno)
    conf = None
    if len(fl) >= 6 and fl[5].upper() != "NA":
        conf = finite_number(fl[5], "confidence", path, lineno)
    raw = (fl[2], fl[3], " ".join(fl[5:]) or None)
    return (fl[0], fl[1]), (start, start + dur, fl[4], conf, lineno, raw)


def _comment_mark(groups: _Groups, line: str, path: Path, lineno: int) -> None:
    """A ``;; punct-mark FILE CHANNEL START MARK`` line: MARK is glued to the latest word of
    FILE and CHANNEL that starts at START, so it becomes that word's label as ``hello,`` would."""
    f = line.split()
    if len(f) != 6:
        raise PunctError(f"expected '{MARK_COMMENT} FILE CHANNEL START MARK', got {len(f) - 2} fields", path, lineno)
    start = finite_number(f[4], "start time", path, lineno)
    rows = groups.get((f[2], f[3]), [])
    for i in range(len(rows) - 1, -1, -1):
        if abs(rows[i][0] - start) < 5e-4:
            s, e, token, conf, n, raw = rows[i]
            rows[i] = (s, e, token + f[5], conf, n, raw)
            return
    raise PunctError(f"a mark for a word of {f[2]} channel {f[3]} at {f[4]}, and no such word precedes it", path, lineno)


def _build(groups: _Groups, path: Path, segments: Mapping[str, Segment] | None,
           utt2spk: Mapping[str, str] | None, sort: bool) -> list[Utterance]:
    channels: dict[str, set[str]] = {}
    for fid, ch in groups:
        channels.setdefault(fid, set()).add(ch)
    utts = []
    for (fid, ch) in sorted(groups, key=lambda k: (k[0].encode("utf-8"), k[1].encode("utf-8"))):
        rows = groups[(fid, ch)]
        unsorted = [r[4] for a, r in zip(rows, rows[1:]) if r[0] < a[0]]
        if unsorted:
            if sort:
                log.warning("%s: %d line(s) of %s channel %s out of time order (first at line %d); sorted by start time "
                            "as NIST specifies", path, len(unsorted), fid, ch, unsorted[0])
                rows = sorted(rows, key=lambda r: r[0])
            else:
                log.warning("%s: %d line(s) of %s channel %s out of time order (first at line %d); file order kept",
                            path, len(unsorted), fid, ch, unsorted[0])
        # a confidence is a probability in NIST's CTM; some recognizers write scores in other
        # ranges, which punct carries to its output as read but never uses as a probability
        odd = [r[4] for r in rows if r[3] is not None and not 0.0 <= r[3] <= 1.0]
        if odd:
            log.warning("%s: %d confidence(s) of %s channel %s outside [0, 1] (first at line %d); kept as read",
                        path, len(odd), fid, ch, odd[0])
        overlaps = [r[4] for a, r in zip(rows, rows[1:]) if r[0] < a[1] - 1e-9]
        if overlaps:
            log.warning("%s: %d word(s) of %s channel %s start before the previous word ends (first at line %d); kept",
                        path, len(overlaps), fid, ch, overlaps[0])
        offset, reco, speaker = 0.0, fid, None
        uid = fid if len(channels[fid]) == 1 else f"{fid}-{ch}"
        if segments is not None:
            if fid not in segments:
                raise PunctError(f"utterance {fid!r} is not in segments", path, rows[0][4])
            seg = segments[fid]
            reco, offset = seg.recording, seg.start
            late = [r[4] for r in rows if offset + r[1] > seg.stop + 0.01]
            if late:
                log.warning("%s: %d word(s) of %s end after its segment (first at line %d)", path, len(late), fid, late[0])
        if utt2spk is not None:
            speaker = utt2spk.get(fid)
        words = []
        for start, end, token, conf, lineno, raw in rows:
            core, label = split_token(token)
            if not core:
                attach_marks_only(words, token)
                continue
            words.append(make_word(core, label, start=round(start + offset, 6), end=round(end + offset, 6), conf=conf,
                                   raw_times=raw if offset == 0 else None))
        if not words:
            raise PunctError(f"{fid} channel {ch} has no words (only marks)", path, rows[0][4])
        utts.append(Utterance(id=uid, words=words, recording=reco, channel=ch, speaker=speaker))
    if segments is not None:
        utts.sort(key=lambda u: (u.recording.encode("utf-8"), u.words[0].start, u.id.encode("utf-8")))
    return utts


def read_datadir(datadir: str | Path) -> list[Utterance]:
    """A Kaldi data directory's ``ctm``, with its ``segments`` and ``utt2spk`` when present
    (``read_with_segments``)."""
    d = Path(datadir)
    path = d / "ctm"
    if not path.is_file():
        raise PunctError("file not found", path)
    seg = d / "segments"
    spk = d / "utt2spk"
    utt2spk = read_utt2spk(spk) if spk.is_file() else None
    if not seg.is_file():
        return read(path, utt2spk=utt2spk)
    return read_with_segments(path, seg, utt2spk)


def read_with_segments(path: str | Path, segments: str | Path | Mapping[str, Segment],
                       utt2spk: Mapping[str, str] | None = None) -> list[Utterance]:
    """A CTM read into the utterances of a Kaldi ``segments`` file.

    The CTM is either one of utterances (``get_ctm`` before ``convert_ctm``: times relative
    to each segment) or one of recordings (after it, or as ``punct.bin.asr_decode`` writes
    it: absolute times); its first fields, all utterances or all recordings of
    ``segments``, tell which. A CTM of recordings is cut back into the segments'
    utterances (``split_by_segments``), so both kinds give the same utterances, ids and
    speakers.
    """
    path = Path(path)
    seg_path = segments if isinstance(segments, (str, Path)) else None
    if isinstance(segments, (str, Path)):
        segments = read_segments(segments)
    groups = _parse(path)
    first = {}  # each first field with the first line it is on
    for (fid, _), rows in groups.items():
        first[fid] = min(first.get(fid, rows[0][4]), rows[0][4])
    if all(f not in segments for f in first):
        recordings = {s.recording for s in segments.values()}
        stray = [(n, f) for f, n in first.items() if f not in recordings]
        if stray:
            n, f = min(stray)
            where = f" of {seg_path}" if seg_path is not None else ""
            raise PunctError(f"{f!r} is neither an utterance nor a recording{where}", path, n)
        return split_by_segments(_build(groups, path, None, None, False), segments, utt2spk, path)
    return _build(groups, path, segments, utt2spk, False)


def split_by_segments(recordings: list[Utterance], segments: Mapping[str, Segment],
                      utt2spk: Mapping[str, str] | None = None, path: str | Path | None = None) -> list[Utterance]:
    """Cut utterances of whole recordings (absolute word times) into Kaldi segments.

    A word goes to the segment that holds its midpoint (of overlapping ones, the one it
    is deepest inside), else to the nearest segment of its recording, with a warning;
    words keep their order. A segment without words gives no utterance. A recording
    read with several channels gives ``utterance-channel`` ids, as ``read`` names them.
    """
    by_reco: dict[str, list[tuple[float, float, str]]] = {}
    for utt, seg in segments.items():
        by_reco.setdefault(seg.recording, []).append((seg.start, seg.stop, utt))
    channels: dict[str, int] = {}
    for u in recordings:
        channels[u.recording or u.id] = channels.get(u.recording or u.id, 0) + 1
    out = []
    for u in recordings:
        reco = u.recording or u.id
        segs = sorted(by_reco.get(reco, ()))
        if not segs:
            raise PunctError(f"recording {reco!r} has no segments", path)
        parts: dict[str, list] = {}
        outside = 0
        for w in u.words:
            mid = (w.start + w.end) / 2
            inside = [(min(mid - s, e - mid), utt) for s, e, utt in segs if s <= mid <= e]
            if inside:
                utt = max(inside)[1]
            else:
                outside += 1
                utt = min((max(s - mid, mid - e), utt) for s, e, utt in segs)[1]
            parts.setdefault(utt, []).append(w)
        if outside:
            log.warning("%s: %d word(s) of %s lie outside every segment; each went to the nearest one",
                        path or "ctm", outside, u.id)
        for utt, words in parts.items():
            uid = utt if channels[reco] == 1 else f"{utt}-{u.channel}"
            out.append(Utterance(id=uid, words=words, recording=reco, channel=u.channel,
                                 speaker=utt2spk.get(utt) if utt2spk is not None else None))
    out.sort(key=lambda u: (u.recording.encode("utf-8"), u.words[0].start, u.id.encode("utf-8")))
    return out


def format_time(x: float) -> str:
    """Seconds with 3 decimals, trailing zeros dropped down to 2 (``3.24``, ``3.245``)."""
    s = f"{x:.3f}"
    return s[:-1] if s.endswith("0") else s


def _fields(w: Word, as_read: bool) -> tuple[str, str, str]:
    """A word's start, duration and the fields after the word (`` conf [type [speaker]]``, or
    ``""``) as its CTM line writes them: with ``as_read``, as the input CTM wrote them
    (``Word.raw_times``) while they still hold the word's times and confidence, else
    ``format_time``'s."""
    start, dur = format_time(w.start), format_time(max(w.end - w.start, 0.0))
    conf = "" if w.conf is None else " " + format_time(w.conf)
    if as_read and w.raw_times is not None:
        s, d, tail = w.raw_times
        if abs(float(s) - w.start) <= 1e-6 and abs(float(s) + float(d) - w.end) <= 1e-6:
            start, dur = s, d
        if tail is not None:
            c = tail.split()[0]
            if (w.conf is None and c.upper() == "NA") or (c.upper() != "NA" and float(c) == w.conf):
                conf = " " + tail
    return start, dur, conf


#: the comment line that carries a mark in a CTM of ``marks="comment"``: ``;; punct-mark FILE CHANNEL START MARK``,
#: after the line of the word the mark follows (START is that word's start, as written on its line)
MARK_COMMENT = ";; punct-mark"
_HEADER = (";; punct: marks after words are on ';; punct-mark FILE CHANNEL START MARK' lines (START: the word's), "
           "which NIST sclite skips\n")


def word_lines(w: Word, fid: str, ch: str, form: str = "comment", as_read: bool = False) -> str:
    """The CTM line of timed word ``w`` of file ``fid``, channel ``ch``, in mark form ``form``
    (``write``), and its ``;; punct-mark`` line after it when ``form`` is ``comment`` and it has
    a mark; ValueError when the word or the ids cannot be written (empty, white space)."""
    token = punctuated(w) if form == "glued" else spelling(w)
    if not token or any(c.isspace() for c in token) or any(c.isspace() for c in fid + ch):
        raise ValueError(f"cannot write {token!r} in a CTM (empty or contains white space)")
    start, dur, conf = _fields(w, as_read)
    line = f"{fid} {ch} {start} {dur} {token}{conf}\n"
    mark = punctuated(w)[len(token):] if form == "comment" else ""
    return line + (f"{MARK_COMMENT} {fid} {ch} {start} {mark}\n" if mark else "")


def write(utts: Iterable[Utterance], path: str | Path, marks: str | bool = "comment", sort: bool = False,
          as_read: bool = False) -> None:
    """Write a CTM; every word needs times. ``marks`` (punct.io.options.CTM_MARKS): ``comment``
    (the words as spelled, each mark on a ``;; punct-mark`` line after its word: sclite and
    ctmValidator.pl read the CTM as the input), ``glued`` (``hello,``; also ``True``) or
    ``none`` (no marks; also ``False``).

    The file is the utterance's ``recording`` (else its id), the channel its ``channel``.
    Each utterance's words keep their order unless ``sort=True`` (start time order, as
    NIST sclite wants; see the module docstring). ``as_read``: the words of an input CTM keep
    its start, duration and the fields after the word as it wrote them (``_fields``: what
    ``punct restore`` writes); else times and confidence are written anew, ``format_time``'s
    (the 5 or 6 fields sclite reads).
    """
    path = Path(path)
    form = {True: "glued", False: "none"}.get(marks, marks) if isinstance(marks, bool) else marks
    if form not in ("comment", "glued", "none"):
        raise ValueError(f"marks must be comment, glued or none, not {marks!r}")
    lines = []
    any_mark = False
    for n, u in enumerate(utts):
        fid = u.recording or u.id
        ch = u.channel or "1"
        for k, w in enumerate(u.words):
            if w.start is None or w.end is None:
                raise PunctError(f"word {k + 1} ({spelling(w)!r}) of {u.id} has no times; a CTM needs word times", path)
            try:
                line = word_lines(w, fid, ch, form, as_read)
            except ValueError as e:
                raise PunctError(f"{u.id}: {e}", path) from None
            any_mark = any_mark or MARK_COMMENT in line
            order = (w.start,) if sort else (u.words[0].start, n, k)
            lines.append(((fid.encode("utf-8"), ch.encode("utf-8"), *order), line))
    lines.sort(key=lambda x: x[0])
    with atomic_write(path) as f:
        if any_mark:
            f.write(_HEADER)
        for _, line in lines:
            f.write(line)
