"""Readers and writers of word-level formats, behind one registry.

Each format is a module under ``punct/io/`` that defines

``NAME``        the format name (``"ctm"``, ``"nlp"``, ...)
``EXTENSIONS``  file name endings it claims (``(".ctm",)``), lower case
``read(path) -> list[Utterance]``            (optional: a write-only format has none)
``write(utts, path) -> None``                (optional: a read-only format has none)
``sniff(head: str) -> bool``                 (optional: True if the first lines look like it)

and is listed in FORMAT_MODULES. Readers validate their input and raise
``punct.errors.PunctError(message, path, line)``; writers write atomically
(``punct.fsutil.atomic_write``). Words carry their label (the mark after the
word), times and speaker when the format has them. A data directory is read
through ``punct.data.datadir``; any other directory as a folder of files of one
format, one recording a file (``read_folder``). Adding a format = one module +
one line here.

Importing this package imports no format module and no third-party package.
"""
from __future__ import annotations

import importlib
import logging
from pathlib import Path
from types import ModuleType
from typing import Iterable

from punct.errors import PunctError
from punct.fsutil import check_input
from punct.text.words import Utterance

log = logging.getLogger(__name__)

#: format name -> module (imported lazily, in this order when sniffing)
FORMAT_MODULES: dict[str, str] = {}
FORMAT_MODULES["nlp"] = "punct.io.nlp"
FORMAT_MODULES["iwslt"] = "punct.io.iwslt"
# strict sniffers before the lenient plain-text one (detect_format tries them in this order)
FORMAT_MODULES["ctm"] = "punct.io.ctm"
FORMAT_MODULES["textgrid"] = "punct.io.textgrid"
FORMAT_MODULES["json"] = "punct.io.wordjson"
FORMAT_MODULES["srt"] = "punct.io.subtitles"
FORMAT_MODULES["vtt"] = "punct.io.subtitles"
FORMAT_MODULES["text"] = "punct.io.text"


def register_format(name: str, module: str) -> None:
    """Make ``module`` (a dotted module path) the reader/writer of format ``name``."""
    FORMAT_MODULES[name] = module


def format_module(name: str) -> ModuleType:
    """The module of format ``name``; a PunctError lists the known formats."""
    if name not in FORMAT_MODULES:
        raise PunctError(f"unknown format {name!r} (known: {', '.join(sorted(FORMAT_MODULES)) or 'none'})")
    return importlib.import_module(FORMAT_MODULES[name])


def format_names() -> list[str]:
    """The names of the formats punct reads and writes."""
    return sorted(FORMAT_MODULES)


def _by_extension(path: Path) -> str | None:
    name = path.name.lower()
    matches = []
    for fmt in FORMAT_MODULES:
        exts = getattr(format_module(fmt), "EXTENSIONS", ())
        for ext in exts:
            if name.endswith(ext):
                matches.append((len(ext), fmt))
    return max(matches)[1] if matches else None


def _folder_files(path: Path) -> list[Path]:
    """The files of a folder of word-level files that have a known format by their extension."""
    return sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".") and _by_extension(p))


def detect_format(path: str | Path, option: str = "a format option", fallback: str | None = None) -> str:
    """The format of ``path``: ``datadir`` for a data directory (a directory with ``text``),
    ``folder`` for another directory that holds files of known formats (one recording a file:
    Earnings-21's ``.nlp`` files, a folder of CTMs), else by extension, else by sniffing, else
    ``fallback`` (logged) when given. ``option`` names the command's option that gives the
    format, for the error and the log."""
    path = Path(path)
    if path.is_dir():
        check_input(path, "directory", "dir")
        if not (path / "text").exists() and _folder_files(path):
            return "folder"
        if not any((path / name).exists() for name in ("text", "ctm")):
            what = "an empty directory" if not any(path.iterdir()) else "a directory"
            raise PunctError(f"{what}: not a data directory (no 'text') and no file of a known format in it", path)
        return "datadir"
    fmt = _by_extension(path)
    if fmt is not None:
        return fmt
    check_input(path, "file", "file")
    with open(path, "rb") as f:
        head = f.read(8192).decode("utf-8", errors="replace").lstrip("\ufeff")
    if not head.strip():
        raise PunctError("empty file (nothing to read)", path)
    for fmt in FORMAT_MODULES:
        sniff = getattr(format_module(fmt), "sniff", None)
        if sniff is not None and sniff(head):
            return fmt
    if fallback is not None:
        log.info("%s: no format recognized by name or content: read as %s (else give %s)", path, fallback, option)
        return fallback
    raise PunctError(f"cannot tell the format of this file from its name or content (give it with {option}; "
                     f"known: {', '.join(format_names())})", path)


