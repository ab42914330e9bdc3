"""What ``punct restore`` reads: any format of punct.io (detected, else plain text) as
utterances of unpunctuated words. A data directory with a ``ctm`` is read as that CTM;
one without, in its recordings' time order (so one speaker's segments form one stream);
a plain-text file as spoken words whose spelling is kept (``read_plain_text``).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from punct.errors import PunctError
from punct.fsutil import iter_lines
from punct.io.sentences import attach_marks_only, warn_marks_only, word_from_token
from punct.text.words import Utterance, Word


def read_plain_text(path: str | Path) -> list[Utterance]:
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


def read_input(path: str | Path, fmt: str | None = None, segments: str | Path | None = None) -> list[Utterance]:
    """Utterances of ``path`` (format ``fmt``, detected when None).

    A data directory with a ``ctm`` is read as that CTM (with its ``segments`` and
    ``utt2spk``); otherwise as ``text`` (+ ``word_times``), in recordings (``in_recordings``).
    Text files are read by ``read_plain_text``. ``segments``: a Kaldi segments file for a CTM
    of its utterances (or of its recordings, cut into the segments: ``ctm.read_with_segments``).
    """
    from punct.fsutil import check_input
    from punct.io import ctm, detect_format, read_any

    path = Path(path)
    check_input(path, "input")
    if fmt is None:
        # what restore is given without a mark or signature is unpunctuated text
        fmt = detect_format(path, "--input-format", fallback="text")
    if segments is not None and fmt != "ctm":
        raise PunctError(f"a segments file goes with a CTM input, not {fmt}", path)
    if fmt == "datadir":
        if not path.is_dir():
            raise PunctError("not a data directory", path)
        if (path / "ctm").is_file():
            utts = ctm.read_datadir(path)
        else:
            utts = in_recordings(read_any(path, "datadir"), path / "segments")
        utts = with_files_and_channels(utts, path / "reco2file_and_channel")
    elif fmt == "ctm":
        utts = ctm.read(path) if segments is None else ctm.read_with_segments(path, segments)
    elif fmt == "text":
        utts = read_plain_text(path)
    else:
        utts = read_any(path, fmt)
    if not any(u.words for u in utts):
        raise PunctError("no words in the input", path)
    return utts


def with_files_and_channels(utts: list[Utterance], table: Path) -> list[Utterance]:
    """The utterances of a data directory with the file and channel that its
    ``reco2file_and_channel`` gives their recording (``<recording> <file> <channel>``), as a
    CTM names them: a Switchboard-style ``sw02001-A sw02001 A`` is file ``sw02001`` channel
    ``A``; unchanged without the table. A recording missing from it is an error."""
    from punct.data.tables import read_table

    if not table.is_file():
        return utts
    rows = {}
    for key, fields, lineno in read_table(table, sorted_keys=False):
        if len(fields) != 2:
            raise PunctError(f"expected '<recording> <file> <channel>', found {1 + len(fields)} fields", table, lineno)
        rows[key] = tuple(fields)
    out = []
    for u in utts:
        reco = u.recording or u.id
        if reco not in rows:
            raise PunctError(f"recording {reco!r} of utterance {u.id!r} is not in reco2file_and_channel", table)
        file, channel = rows[reco]
        out.append(dataclasses.replace(u, recording=file, channel=channel))
    return out


def in_recordings(utts: list[Utterance], segments: Path) -> list[Utterance]:
    """The utterances of a data directory with their recordings, in time order, when it has
    ``segments`` (as a data directory's ``ctm`` is read), so that one speaker's consecutive
    segments are decoded as one stream (punct.engine.restorer.stream_words); unchanged without."""
    from punct.io.ctm import read_segments

    if not segments.is_file():
        return utts
    segs = read_segments(segments)
    for u in utts:
        if u.id not in segs:
            raise PunctError(f"utterance {u.id!r} of text is not in segments", segments)
    out = [dataclasses.replace(u, recording=segs[u.id].recording) for u in utts]
    out.sort(key=lambda u: (segs[u.id].recording.encode("utf-8"), segs[u.id].start, u.id.encode("utf-8")))
    return out
