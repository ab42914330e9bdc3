"""The punct command (punct.cli) and every entry point it runs: --help without torch; the usage,
the version, an unknown command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from punct import cli

ROOT = Path(__file__).resolve().parents[1]

#: every entry point (a new one is checked without being listed), and the punct command
ENTRY_POINTS = sorted(f"punct.bin.{p.stem}" for p in (ROOT / "punct" / "bin").glob("*.py")
                      if p.stem not in ("__init__", "common")) + ["punct.cli"]


def test_the_entry_points_are_found():
    assert {"punct.bin.train", "punct.bin.decode", "punct.bin.restore", "punct.cli"} <= set(ENTRY_POINTS)


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_help_does_not_import_torch(module):
    code = f"import sys; from {module} import main\ntry:\n  main(['--help'])\nexcept SystemExit as e:\n  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout


def test_the_usage_lists_every_command_and_no_command_is_an_error(capsys):
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: punct COMMAND") and all(f"  {name:<10} " in out for name in cli.COMMANDS)
    assert cli.main(["--help"]) == 0 and capsys.readouterr().out == out


def test_the_version(capsys):
    from punct import __version__

    assert cli.main(["--version"]) == 0 and capsys.readouterr().out == f"punct {__version__}\n"


def test_an_unknown_command_is_named_with_the_usage(capsys):
    assert cli.main(["restroe", "talk.ctm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown command 'restroe'\nusage: punct COMMAND")


def test_a_command_runs_its_module_with_the_rest_of_the_line(monkeypatch):
    import types

    seen = {}

    def main(rest):
        seen["rest"] = rest
        return 7

    fake = types.SimpleNamespace(main=main)
    monkeypatch.setitem(sys.modules, "punct.bin.score", fake)
    monkeypatch.setattr(sys, "argv", ["punct"])
    assert cli.main(["score", "ref.txt", "hyp.txt", "--json"]) == 7
    assert seen["rest"] == ["ref.txt", "hyp.txt", "--json"] and sys.argv == ["punct score", "ref.txt", "hyp.txt",
                                                                             "--json"]


def test_a_command_whose_module_is_missing_is_not_available(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "gone", ("no_such_module", "a command of another version"))
    assert cli.main(["gone"]) == 2
    assert capsys.readouterr().err.strip() == "error: command 'gone' is not available in this version"
