"""Kaldi table files: UTF-8 ``key value...`` lines, one record a line, keys unique and (for
the files of a data directory) sorted in byte order, as ``LC_ALL=C sort`` leaves them.

The one reader and writer of them (``iter_table``, ``read_table``, ``write_table``), and of
the two tables that point at audio: ``wav.scp`` (``read_wav_scp``) and ``segments``
(``read_segments``, for data directories and for CTMs alike). Every error names the file
and the line. ``punct.audio`` and ``punct.data.datadir`` both build on it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from punct.errors import PunctError
from punct.fsutil import atomic_write, iter_lines


def iter_table(path: str | Path, sorted_keys: bool = True) -> Iterator[tuple[int, str, str]]:
    """``key rest-of-line`` lines as (line number, key, the rest stripped, "" when none): no
    empty line, unique keys and, unless ``sorted_keys=False`` (a table made by hand beside a
    CTM), keys in byte order (Kaldi's ``LC_ALL=C`` sort)."""
    path = Path(path)
    if not path.is_file():
        raise PunctError("is a directory, not a file" if path.is_dir() else "file not found", path)
    seen: set[str] = set()
    prev: bytes | None = None
    for lineno, line in iter_lines(path):
        parts = line.strip().split(None, 1)
        if not parts:
            raise PunctError("empty line", path, lineno)
        key = parts[0]
        if not sorted_keys:
            if key in seen:
                raise PunctError(f"duplicate key {key!r}", path, lineno)
            seen.add(key)
        else:
            b = key.encode("utf-8")
            if prev is not None and b == prev:
                raise PunctError(f"duplicate key {key!r}", path, lineno)
            if prev is not None and b < prev:
                raise PunctError(f"key {key!r} out of order (files must be sorted with LC_ALL=C)", path, lineno)
            prev = b
        yield lineno, key, parts[1] if len(parts) > 1 else ""


def read_table(path: str | Path, min_fields: int = 1, allow_empty_value: bool = True,
               sorted_keys: bool = True) -> list[tuple[str, list[str], int]]:
    """Read ``key value...`` lines as (key, values, line number), checked as ``iter_table``."""
    rows: list[tuple[str, list[str], int]] = []
    for lineno, key, rest in iter_table(path, sorted_keys):
        values = rest.split()
        if len(values) < min_fields and not (allow_empty_value and not values):
            raise PunctError(f"expected a key and at least {min_fields} value(s), got {len(values)}", path, lineno)
        rows.append((key, values, lineno))
    return rows


#: the latest time a word may start or end at, in seconds (30 days): a larger one is a unit or
#: format mistake (a CTM start of 1e300 s would be written back with 300 digits)
MAX_SECONDS = 30 * 24 * 3600.0


def time_problem(x: float) -> str | None:
    """Why ``x`` is no time in seconds (not finite, negative, beyond MAX_SECONDS), or None."""
    if not math.isfinite(x):
        return "is not a finite number"
    if x < 0:
        return "is negative"
    if x > MAX_SECONDS:
        return f"is beyond {MAX_SECONDS:g} s (30 days): not a time in seconds"
    return None


def seconds(text: str, what: str, path: str | Path, lineno: int | None) -> float:
    """A field that must be a time or duration in seconds (``time_problem``), or a PunctError."""
    x = finite_number(text, what, path, lineno)
    if x < 0:
        raise PunctError(f"negative {what} {text}", path, lineno)
    if time_problem(x) is not None:
        raise PunctError(f"{what} {text} {time_problem(x)}", path, lineno)
    return x


def finite_number(text: str, what: str, path: str | Path, lineno: int | None) -> float:
    """A field that must be a finite number, or a PunctError naming ``what`` and the line."""
    try:
        x = float(text)
    except ValueError:
        raise PunctError(f"{what} {text!r} is not a number", path, lineno) from None
    if not math.isfinite(x):
        raise PunctError(f"{what} {text!r} is not a finite number", path, lineno)
    return x


@dataclass(frozen=True)
class Segment:
    """One line of a Kaldi ``segments`` file: an utterance's span of a recording, in seconds
    (``end`` -1: to the end of the recording, as Kaldi's ``extract-segments`` reads it)."""

    utt: str
    recording: str
    start: float
    end: float

    @property
    def stop(self) -> float:
        """The end, infinite for an open one (-1)."""
        return math.inf if self.end < 0 else self.end


def read_segments(path: str | Path, sorted_keys: bool = True) -> dict[str, Segment]:
    """Read a Kaldi ``segments`` file (``<utt> <recording> <start> <end>``): unique utterance
    ids (in byte order unless ``sorted_keys=False``), finite times with 0 <= start < end or
    end -1. The one reader of segments files, for data directories and for CTMs alike."""
    path = Path(path)
    if path.is_dir():
        raise PunctError("is a directory, not a segments file", path)
    out: dict[str, Segment] = {}
    for utt, f, lineno in read_table(path, sorted_keys=sorted_keys):
        if len(f) != 3:
            raise PunctError(f"expected '<utterance> <recording> <start> <end>', got {len(f) + 1} fields", path, lineno)
        start = finite_number(f[1], "segment start", path, lineno)
        end = finite_number(f[2], "segment end", path, lineno)
        if max(start, end) > MAX_SECONDS:
            raise PunctError(f"segment time {max(start, end):g} {time_problem(max(start, end))}", path, lineno)
        if start < 0 or (end != -1 and end <= start):
            raise PunctError(f"bad segment times {f[1]} {f[2]} (need 0 <= start < end, or end -1)", path, lineno)
        out[utt] = Segment(utt, f[0], start, end)
    if not out:
        raise PunctError("no segments in it (expected lines '<utterance> <recording> <start> <end>')", path)
    return out


def write_table(path: str | Path, rows: Mapping[str, Sequence[str] | str]) -> None:
    """Write ``key value...`` lines sorted in byte order, atomically."""
    keys = sorted(rows, key=lambda k: k.encode("utf-8"))
    with atomic_write(path) as f:
        for k in keys:
            if not k or any(c.isspace() for c in k):
                raise PunctError(f"invalid key {k!r} (empty or contains white space)", path)
            v = rows[k]
            v = v if isinstance(v, str) else " ".join(v)
            f.write(f"{k} {v}\n" if v else f"{k}\n")


def spk2utt_from_utt2spk(utt2spk: Mapping[str, str]) -> dict[str, list[str]]:
    """Kaldi's spk2utt from utt2spk: each speaker's utterances in byte order."""
    out: dict[str, list[str]] = {}
    for utt in sorted(utt2spk, key=lambda k: k.encode("utf-8")):
        out.setdefault(utt2spk[utt], []).append(utt)
    return out


def read_wav_scp(path: str | Path) -> dict[str, str]:
    """Read ``wav.scp`` (``<recording> <path>`` or ``<recording> <command> |``)."""
    out = {}
    for lineno, key, value in iter_table(path):
        if not value:
            raise PunctError(f"expected '<recording> <path or command |>', got only {key!r}", path, lineno)
        out[key] = value
    return out
