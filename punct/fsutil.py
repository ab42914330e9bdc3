"""Atomic writes and done-markers: outputs are never half-written; a lock keeps two
runs out of one directory."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Callable, Iterator, TextIO

from punct.errors import PunctError


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[str]:
    """A temporary path next to ``path`` for a writer that wants a file name (a library's
    ``save(name)``); renamed onto ``path`` when the block succeeds, removed when it fails."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # a writer that reopens the file keeps this mode, not mkstemp's 0600
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[TextIO]:
    """Open a temporary file next to ``path``; rename it onto ``path`` only on success."""
    with atomic_path(path) as tmp:
        if "b" in mode:
            f = open(tmp, mode)
        else:
            f = open(tmp, mode, encoding=encoding, newline="\n")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())


#: written into every directory atomic_dir builds: the mark that a later run may replace it
OUTPUT_MARK = ".punct-output"


def write_json(path: str | Path, data: dict, indent: int = 1) -> None:
    """``data`` as sorted JSON (a report, a stats.json), written atomically."""
    import json

    with atomic_write(path) as f:
        json.dump(data, f, indent=indent, sort_keys=True)
        f.write("\n")


def check_replaceable(path: str | Path, ours: Callable[[Path], bool] | None = None) -> None:
    """Refuse to replace ``path`` unless it is missing, an empty directory, or a directory an
    earlier run built (``OUTPUT_MARK``, or ``ours(path)`` for outputs older than the mark):
    an output option pointed by mistake at an input or at someone's folder must not wipe it."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_dir():
        raise PunctError("exists and is not a directory (remove it or choose another output)", path)
    if (path / OUTPUT_MARK).is_file() or (ours is not None and ours(path)) or not any(path.iterdir()):
        return
    raise PunctError("exists and is not an output of this command, which would replace it whole (remove it "
                     "or choose another output)", path)


@contextlib.contextmanager
def atomic_dir(path: str | Path, ours: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Build a directory under a temporary name; swap it onto ``path`` on success.

    An existing ``path`` is only replaced after the new one is complete, and only when it is
    one this function built before or ``ours`` says it is (``check_replaceable``).
    """
    import shutil

    path = Path(path)
    check_replaceable(path, ours)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent))
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private (0700)
    try:
        (tmp / OUTPUT_MARK).write_text("built by punct; a rerun replaces this directory whole\n")
        yield tmp
        old = None
        if path.exists():
            old = path.with_name("." + path.name + ".old")
            if old.exists():
                shutil.rmtree(old)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextlib.contextmanager
def exclusive(path: str | Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created if missing) for the block.

    When another process holds it, raise a PunctError naming that process (host and pid,
    which the holder writes into the file) instead of waiting: ``what`` ("a training") is
    already at work on the same outputs. The holder removes the file when the block ends;
    the kernel drops the lock however the holder ends (SIGKILL included), so a file left
    behind by a killed holder never blocks a rerun.
    """
    import fcntl
    import socket

    path = Path(path)
    locked = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise PunctError(f"{what} is already running here ({holder}); wait for it to end, or stop it "
                             "(kill -TERM its pid) and rerun", path) from None
        except OSError as e:  # a file system without locks (some network mounts): go on unguarded
            import logging

            logging.getLogger(__name__).warning("%s: cannot lock (%s); nothing keeps a second run out of this "
                                                "directory", path, e.strerror)
            break
        try:  # the lock is good if the file is still the one at ``path`` (its last holder removes it)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                locked = True
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"host {socket.gethostname()}, pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        if locked:
            try:
                os.unlink(path)  # while still held, so nobody locks the removed file in between
            except FileNotFoundError:
                pass
        os.close(fd)  # releases the lock


def output_lock(out: str | Path, what: str) -> contextlib.AbstractContextManager[None]:
    """``exclusive`` for a command that writes the file or directory ``out``: the lock is
    ``.NAME.lock`` beside it, so a second command writing the same output stops at once
    instead of racing the first one's atomic swap."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    return exclusive(out.parent / f".{out.name}.lock", f"{what} into {out}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def done_marker(path: str | Path) -> Path:
    """The ``.done`` marker that says ``path`` (a file or directory) is finished."""
    path = Path(path)
    return path.parent / (path.name + ".done") if path.suffix or not path.is_dir() else path / ".done"


def is_done(path: str | Path) -> bool:
    """True when PATH has its ``.done`` marker."""
    return done_marker(path).exists()


def mark_done(path: str | Path) -> None:
    """Write PATH's ``.done`` marker (after its outputs are complete)."""
    m = done_marker(path)
    m.parent.mkdir(parents=True, exist_ok=True)
    m.write_text("done\n")


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, line without its line end) of a UTF-8 text file; a line that is
    not UTF-8 raises PunctError naming the file and line. A byte order mark at the start
    of the first line (Windows editors write one) is dropped; it would otherwise stick to
    the first key or word."""
    from punct.errors import PunctError

    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise PunctError("line is not valid UTF-8", path, lineno) from None
            if lineno == 1:
                line = line.lstrip("\ufeff")
            yield lineno, line
