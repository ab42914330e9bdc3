"""The recipe's shell frame: options, help, errors (no environment set-up needed)."""
import subprocess

import pytest


def _run(root, *args):
    return subprocess.run(["bash", "run.sh", *args], cwd=root, capture_output=True, text=True, timeout=60)


def test_help_lists_stages(repo_root):
    r = _run(repo_root, "--help")
    assert r.returncode == 0
    for word in ("--stage", "--stop-stage", "--corpus", "--corpus-dir", "--nj", "--force", "data preparation", "score"):
        assert word in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--bogus", "1"], "unknown option --bogus"),
        (["--force", "maybe"], "takes true or false"),
        (["--stage"], "needs a value"),
        (["--stage=3"], "write options as"),
        (["--corpus", "nosuch"], "unknown corpus 'nosuch'"),
        (["--corpus-dir", "/nonexistent/x"], "corpus directory '/nonexistent/x' not found"),
        (["--nj", "0"], "--nj must be a positive integer"),
        (["--stage", "x"], "--stage/--stop-stage must be integers"),
        (["extra"], "unexpected argument 'extra'"),
        (["--corpus", "iwslt2011", "--models", "tbrnn_2m nosuch"], "has no experiment 'nosuch' (it has: tbrnn_2m tbrnn_all"),
    ],
)
def test_bad_options_fail_with_one_line(repo_root, args, message):
    r = _run(repo_root, *args)
    assert r.returncode != 0
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_lists_commands(run_py):
    r = run_py("punct", "--help")
    assert r.returncode == 0 and "score" in r.stdout
    r = run_py("punct", "nosuch")
    assert r.returncode == 2 and "unknown command 'nosuch'" in r.stderr
