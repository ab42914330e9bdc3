"""Readers and writers of word-level formats, behind one registry that knows every input.

Each format is a module under ``punct/io/`` listed in FORMAT_MODULES, which defines

``NAME``        the format name (``"ctm"``, ``"nlp"``, ``"datadir"``, ...)
``EXTENSIONS``  file name endings it claims (``(".ctm",)``), lower case
``read(path) -> list[Utterance]``            (optional: a write-only format has none)
``read_input(path) -> list[Utterance]``      (optional: how ``punct restore`` reads it, where
                                              that differs from ``read``: plain text keeps
                                              its spelling, a data directory its CTM)
``write(utts, path) -> None``                (optional: a read-only format has none)
``sniff(head: str) -> bool``                 (optional: True if the first lines look like it)
``DIRECTORY``, ``claims(path) -> bool``      (a directory format: a Kaldi data directory,
                                              a folder of files of one format)
``DESCRIPTION`` (optional: what errors call one, ``"a data directory"``; else ``a NAME file``)

Readers validate their input and raise ``punct.errors.PunctError(message, path, line)``;
writers write atomically (``punct.fsutil.atomic_write``). Words carry their label (the mark
after the word), times and speaker when the format has them.

The entries ``read_any`` (what ``punct score`` and the recipes read), ``read_input`` (what
``punct restore`` reads), ``read_hypothesis`` and ``detect_format`` check their path once
(``punct.fsutil.check_input``), then tell its format and hand it to the format's module,
which checks nothing again. Adding a format = one module + one line here.

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

#: format name -> module (imported lazily, in this order when sniffing files and when
#: telling a directory's kind)
FORMAT_MODULES: dict[str, str] = {}
FORMAT_MODULES["folder"] = "punct.io.folder"  # before datadir: a folder without 'text'
FORMAT_MODULES["datadir"] = "punct.io.kaldidir"
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


def by_extension(path: Path) -> str | None:
    """The format whose longest extension ends ``path``'s name, or None."""
    name = path.name.lower()
    matches = [(len(ext), fmt) for fmt in FORMAT_MODULES for ext in getattr(format_module(fmt), "EXTENSIONS", ())
               if name.endswith(ext)]
    return max(matches)[1] if matches else None


def detect_format(path: str | Path, option: str = "a format option", fallback: str | None = None) -> str:
    """The format of ``path``: for a directory the first directory format that claims it
    (``folder``: files of known formats, one recording a file; ``datadir``: a directory with
    ``text``), else by extension, else by sniffing, else ``fallback`` (logged) when given.
    ``option`` names the command's option that gives the format, for the error and the log."""
    path = Path(path)
    check_input(path, "input")
    return _detect(path, option, fallback)


def _detect(path: Path, option: str, fallback: str | None) -> str:
    if path.is_dir():
        for fmt in FORMAT_MODULES:
            mod = format_module(fmt)
            if getattr(mod, "DIRECTORY", False) and mod.claims(path):
                return fmt
        what = "an empty directory" if not any(path.iterdir()) else "a directory"
        raise PunctError(f"{what}: not a data directory (no 'text') and no file of a known format in it", path)
    fmt = by_extension(path)
    if fmt is not None:
        return fmt
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


def read_format(path: Path, fmt: str, as_input: bool = False) -> list[Utterance]:
    """``path`` (checked by the caller) read by format ``fmt``'s module: its ``read_input``
    when ``as_input`` and it has one, else its ``read``. A directory format needs a
    directory and a file format a file."""
    mod = format_module(fmt)
    if path.is_dir() != bool(getattr(mod, "DIRECTORY", False)):
        what = getattr(mod, "DESCRIPTION", f"a {fmt} file")
        raise PunctError(f"is a {'directory' if path.is_dir() else 'file'}, not {what}", path)
    reader = (getattr(mod, "read_input", None) if as_input else None) or getattr(mod, "read", None)
    if reader is None:
        raise PunctError(f"format {fmt!r} cannot be read", path)
    return reader(path)


def read_any(path: str | Path, fmt: str | None = None, option: str = "a format option") -> list[Utterance]:
    """Read ``path`` as ``fmt`` (detected when None; ``option``: see ``detect_format``) into utterances."""
    path = Path(path)
    check_input(path, "input")
    return read_format(path, fmt or _detect(path, option, None))


def read_input(path: str | Path, fmt: str | None = None, segments: str | Path | None = None) -> list[Utterance]:
    """What ``punct restore`` reads: ``path`` (format ``fmt``, detected when None; a file of
    no known format or signature is unpunctuated plain text) as the format's module reads an
    input (``read_input``): plain text as spoken words whose spelling is kept, a data
    directory as its CTM or its text in time order. ``segments``: a Kaldi segments file for
    a CTM of its utterances (or of its recordings, cut into the segments:
    ``ctm.read_with_segments``). An input without any word is an error."""
    path = Path(path)
    check_input(path, "input", empty_ok=False)  # an empty file has no words to restore
    fmt = fmt or _detect(path, "--input-format", "text")
    if segments is not None:
        if fmt != "ctm":
            raise PunctError(f"a segments file goes with a CTM input, not {fmt}", path)
        from punct.io import ctm

        utts = ctm.read_with_segments(path, segments)
    else:
        utts = read_format(path, fmt, as_input=True)
    if not any(u.words for u in utts):
        raise PunctError("no words in the input", path)
    return utts


def read_hypothesis(path: str | Path, fmt: str | None, ref: str | Path, option: str = "a format option") -> list[Utterance]:
    """``read_any`` for a hypothesis scored against reference ``ref``: a CTM scored against a
    Kaldi data directory with ``segments`` is read into those segments' utterances
    (``ctm.read_with_segments``), so that a CTM of whole recordings (Kaldi's ``get_ctm.sh``
    output) pairs with the reference utterance by utterance instead of as one stream."""
    path, ref = Path(path), Path(ref)
    check_input(path, "input")
    fmt = fmt or _detect(path, option, None)
    if fmt == "ctm" and ref.is_dir() and (ref / "text").is_file() and (ref / "segments").is_file():
        from punct.io import ctm

        log.info("%s: read into the segments of %s", path, ref / "segments")
        return ctm.read_with_segments(path, ref / "segments")
    return read_format(path, fmt)


def write_any(utts: Iterable[Utterance], path: str | Path, fmt: str | None = None) -> None:
    """Write utterances to ``path`` as ``fmt`` (by extension when None)."""
    path = Path(path)
    fmt = fmt or by_extension(path)
    if fmt is None:
        raise PunctError(f"cannot tell the output format from the file name (known: {', '.join(format_names())})", path)
    mod = format_module(fmt)
    if not hasattr(mod, "write"):
        raise PunctError(f"format {fmt!r} cannot be written", path)
    mod.write(list(utts), path)
