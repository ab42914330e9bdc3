"""A Kaldi data directory as a format of punct.io (``datadir``): a directory with ``text``
(or, for an input to restore, with a ``ctm`` alone).

``read`` gives the directory's utterances as punct.data.datadir loads them: its words with
their labels, times and speakers where the directory has them (what ``punct score`` reads).
``read_input`` gives it as an input to restore: its ``ctm`` when it has one (with its
``segments`` and ``utt2spk``), else its ``text`` (+ ``word_times``) in its recordings' time
order (``in_recordings``, so that one speaker's consecutive segments are decoded as one
stream), with the file and channel of its ``reco2file_and_channel``. ``write`` writes one
(punct.data.datadir.write_datadir).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable

from punct.errors import PunctError
from punct.text.words import Utterance

NAME = "datadir"
EXTENSIONS: tuple[str, ...] = ()
#: a directory format: ``claims(path)`` tells one of its directories
DIRECTORY = True
DESCRIPTION = "a data directory"


def claims(path: Path) -> bool:
    """True for a directory with ``text`` or ``ctm``."""
    return any((path / name).exists() for name in ("text", "ctm"))


def read(path: str | Path) -> list[Utterance]:
    from punct.data.datadir import load_utterances

    return load_utterances(path, require_labels=False)


def read_input(path: str | Path) -> list[Utterance]:
    from punct.io import ctm

    path = Path(path)
    if (path / "ctm").is_file():
        utts = ctm.read_datadir(path)
    else:
        utts = in_recordings(read(path), path / "segments")
    return with_files_and_channels(utts, path / "reco2file_and_channel")


def write(utts: Iterable[Utterance], path: str | Path) -> None:
    from punct.data.datadir import write_datadir

    write_datadir(path, list(utts))


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
