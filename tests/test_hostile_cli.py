"""The short mode of benchmarks/hostile_cli.py: bad inputs through the CLI end in one error
line (or a correct result), with no traceback, no changed input, no leftover temporary file."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _hostile():
    spec = importlib.util.spec_from_file_location("hostile_cli", ROOT / "benchmarks" / "hostile_cli.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_the_suite_is_large_and_names_are_unique():
    cases = _hostile().cases(ROOT)
    assert len(cases) >= 100
    assert len({c.name for c in cases}) == len(cases)
    assert {c.group for c in cases} >= {"restore", "score", "compare", "align", "bin.train", "bin.decode", "run.sh"}


def test_the_judge_catches_what_it_must():
    h = _hostile()
    bad = h.Case("x", ["punct", "restore"])
    good = h.Case("y", ["punct", "restore"], expect=h.OK)
    assert h.judge(bad, 1, "error: f: no\n") == []
    assert "traceback" in h.judge(bad, 1, "Traceback (most recent call last):\n  x\nRecursionError: y\n")[0]
    assert "crash" in h.judge(bad, -11, "")[0]
    assert "silent" in h.judge(bad, 0, "")[0]
    assert "not one error line" in h.judge(bad, 1, 'ERROR: "fsg_search.c", line 944\nerror: f: no\n')[0]
    assert "refused good input" in h.judge(good, 1, "error: f: no\n")[0]
    assert h.judge(bad, None, "") == ["hang (timeout)"]


def test_short_mode_finds_nothing(capsys):
    assert _hostile().main(["--short"]) == 0, capsys.readouterr().out
