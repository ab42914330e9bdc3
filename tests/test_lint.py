"""Static check of every Python file of the repository with pyflakes: undefined names,
unused imports and variables, f-strings without fields, shadowed names. A warning here
is a defect like a failing test (pyflakes is pinned in requirements.txt)."""
from __future__ import annotations

import io
from pathlib import Path

from pyflakes.api import checkPath
from pyflakes.reporter import Reporter

ROOT = Path(__file__).resolve().parents[1]


def python_files() -> list[Path]:
    return [f for top in ("punct", "local", "tests", "recipes") for f in sorted((ROOT / top).rglob("*.py"))]


def test_there_are_files_to_check():
    assert len(python_files()) > 50


def test_pyflakes_finds_nothing():
    out, err = io.StringIO(), io.StringIO()
    n = sum(checkPath(str(f), Reporter(out, err)) for f in python_files())
    assert n == 0, out.getvalue() + err.getvalue()


def test_the_check_catches_an_undefined_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    return undefined_name\n")
    out = io.StringIO()
    assert checkPath(str(bad), Reporter(out, io.StringIO())) == 1
    assert "undefined name 'undefined_name'" in out.getvalue()