def read_any(path: str | Path, fmt: str | None = None, option: str = "a format option") -> list[Utterance]:
    """Read ``path`` as ``fmt`` (detected when None; ``option``: see ``detect_format``) into utterances."""
    path = Path(path)
    fmt = fmt or detect_format(path, option)
    if fmt == "datadir":
        from punct.data.datadir import load_utterances

        return load_utterances(path, require_labels=False)
    if fmt == "folder":
        return read_folder(path)
    mod = format_module(fmt)
    if not hasattr(mod, "read"):
        raise PunctError(f"format {fmt!r} cannot be read", path)
    check_input(path, "file", "file")
    return mod.read(path)


def read_hypothesis(path: str | Path, fmt: str | None, ref: str | Path, option: str = "a format option") -> list[Utterance]:
    """``read_any`` for a hypothesis scored against reference ``ref``: a CTM scored against a
    Kaldi data directory with ``segments`` is read into those segments' utterances
    (``ctm.read_with_segments``), so that a CTM of whole recordings (Kaldi's ``get_ctm.sh``
    output) pairs with the reference utterance by utterance instead of as one stream."""
    path, ref = Path(path), Path(ref)
    fmt = fmt or detect_format(path, option)
    if fmt == "ctm" and ref.is_dir() and (ref / "text").is_file() and (ref / "segments").is_file():
        from punct.io import ctm

        log.info("%s: read into the segments of %s", path, ref / "segments")
        return ctm.read_with_segments(path, ref / "segments")
    return read_any(path, fmt, option)


def read_folder(path: str | Path) -> list[Utterance]:
    """Every file of a known format in directory ``path`` (by extension, in name order): a file of
    one utterance becomes utterance FILE_STEM, one of several FILE_STEM/UTT_ID. Files of other
    kinds (a README) are left out. Two folders of the same recordings (a reference and an
    engine's output) so give the same utterance ids, and punct score pairs them by id."""
    from dataclasses import replace

    path = Path(path)
    files = _folder_files(path) if path.is_dir() else []
    if not files:
        raise PunctError("not a data directory (no 'text') and no file of a known format in it", path)
    kinds: dict[str, list[Path]] = {}
    for f in files:
        kinds.setdefault(_by_extension(f) or "", []).append(f)
    if len(kinds) > 1:
        found = ", ".join(f"{len(v)} {k} ({v[0].name}{', ...' if len(v) > 1 else ''})" for k, v in sorted(kinds.items()))
        raise PunctError(f"a folder of word files must hold one format, this one has {found}", path)
    (fmt,) = kinds
    out: list[Utterance] = []
    for f in files:
        utts = read_any(f, fmt)
        stem = f.name[: -len(f.suffix)] if f.suffix else f.name
        out += [replace(u, id=stem) for u in utts] if len(utts) == 1 else \
            [replace(u, id=f"{stem}/{u.id}") for u in utts]
    ids = [u.id for u in out]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise PunctError(f"two files give utterance {dup!r} (files that differ only in their extension?)", path)
    return out


def write_any(utts: Iterable[Utterance], path: str | Path, fmt: str | None = None) -> None:
    """Write utterances to ``path`` as ``fmt`` (by extension when None)."""
    path = Path(path)
    utts = list(utts)
    if fmt is None:
        name = path.name.lower()
        cands = [(len(e), f) for f in FORMAT_MODULES for e in getattr(format_module(f), "EXTENSIONS", ()) if name.endswith(e)]
        if not cands:
            raise PunctError(f"cannot tell the output format from the file name (known: {', '.join(format_names())})", path)
        fmt = max(cands)[1]
    if fmt == "datadir":
        from punct.data.datadir import write_datadir

        write_datadir(path, utts)
        return
    mod = format_module(fmt)
    if not hasattr(mod, "write"):
        raise PunctError(f"format {fmt!r} cannot be written", path)
    mod.write(utts, path)
