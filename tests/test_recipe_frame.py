"""The recipe's shell frame: options, help, errors (no environment set-up needed)."""
import subprocess

import pytest


def _run(root, *args):
    return subprocess.run(["bash", "run.sh", *args], cwd=root, capture_output=True, text=True, timeout=60)


def test_help_lists_stages(repo_root):
    r = _run(repo_root, "--help")
    assert r.returncode == 0
    for word in ("--stage", "--stop-stage", "--corpus", "--corpus-dir", "--nj", "--force", "--train-nproc", "data preparation", "score"):
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
        (["--train-nproc", "two"], "--train-nproc must be a positive integer"),
        (["--stage", "x"], "--stage/--stop-stage must be integers"),
        (["extra"], "unexpected argument 'extra'"),
        (["--corpus", "iwslt2011", "--models", "tbrnn_2m nosuch", "--corpus-dir", "."], "has no experiment 'nosuch' (it has: tbrnn_2m tbrnn_all"),
        # (--corpus-dir "." exists wherever the clone is, so these reach the --models check;
        # stage 7's acoustic experiments and the LJ Speech prosody models are names too)
        (["--corpus", "earnings", "--models", "pause nosuch", "--corpus-dir", "."], "tlstm_ted_e22 ta_brnn_p ta_brnn ta_lstm_p"),
        (["--corpus", "earnings", "--models", "nosuch", "--corpus-dir", "."], "tlstm_p_e22 pause ppe)"),
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


def test_up_to_date_compares_marker_with_inputs(repo_root, tmp_path):
    """local/log.sh up_to_date: a decode is redone when its model is newer than its .done."""
    import os

    model, marker = tmp_path / "best.pt", tmp_path / ".done"
    model.write_text("m")
    marker.write_text("")
    os.utime(model, (1000, 1000))
    os.utime(marker, (2000, 2000))

    def check(*files):
        cmd = ". local/log.sh; up_to_date " + " ".join(str(f) for f in files)
        return subprocess.run(["bash", "-c", cmd], cwd=repo_root).returncode

    assert check(marker, model) == 0
    os.utime(model, (3000, 3000))  # trained on after the decode
    assert check(marker, model) == 1
    assert check(tmp_path / "missing", model) == 1
    assert check(marker) == 0


def test_failed_job_reports_the_commands_own_error_first(repo_root, tmp_path):
    # a data-parallel training's log ends with torchrun's summary of the ranks; the
    # command's one-line error above it is what the ERROR line must say
    logf = tmp_path / "train.log"
    logf.write_text("INFO starting\nerror: conf/x.yaml:3: unknown key 'bogus'\nerror: conf/x.yaml:3: unknown key 'bogus'\n"
                    "Root Cause (first observed failure):\n  exitcode  : 1\n")
    r = subprocess.run(["bash", "-c", f". local/log.sh; fail_with_log {logf} 'training m failed'"], cwd=repo_root,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    first = r.stderr.splitlines()[0]
    assert "ERROR: training m failed: conf/x.yaml:3: unknown key 'bogus' (log: " in first
    # without such a line the ERROR line still names the log
    logf.write_text("Segmentation fault\n")
    r = subprocess.run(["bash", "-c", f". local/log.sh; fail_with_log {logf} 'training m failed'"], cwd=repo_root,
                       capture_output=True, text=True, timeout=30)
    assert f"ERROR: training m failed (log: {logf})" in r.stderr.splitlines()[0]
