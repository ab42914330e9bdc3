"""Static check of every Python file of the repository with pyflakes: undefined names,
unused imports and variables, f-strings without fields, shadowed names. A warning here
is a defect like a failing test (pyflakes is pinned in requirements.txt)."""
from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

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


# shellcheck on every shell script of the repository, at its warning level. Variables set in one
# file and read in another (run.sh's fields of an experiment, set by local/records.sh's read_record from the
# names punct.bin.experiments prints: SC2154, SC2034) are beyond a per-file check; `set -u` stops on those at
# run time.
SHELLCHECK = ["shellcheck", "--external-sources", "--severity=warning", "--exclude=SC2154,SC2034"]


def shell_scripts() -> list[Path]:
    tops = [ROOT / "run.sh", ROOT / "path.sh", ROOT / "cmd.sh", ROOT / ".ci" / "run"]
    return (tops + sorted((ROOT / "local").glob("*.sh")) + sorted((ROOT / "local" / "steps").glob("*.sh"))
            + sorted((ROOT / "recipes").glob("*/*.sh")) + sorted((ROOT / "benchmarks").glob("*.sh")))


def _shellcheck(files: list[Path]) -> subprocess.CompletedProcess:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (local/setup_env.sh installs the Debian package)")
    return subprocess.run(SHELLCHECK + [str(f) for f in files], cwd=ROOT, capture_output=True, text=True)


def test_shellcheck_finds_nothing():
    files = shell_scripts()
    assert len(files) > 15 and all(f.is_file() for f in files)
    r = _shellcheck(files)
    assert r.returncode == 0, r.stdout + r.stderr


def test_shellcheck_catches_an_array_read_as_a_scalar(tmp_path):
    bad = tmp_path / "bad.sh"
    bad.write_text('#!/bin/bash\nparts=(a b)\necho "$parts"\n')
    r = _shellcheck([bad])
    assert r.returncode == 1 and "SC2128" in r.stdout
