"""Shared plumbing of entry points: logging, the command line, one-line errors.

Usage in an entry point::

    def main(argv=None) -> int:
        args = build_parser().parse_args(argv)
        return run(_main, args)

``run`` sets up logging, logs the command line, and turns a PunctError (or a
missing file, or a keyboard interrupt) into a single ``error: ...`` line on
stderr with a non-zero exit. It never imports torch.
"""
from __future__ import annotations

import argparse
import logging
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

from punct.errors import PunctError

LOG_FORMAT = "%(asctime)s %(levelname)s %(filename)s:%(lineno)d %(message)s"


#: overrides the default level of ``setup_logging`` (``debug``, ``info``, ``warning``, ``error``)
LOG_LEVEL_ENV = "PUNCT_LOG_LEVEL"


def _stderr_keeps_info() -> bool:
    """True when stderr is a terminal or a regular file (a job's log file): there the INFO
    lines are read; on a pipe or /dev/null (``echo ... | punct restore -`` in a script) not."""
    try:
        if sys.stderr.isatty():
            return True
        return stat.S_ISREG(os.fstat(sys.stderr.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file
        return False


def log_level(verbose: bool = False, quiet: bool = False) -> int:
    """``-v``: DEBUG; ``-q``: ERROR; else $PUNCT_LOG_LEVEL if set, else INFO where stderr
    keeps it (``_stderr_keeps_info``) and WARNING elsewhere."""
    if verbose:
        return logging.DEBUG
    if quiet:
        return logging.ERROR
    name = os.environ.get(LOG_LEVEL_ENV, "").strip().upper()
    if name in ("DEBUG", "INFO", "WARNING", "ERROR"):
        return getattr(logging, name)
    return logging.INFO if _stderr_keeps_info() else logging.WARNING


def setup_logging(verbose: bool = False, quiet: bool = False) -> None:
    """Log with time, level and file:line to stderr, at ``log_level(verbose, quiet)``."""
    level = log_level(verbose, quiet)
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)
    else:
        root.setLevel(level)


def progress_wanted(args: argparse.Namespace) -> bool:
    """Show a progress bar: stderr is a terminal and ``-q`` was not given."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with punct's one-line error: ``error: MESSAGE (see PROG --help)`` on
    stderr and exit status 2, instead of the usage block and ``PROG: error: MESSAGE``."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum`` (a count of words, threads, ...)
    and, when given, at most ``maximum`` (an absurd count would crash or stall the run)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}" if maximum is None else f"integer in {minimum}..{maximum}"
    return parse


#: the most threads a command may be given: a few times the cores of a big machine (torch
#: crashed with a segmentation fault at 100000)
MAX_THREADS = 1024
#: the longest decoding window, in words: far beyond any model's training slice (a hundred
#: million words ran 7 times slower with 4 times the memory, for nothing)
MAX_WINDOW = 100_000
#: the most windows in one batch
MAX_BATCH = 65_536


def finite_float(low: float | None = None, high: float | None = None) -> Callable[[str], float]:
    """An argparse ``type``: a finite number (not nan or inf), within [low, high] when given."""
    import math

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be in [{low}, {high}], got {text}")
        return value

    parse.__name__ = "finite number"
    return parse


def require_inputs(paths: Iterable[str | Path], what: str = "input") -> None:
    """Raise a PunctError naming the first path that cannot be read as ``what``: missing, a
    device, an empty file, or not a directory when ``what`` is a kind of directory, not a file
    when it is a kind of file (``punct.fsutil.input_problem``)."""
    from punct.fsutil import check_input

    want = "dir" if what.endswith("directory") else "file" if what.endswith("file") else "any"
    for p in paths:
        if p is None:
            continue
        check_input(p, what, want, empty_ok=False)


#: OpenMP threads that wait for work sleep instead of spinning (the user's setting wins).
#: Spinning threads of two jobs that share two cores made torch at 2 threads about 7x
#: slower (a bidirectional GRU's forward and backward, measured with a second job running);
#: it must be in the environment before torch is imported, which entry points do lazily.
DEFAULT_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def run(func: Callable[[argparse.Namespace], Any], args: argparse.Namespace, prog: str | None = None) -> int:
    """Run ``func(args)``; map errors to one line on stderr and an exit code."""
    for key, value in DEFAULT_ENV.items():
        os.environ.setdefault(key, value)
    setup_logging(getattr(args, "verbose", False), getattr(args, "quiet", False))
    name = prog or Path(sys.argv[0]).name
    logging.getLogger("punct").info("%s %s", name, " ".join(shlex.quote(a) for a in sys.argv[1:]))
    try:
        rc = func(args)
    except PunctError as e:
        if not e.quiet:
            print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except FileNotFoundError as e:
        print(f"error: {e.filename}: file not found", file=sys.stderr)
        return 1
    except OSError as e:  # a directory where a file belongs and the reverse, no permission, a full disk
        where = f"{e.filename}: " if e.filename is not None else ""
        what = (e.strerror or str(e)).lower()
        if isinstance(e, FileExistsError) and e.filename is not None and Path(e.filename).is_file():
            what = "is a file where a directory is needed (an output path goes through it)"
        print(f"error: {where}{what}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as e:
        print(f"error: input is not valid UTF-8: {e.reason} at byte {e.start}", file=sys.stderr)
        return 1
    except RecursionError:  # a reader's last guard; punct.fsutil.loads_json names the file
        print("error: an input is nested too deeply to read", file=sys.stderr)
        return 1
    except MemoryError:
        print("error: out of memory (an input or an option too large?)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except ImportError as e:  # Ctrl-C while a compiled module (onnxruntime, torch) initializes
        if not _interrupted(e):
            raise
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0 if rc is None else int(rc)


def _interrupted(e: BaseException) -> bool:
    """True when ``e`` was raised because of a KeyboardInterrupt (a compiled module's import
    turns one into ImportError('initialization failed'))."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options every entry point has (``-v``, ``-q``)."""
    g = parser.add_mutually_exclusive_group()
    g.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="log errors only, no progress bar (default: info messages on a terminal or into a log "
                        f"file, warnings elsewhere; ${LOG_LEVEL_ENV} sets it)")
