"""How loud entry points are: INFO lines on a terminal or into a log file, warnings and errors
only on a pipe (``echo ... | punct restore -`` in a script), ``-q`` errors only, ``-v`` debug."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from punct.bin.common import log_level

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("verbose,quiet,env,want", [
    (True, False, "", logging.DEBUG),
    (False, True, "info", logging.ERROR),
    (False, False, "warning", logging.WARNING),
    (False, False, "debug", logging.DEBUG),
])
def test_options_and_environment(monkeypatch, verbose, quiet, env, want):
    monkeypatch.setenv("PUNCT_LOG_LEVEL", env)
    assert log_level(verbose, quiet) == want


def _score(tmp_path, *opts, stderr):
    ref = tmp_path / "ref.txt"
    ref.write_text("hello, world. how are you?\n")
    env = {k: v for k, v in os.environ.items() if k != "PUNCT_LOG_LEVEL"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "punct", "score", *opts, str(ref), str(ref)], env=env,
                          stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120)


def test_a_pipe_gets_no_info_a_log_file_does(tmp_path):
    piped = _score(tmp_path, stderr=subprocess.PIPE)
    assert piped.returncode == 0 and piped.stderr == "" and "overall" in piped.stdout
    log = tmp_path / "job.log"
    with open(log, "w") as f:
        assert _score(tmp_path, stderr=f).returncode == 0
    assert " INFO " in log.read_text()
    with open(log, "w") as f:
        assert _score(tmp_path, "-q", stderr=f).returncode == 0
    assert log.read_text() == ""
    assert " INFO " in _score(tmp_path, "-v", stderr=subprocess.PIPE).stderr


def test_every_entry_point_takes_q_and_v():
    from punct.cli import COMMANDS
    import importlib

    for name, (module, _) in COMMANDS.items():
        try:
            mod = importlib.import_module(f"punct.bin.{module}")
        except ModuleNotFoundError:
            continue
        opts = {o for a in mod.build_parser()._actions for o in a.option_strings}
        assert {"-q", "--quiet", "-v", "--verbose"} <= opts, name
