"""punct.bin.common: the environment defaults every entry point gets before torch loads, its
one-line errors, and how loud entry points are (INFO lines on a terminal or into a log file,
warnings and errors only on a pipe, ``-q`` errors only, ``-v`` debug)."""
from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from punct.bin.common import log_level, run

ROOT = Path(__file__).resolve().parents[2]


def _seen(args):
    args.seen = os.environ.get("OMP_WAIT_POLICY")
    return 0


def test_openmp_threads_sleep_by_default(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    args = argparse.Namespace(verbose=False)
    assert run(_seen, args, prog="t") == 0
    assert args.seen == "PASSIVE"


def test_the_users_setting_wins(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    args = argparse.Namespace(verbose=False)
    assert run(_seen, args, prog="t") == 0
    assert args.seen == "ACTIVE"


def test_system_errors_are_one_line_naming_the_path(tmp_path, capsys):
    (tmp_path / "f").write_text("x\n")

    def make_dir_over_a_file(args):
        (tmp_path / "f").mkdir()

    def make_a_dir_that_exists(args):
        tmp_path.mkdir()

    def read_a_directory(args):
        tmp_path.read_text()

    def disk_full(args):
        raise OSError(28, "No space left on device")

    args = argparse.Namespace(verbose=False)
    for func, line in ((make_dir_over_a_file, f"error: {tmp_path / 'f'}: is a file where a directory is needed "
                                               "(an output path goes through it)"),
                       (make_a_dir_that_exists, f"error: {tmp_path}: file exists"),
                       (read_a_directory, f"error: {tmp_path}: is a directory"),
                       (disk_full, "error: no space left on device")):
        assert run(func, args, prog="t") == 1
        assert capsys.readouterr().err.strip().splitlines() == [line]


def test_a_mistyped_option_is_one_line(capsys):
    import pytest

    from punct.bin.common import ArgumentParser, at_least

    p = ArgumentParser(prog="punct t")
    p.add_argument("--n", type=at_least(3))
    for argv, msg in ((["--n", "2"], "argument --n: must be at least 3, got 2"), (["--m"], "unrecognized arguments: --m")):
        with pytest.raises(SystemExit) as e:
            p.parse_args(argv)
        assert e.value.code == 2
        assert capsys.readouterr().err.splitlines() == [f"error: {msg} (see punct t --help)"]


def test_a_file_given_for_a_directory_is_named_so(tmp_path):
    import pytest

    from punct.bin.common import require_inputs
    from punct.errors import PunctError

    (tmp_path / "text").write_text("a b\n")
    require_inputs([tmp_path / "text"], "reference")  # a file is fine where any input will do
    with pytest.raises(PunctError, match=r"text: is a file, not a data directory"):
        require_inputs([tmp_path, tmp_path / "text"], "data directory")


def test_an_interrupt_while_a_compiled_module_loads_is_one_line(capsys):
    """Ctrl-C while onnxruntime's extension initializes comes back as ImportError('initialization
    failed') from the KeyboardInterrupt: 'error: interrupted' and 130, as for any interrupt,
    not a traceback; any other ImportError is left as it is."""
    import pytest

    def interrupted_import(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise ImportError("initialization failed") from e

    def broken_import(args):
        raise ImportError("No module named 'onnxruntime'")

    args = argparse.Namespace(verbose=False)
    assert run(interrupted_import, args, prog="t") == 130
    assert capsys.readouterr().err.strip().splitlines() == ["error: interrupted"]
    with pytest.raises(ImportError, match="No module named"):
        run(broken_import, args, prog="t")


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
