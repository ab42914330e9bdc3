"""punct.errors.PunctError: the one line an entry point prints, naming the file and the line when
they are known, and what it keeps for the code that catches it."""
from __future__ import annotations

from pathlib import Path

import pytest

from punct.errors import PunctError


def test_the_message_names_the_file_and_line_when_known():
    assert str(PunctError("bad header", Path("data/text"), 3)) == "data/text:3: bad header"
    assert str(PunctError("not found", "model.pt")) == "model.pt: not found"
    assert str(PunctError("--nj must be at least 1")) == "--nj must be at least 1"
    assert str(PunctError("line zero", "f", 0)) == "f:0: line zero"


def test_the_parts_are_kept_and_the_path_is_a_string():
    e = PunctError("bad header", Path("data/text"), 3)
    assert (e.message, e.path, e.line) == ("bad header", "data/text", 3) and e.args == ("data/text:3: bad header",)
    assert (e.exit_code, e.quiet) == (1, False)


def test_a_subclass_can_exit_with_its_own_status():
    class Stopped(PunctError):
        exit_code = 143

    with pytest.raises(PunctError) as e:
        raise Stopped("stopped by SIGTERM", "exp/checkpoint.pt")
    assert e.value.exit_code == 143 and str(e.value) == "exp/checkpoint.pt: stopped by SIGTERM"
