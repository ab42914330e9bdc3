"""Atomic writes and done-markers: outputs are never half-written; a lock keeps two
runs out of one directory."""
from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Iterator, TextIO

from punct.errors import PunctError


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[str]:
    """A temporary path next to ``path`` for a writer that wants a file name (a library's
    ``save(name)``); renamed onto ``path`` when the block succeeds, removed when it fails.
    The temporary file is named with the writer's pid and locked while written, so a later
    run of the same output removes what a killed run left (``remove_stale_temps``)."""
    path = Path(path)
    if _special(path):  # /dev/null, /dev/stdout, a pipe: written in place, never replaced by a file
        try:
            yield str(path)
        except OSError as e:
            if e.filename not in (None, str(path)):
                raise
            raise _write_error(e, path) from None
        return
    if path.is_dir():
        raise PunctError("is a directory, where an output file belongs", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    fd, tmp = _temp_beside(tempfile.mkstemp, path)
    _hold(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # a writer that reopens the file keeps this mode, not mkstemp's 0600
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename in (None, tmp):  # a full disk, an I/O error: name the output
            raise _write_error(e, path) from None
        raise
    finally:
        os.close(fd)


class OutputError(PunctError, OSError):
    """An output that cannot be written: a PunctError (one line naming the output), and an
    OSError still for the callers that catch one around a write they can do without (a cache)."""


def _write_error(e: OSError, path: Path) -> OutputError:
    """The one-line error of an output that could not be written (``e``: no space left, an I/O
    error), naming ``path`` rather than the temporary file or nothing."""
    return OutputError(f"cannot write it: {(e.strerror or str(e)).lower()}", path)


def _special(path: Path) -> bool:
    """True when ``path`` exists and is a device, pipe or socket (not a file or directory)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.{os.getpid()}-"


def _temp_beside(make, path: Path):
    """``make`` (tempfile.mkstemp or mkdtemp) of a temporary name beside ``path``; a directory
    that takes no new file is an error naming ``path``, the output asked for, not that name."""
    try:
        return make(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise OutputError(f"cannot create a file in {path.parent}: {(e.strerror or str(e)).lower()}", path) from None


def _hold(fd: int) -> None:
    """An flock on ``fd`` (a temporary output), dropped by the kernel however its holder ends."""
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _in_use(p: Path) -> bool:
    """True when another open file holds the lock of ``p`` (a writer still at work)."""
    import fcntl

    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops a lock we took
    return False


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Remove the temporary files and directories that runs killed while writing ``path``
    left beside it (``.NAME.PID-XXXX.tmp`` whose process is gone and which nobody holds
    locked; ``.NAME.old`` of an interrupted directory swap); returns what was removed."""
    import re
    import shutil

    path = Path(path)
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    pattern = re.compile(re.escape("." + path.name + ".") + r"(?:(\d+)-)?[A-Za-z0-9_]+\.tmp$")
    removed = []
    for p in entries:
        m = pattern.match(p.name)
        if m is None and p.name != f".{path.name}.old":
            continue
        if m is not None and m.group(1) is not None and _alive(int(m.group(1))):
            continue
        if m is None and path.exists() is False:  # an .old whose swap may still be under way
            continue
        if _in_use(p):
            continue
        try:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
            removed.append(p)
        except OSError:
            continue
    if removed:
        import logging

        logging.getLogger(__name__).info("removed %d temporary file(s) a killed run left beside %s (%s)",
                                         len(removed), path, removed[0].name)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


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
            if stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a device or pipe (``_special``) has nothing to sync
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
    remove_stale_temps(path)
    tmp = Path(_temp_beside(tempfile.mkdtemp, path))
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private (0700)
    fd = os.open(tmp, os.O_RDONLY)
    _hold(fd)
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
    finally:
        os.close(fd)


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
    not UTF-8, or holds a NUL byte, raises PunctError naming the file and line. A byte order mark at the start
    of the first line (Windows editors write one) is dropped; it would otherwise stick to
    the first key or word."""
    from punct.errors import PunctError

    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise PunctError("line is not valid UTF-8", path, lineno) from None
            if "\x00" in line:  # valid UTF-8, but no text has it: a binary file
                raise PunctError("line holds a NUL byte (a binary file, not text)", path, lineno)
            if lineno == 1:
                line = line.lstrip("\ufeff")
            yield lineno, line


def input_problem(path: str | Path, want: str = "any", empty_ok: bool = True) -> str | None:
    """Why ``path`` cannot be read as an input, in a few words, or None when it can.

    ``want``: ``file`` (a regular file or a pipe), ``dir`` (a directory) or ``any``. A pipe
    or socket (a process substitution ``<(...)``, ``/dev/stdin`` fed by a pipe) is readable
    once (``is_stream``); a device (``/dev/zero``, a terminal) is refused, as it never ends
    or waits for typing. ``empty_ok=False`` refuses an empty regular file.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return "not found (a broken symbolic link)" if os.path.islink(p) else "not found"
    except NotADirectoryError:
        return "not found (a file stands where its path needs a directory)"
    except PermissionError:
        return "permission denied (a directory on its path cannot be searched)"
    except OSError as e:
        return (e.strerror or str(e)).lower()
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        if want == "file":
            return "is a directory, not a file"
        if not os.access(p, os.R_OK | os.X_OK):
            return "permission denied (cannot list this directory)"
        return None
    if stat.S_ISREG(mode):
        if want == "dir":
            return "is a file, not a directory"
        if not os.access(p, os.R_OK):
            return "permission denied"
        if not empty_ok and st.st_size == 0:
            return "is empty (0 bytes)"
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "is a pipe, not a directory" if want == "dir" else None
    kind = "character device" if stat.S_ISCHR(mode) else "block device" if stat.S_ISBLK(mode) else "special file"
    return f"is a {kind}, not a regular file (it would be read without end or wait for input)"


def check_input(path: str | Path, what: str = "input", want: str = "any", empty_ok: bool = True) -> None:
    """A PunctError naming ``path`` when ``input_problem`` finds one (``what`` names the input:
    ``model file``, ``reference``)."""
    problem = input_problem(path, want, empty_ok)
    if problem is not None:
        if problem.startswith(("not found", "is empty")):
            problem = f"{what} {problem}"
        elif problem.endswith(("not a directory", "not a file")) and what.endswith(("directory", "file")):
            problem = problem.rsplit(" not a ", 1)[0] + f" not a {what}"
        raise PunctError(problem, path)


def is_stream(path: str | Path) -> bool:
    """True for a pipe or socket (``<(...)``, ``/dev/stdin`` from a pipe): readable only once."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def spooled_input(path: str | Path) -> Iterator[Path]:
    """``path`` itself, or for a pipe (``is_stream``) a temporary copy of all it gives, so that
    a reader may look at it twice (tell the format, then read); the copy keeps the pipe's
    name, and a PunctError about the copy is raised about ``path``."""
    import shutil

    if not is_stream(path):
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="punct-input-") as d:
        tmp = Path(d) / (Path(path).name or "input")
        with open(path, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
        try:
            yield tmp
        except PunctError as e:
            if e.path != str(tmp):
                raise
            raise PunctError(e.message, path, e.line) from None


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when ``a`` and ``b`` both exist and are one file or directory (a hard or
    symbolic link, another spelling of the path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_input(output: str | Path | None, inputs: Iterable[str | Path | None], option: str = "-o") -> None:
    """Refuse an output that is one of the inputs (by inode, so a link or another spelling
    counts), or a directory holding one: writing it would replace what is being read."""
    if output is None:
        return
    out = Path(output)
    for i in inputs:
        if i is None or str(i) == "-":
            continue
        if same_file(out, i):
            raise PunctError(f"{option} is the input {i}: the output would replace it (choose another output)", out)


#: the deepest nesting of lists and objects a JSON input may have: word formats need a few
#: levels; Python's reader would end in a RecursionError at about a thousand
MAX_JSON_DEPTH = 100


def loads_json(text: str, path: str | Path, line: int | None = None, max_depth: int = MAX_JSON_DEPTH):
    """``json.loads(text)``; a PunctError naming ``path`` and the line when it is nested deeper
    than ``max_depth`` or is not JSON (``json.JSONDecodeError`` is left to callers that try
    another reading, such as JSON Lines, so it is raised as is)."""
    import json
    import re

    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > max_depth:
                at = (line or 1) + text.count("\n", 0, m.start())
                raise PunctError(f"JSON nested deeper than {max_depth} levels (not a word list)", path, at)
        elif c in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except RecursionError:
        raise PunctError("JSON nested too deeply to read", path, line) from None


def claim_dir(path: str | Path, ours: Callable[[Path], bool] | None = None) -> Path:
    """Make ``path`` a directory this command may write files into: created here (and marked
    with ``OUTPUT_MARK``), or an existing one that is empty, marked, or ``ours`` (an older
    output); a PunctError for a folder of someone else's files, which it would overwrite."""
    path = Path(path)
    if path.is_dir() and any(path.iterdir()) and not (path / OUTPUT_MARK).is_file() and not (ours and ours(path)):
        raise PunctError("is a folder this command did not make, and not empty: its files could be overwritten "
                         "(give a new or empty folder)", path)
    if path.exists() and not path.is_dir():
        raise PunctError("exists and is not a directory", path)
    path.mkdir(parents=True, exist_ok=True)
    mark = path / OUTPUT_MARK
    if not mark.exists():
        mark.write_text("written by punct; a rerun may write here again\n")
    return path


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``, in hex (read in 4 MB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()
