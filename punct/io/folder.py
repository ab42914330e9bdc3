"""A folder of word-level files, one recording a file, as a format of punct.io (``folder``):
Earnings-21's ``.nlp`` files, a folder of CTMs or of an engine's JSON. Every file of a known
format (by extension, in name order) is read; files of other kinds (a README) are left out.
A file of one utterance becomes utterance FILE_STEM, one of several FILE_STEM/UTT_ID, so
that two folders of the same recordings (a reference and an engine's output) give the same
utterance ids and ``punct score`` pairs them by id."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from punct.errors import PunctError
from punct.text.words import Utterance

NAME = "folder"
EXTENSIONS: tuple[str, ...] = ()
#: a directory format: ``claims(path)`` tells one of its directories
DIRECTORY = True
DESCRIPTION = "a folder of word files"


def files(path: Path) -> list[Path]:
    """The files of ``path`` that have a known format by their extension."""
    from punct.io import by_extension

    return sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".") and by_extension(p))


def claims(path: Path) -> bool:
    """True for a directory without ``text`` that holds files of a known format."""
    return not (path / "text").exists() and bool(files(path))


def read(path: str | Path) -> list[Utterance]:
    from punct.fsutil import check_input
    from punct.io import by_extension, read_format

    path = Path(path)
    found = files(path) if path.is_dir() else []
    if not found:
        raise PunctError("not a data directory (no 'text') and no file of a known format in it", path)
    kinds: dict[str, list[Path]] = {}
    for f in found:
        kinds.setdefault(by_extension(f) or "", []).append(f)
    if len(kinds) > 1:
        listed = ", ".join(f"{len(v)} {k} ({v[0].name}{', ...' if len(v) > 1 else ''})" for k, v in sorted(kinds.items()))
        raise PunctError(f"a folder of word files must hold one format, this one has {listed}", path)
    (fmt,) = kinds
    out: list[Utterance] = []
    holder: dict[tuple, Path] = {}  # (recording, channel) -> the file that holds it
    for f in found:
        check_input(f, "file", "file")  # each file of the folder once, as the entry checks the folder
        utts = read_format(f, fmt)
        for u in utts:  # one recording a file: two files of one recording would be decoded as one stream
            if u.recording is None:
                continue
            first = holder.setdefault((u.recording, u.channel), f)
            if first != f:
                raise PunctError(f"{first.name} and {f.name} both hold recording {u.recording!r}"
                                 f"{f' channel {u.channel}' if u.channel else ''} (a folder holds one file a "
                                 "recording: join them, or give each file alone)", path)
        stem = f.name[: -len(f.suffix)] if f.suffix else f.name
        out += [replace(u, id=stem) for u in utts] if len(utts) == 1 else \
            [replace(u, id=f"{stem}/{u.id}") for u in utts]
    ids = [u.id for u in out]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise PunctError(f"two files give utterance {dup!r} (files that differ only in their extension?)", path)
    return out
