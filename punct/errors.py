"""The one exception type that entry points turn into a one-line error."""
from __future__ import annotations

from pathlib import Path


class PunctError(Exception):
    """A user-facing error about an input: names the file, the line and the problem.

    ``str(err)`` is ``"FILE:LINE: message"`` (or ``"FILE: message"`` without a
    line), which is what entry points print on a single line.
    """

    #: the exit status of an entry point that stops on this error
    exit_code = 1
    #: True when another process prints this same error: every rank of a data-parallel run
    #: stops on it, and rank 0 alone tells it (the entry point then exits without a line)
    quiet = False

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        return where + self.message
