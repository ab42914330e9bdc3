"""The Kaldi-style job runners of cmd.sh: local/run_local.sh, run_slurm.sh, run_sge.sh.

Slurm and Grid Engine are stood in for by tiny fake ``sbatch`` / ``qsub`` commands
that run the array's tasks one after the other, as the real ones would on nodes."""
from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_SBATCH = r"""#!/usr/bin/env bash
echo "$@" > "$FAKE_ARGS"
array=""; script="${@: -1}"
for a in "$@"; do case $a in --array=*) array=${a#--array=} ;; esac; done
rc=0
for ((i=${array%-*}; i<=${array#*-}; i++)); do SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=42 bash "$script" || rc=1; done
exit $rc
"""
FAKE_QSUB = r"""#!/usr/bin/env bash
echo "$@" > "$FAKE_ARGS"
range=""; script="${@: -1}"; prev=""
for a in "$@"; do [ "$prev" = "-t" ] && range=$a; prev=$a; done
rc=0
for ((i=${range%-*}; i<=${range#*-}; i++)); do SGE_TASK_ID=$i JOB_ID=7 bash "$script" || rc=1; done
exit $rc
"""


def fake_bin(tmp_path: Path, name: str, body: str) -> dict:
    b = tmp_path / "bin"
    b.mkdir(exist_ok=True)
    p = b / name
    p.write_text(body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", FAKE_ARGS=str(tmp_path / "args.txt"))


def run(cmd, env=None, cwd=ROOT):
    return subprocess.run(cmd, cwd=cwd, env=env or dict(os.environ), capture_output=True, text=True, timeout=60)


# Job 2 of 3 fails after printing a recognizable line; the others succeed.
JOB_CMD = ["sh", "-c", 'echo "working on part JOB"; if [ JOB = 2 ]; then echo "boom in part JOB" >&2; exit 3; fi']

RUNNERS = {
    "local": (["local/run_local.sh"], None),
    "slurm": (["local/run_slurm.sh", "--mem", "2G", "--time=1:00:00"], ("sbatch", FAKE_SBATCH)),
    "sge": (["local/run_sge.sh", "-l", "mem_free=2G"], ("qsub", FAKE_QSUB)),
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_failed_job_prints_its_log_tail_and_fails(runner, tmp_path):
    prefix, fake = RUNNERS[runner]
    env = fake_bin(tmp_path, *fake) if fake else None
    logs = tmp_path / "log"
    r = run([*prefix, "JOB=1:3", str(logs / "work.JOB.log"), *JOB_CMD], env)
    assert r.returncode != 0
    assert f"job failed: {logs / 'work.2.log'}" in r.stderr
    assert "boom in part 2" in r.stderr  # the tail of the failed job's log
    assert "1 of 3 jobs failed" in r.stderr
    assert "job failed: " + str(logs / "work.1.log") not in r.stderr
    for j in (1, 3):
        text = (logs / f"work.{j}.log").read_text()
        assert f"working on part {j}" in text and text.rstrip().endswith("with status 0")
    assert (logs / "work.2.log").read_text().rstrip().endswith("with status 3")
    if fake:
        args = (tmp_path / "args.txt").read_text()
        assert ("--mem 2G --time=1:00:00" in args) if runner == "slurm" else ("-l mem_free=2G" in args)
        assert ("--array=1-3" in args and "--wait" in args) if runner == "slurm" else ("-t 1-3" in args and "-sync y" in args)


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_all_jobs_succeed_and_a_single_job(runner, tmp_path):
    prefix, fake = RUNNERS[runner]
    env = fake_bin(tmp_path, *fake) if fake else None
    r = run([*prefix, "JOB=1:2", str(tmp_path / "ok.JOB.log"), "echo", "arg with spaces JOB"], env)
    assert r.returncode == 0, r.stderr
    assert "arg with spaces 2" in (tmp_path / "ok.2.log").read_text()
    r = run([*prefix, str(tmp_path / "one.log"), "echo", "single"], env)
    assert r.returncode == 0, r.stderr
    assert "single" in (tmp_path / "one.log").read_text()


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_rerun_keeps_the_earlier_logs(runner, tmp_path):
    """A job that writes a log anew moves the earlier one to LOG.1 (LOG.1 to LOG.2, ...): the
    log of a killed or failed run survives its rerun; the last 5 are kept."""
    prefix, fake = RUNNERS[runner]
    env = fake_bin(tmp_path, *fake) if fake else None
    logf = tmp_path / "log" / "train.log"
    for i in range(1, 8):
        r = run([*prefix, str(logf), "echo", f"run {i}"], env)
        assert r.returncode == 0, r.stderr
    assert "run 7" in logf.read_text()
    kept = sorted(p.name for p in logf.parent.glob("train.log*"))
    assert kept == ["train.log", *(f"train.log.{k}" for k in range(1, 6))]
    for k in range(1, 6):
        assert f"run {7 - k}" in (logf.parent / f"train.log.{k}").read_text()


@pytest.mark.parametrize("runner", ["slurm", "sge"])
def test_an_old_log_does_not_pass_for_a_task_that_did_not_run(runner, tmp_path):
    """A scheduler that ran no task (the queue lost it) is a failure even when an earlier
    run left a log ending '# ended ... with status 0' at the same path."""
    prefix, fake = RUNNERS[runner]
    env = fake_bin(tmp_path, *fake)
    logf = tmp_path / "log" / "job.1.log"
    assert run([*prefix, "JOB=1:1", str(tmp_path / "log" / "job.JOB.log"), "true"], env).returncode == 0
    assert logf.read_text().rstrip().endswith("with status 0")
    env = fake_bin(tmp_path, fake[0], '#!/usr/bin/env bash\nexit 0\n')  # accepts the array, runs nothing
    r = run([*prefix, "JOB=1:1", str(tmp_path / "log" / "job.JOB.log"), "true"], env)
    assert r.returncode != 0 and "the task never started" in r.stderr
    assert (tmp_path / "log" / "job.1.log.1").read_text().rstrip().endswith("with status 0")


@pytest.mark.parametrize("runner,tool", [("slurm", "sbatch"), ("sge", "qsub")])
def test_cluster_runner_without_its_tool_says_so(runner, tool, tmp_path):
    prefix, _ = RUNNERS[runner]
    env = dict(os.environ, PATH="/usr/bin:/bin")
    if subprocess.run(["sh", "-c", f"command -v {tool}"], env=env, capture_output=True).returncode == 0:
        pytest.skip(f"a real {tool} is installed")
    r = run([*prefix, str(tmp_path / "x.log"), "true"], env)
    assert r.returncode != 0 and f"{tool} not found" in r.stderr


def test_cmd_sh_selects_the_queue():
    def cmd(queue):
        env = dict(os.environ, PUNCT_QUEUE=queue)
        return run(["bash", "-c", ". ./cmd.sh && echo \"$decode_cmd\""], env)

    assert cmd("local").stdout.strip() == "local/run_local.sh"
    assert cmd("slurm").stdout.startswith("local/run_slurm.sh")
    assert cmd("sge").stdout.startswith("local/run_sge.sh")
    bad = cmd("pbs")
    assert bad.returncode != 0 and "unknown PUNCT_QUEUE 'pbs'" in bad.stderr


EXECUTED_SCRIPTS = ["run.sh", "local/run_local.sh", "local/run_slurm.sh", "local/run_sge.sh",
                    "local/test.sh", "local/setup_env.sh"]


def _edit_while_running(script_text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run a copy of run_local.sh whose job waits until the copy has been overwritten in place
    (same inode, as an editor saving over it does) with a script that exits 7."""
    local = tmp_path / "local"
    local.mkdir()
    (local / "log.sh").write_text((ROOT / "local" / "log.sh").read_text())
    script = local / "run_local.sh"
    script.write_text(script_text)
    go = tmp_path / "edited"
    job = f"while [ ! -e {go} ]; do sleep 0.05; done"
    p = subprocess.Popen(["bash", str(script), str(tmp_path / "job.log"), "sh", "-c", job],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not (tmp_path / "job.log").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # bash now waits on the job, its read position just after the loop
    with open(script, "r+") as f:  # in place: the running bash sees the new bytes
        f.write(("echo replaced >&2; exit 7\n" * 400)[: max(len(script_text), 4000)])
    go.touch()
    out, err = p.communicate(timeout=30)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def test_runner_survives_being_edited_while_it_runs(tmp_path):
    res = _edit_while_running((ROOT / "local" / "run_local.sh").read_text(), tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "job.log").read_text().rstrip().endswith("with status 0")


def test_edit_check_catches_an_unprotected_runner(tmp_path):
    # The same runner without its brace group runs the edited text: the check above can fail.
    text = (ROOT / "local" / "run_local.sh").read_text()
    body = text.replace("\n{\n", "\n", 1)
    body = body[: body.rstrip().rfind("\nexit")] + "\n"
    res = _edit_while_running(body, tmp_path)
    assert res.returncode == 7  # it ran the new text's "exit 7"


@pytest.mark.parametrize("script", EXECUTED_SCRIPTS)
def test_executed_scripts_are_one_brace_group(script):
    # Every script the recipe runs (rather than sources) is read whole before it starts.
    lines = [l for l in (ROOT / script).read_text().splitlines() if l.strip()]
    body = [l for l in lines if not l.startswith("#")]
    assert body[0] == "{" and body[-1] == "}", script
    assert body[-2].startswith("exit"), script
    r = subprocess.run(["bash", "-n", str(ROOT / script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
