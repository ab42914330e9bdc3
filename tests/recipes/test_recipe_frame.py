"""The recipe's shell frame: options, help, errors (no environment set-up needed)."""
import os
import subprocess
from pathlib import Path

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
        (["--corpus", "nosuch"], "unknown corpus 'nosuch' (no recipes/nosuch/experiments.yaml)"),
        (["--corpus-dir", "/nonexistent/x"], "corpus directory '/nonexistent/x' not found"),
        (["--nj", "0"], "--nj must be an integer from 1 to 9999"),
        (["--train-nproc", "two"], "--train-nproc must be an integer from 1 to 9999"),
        (["--stage", "x"], "--stage/--stop-stage must be integers"),
        (["--stage", "12"], "--stage 12: the stages are 1-11"),
        (["--stage", "5", "--stop-stage", "3"], "--stage 5 is after --stop-stage 3: no stage to run"),
        (["extra"], "unexpected argument 'extra'"),
        (["--corpus", "iwslt2011", "--models", "tbrnn_2m nosuch", "--corpus-dir", "."], "has no experiment 'nosuch' (it has: tbrnn_2m tbrnn_all"),
        # (--corpus-dir "." exists wherever the clone is, so these reach the --models check;
        # stage 7's acoustic experiments, joint decisions and hooks are names too)
        (["--corpus", "earnings", "--models", "pause nosuch", "--corpus-dir", "."], "tlstm_ted_e22 mpnet mpnet_short accurate form_ft6 form_lora8 form_lora16 form_lora16_top6 teacher_posteriors teacher_posteriors_ted"),
        (["--corpus", "earnings", "--models", "nosuch", "--corpus-dir", "."], "tlstm_p_e22 pause joint_default_pause ppe)"),
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


def test_a_busy_experiment_directory_is_refused_before_its_log_moves(repo_root, tmp_path):
    """local/log.sh not_busy: the lock a running training holds stops run.sh before it
    rotates that training's live log or starts torchrun; a lock file nobody holds does not."""
    import shutil

    from punct.fsutil import exclusive

    if shutil.which("flock") is None:
        pytest.skip("no flock(1)")
    lock = tmp_path / ".train.lock"
    script = tmp_path / "s.sh"
    script.write_text(f". {repo_root}/local/log.sh\nnot_busy {lock} 'a training'\necho free\n")

    def check():
        return subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=30)

    assert check().stdout == "free\n"  # no lock file
    with exclusive(lock, "a training"):
        r = check()
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.strip().endswith(f"(s.sh:2) ERROR: {lock}: a training is already running here (host "
                                         f"{os.uname().nodename}, pid {os.getpid()}); wait for it to end, or stop it "
                                         "(kill -TERM its pid) and rerun")
    assert not lock.exists()  # its holder removes it
    lock.write_text("host vm, pid 1\n")  # as a killed holder leaves it: the file, not the lock
    r = check()
    assert r.returncode == 0 and r.stdout == "free\n"
    # die names its caller's line too (it named its own line in log.sh before)
    script.write_text(f". {repo_root}/local/log.sh\ndie boom\n")
    assert check().stderr.strip().endswith("(s.sh:2) ERROR: boom")


#: run.sh builds its environment first (local/setup_env.sh): these tests link the clone's own
needs_venv = pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / ".venv").is_dir(),
                                reason="needs the recipe's .venv (local/setup_env.sh)")


def _fake_recipe(repo_root, tmp_path, experiments, stage="8", options=(), stop_stage=None, hooks=""):
    """A recipe folder that links the repository's frame and environment, with corpus
    'fake' whose experiments.yaml has the given experiments (a mapping), and a $train_cmd and
    $decode_cmd that only record their command; run.sh runs STAGE alone."""
    import yaml

    for name in ("run.sh", "local", "path.sh", ".venv", "conf", "punct", "requirements.txt", "requirements-test.txt",
                 "pyproject.toml"):
        if not (tmp_path / name).is_symlink():  # (a second run in the same folder)
            (tmp_path / name).symlink_to(repo_root / name)
    for s in ("train", "dev", "test"):  # the prepared sets that the steps read
        (tmp_path / "data" / "fake" / s).mkdir(parents=True, exist_ok=True)
        (tmp_path / "data" / "fake" / s / "text").write_text("u1 a b\n")
        (tmp_path / "data" / "fake" / s / "labels").write_text("u1 O PERIOD\n")
    (tmp_path / "cmd.sh").write_text('export train_cmd="./fake_cmd.sh"\nexport decode_cmd="./fake_cmd.sh"\n')
    fake = tmp_path / "fake_cmd.sh"
    # (a training "writes" its best.pt, which the decode step checks for)
    fake.write_text('#!/bin/bash\nshift; echo "$*" >> calls.txt; out=""; exp=""\n'
                    'while [ $# -gt 0 ]; do case $1 in --out) out=$2;; --exp) exp=$2;; esac; shift; done\n'
                    'mkdir -p "${out:-$exp}"; [ -z "$exp" ] || touch "$exp/best.pt"\n')
    fake.chmod(0o755)
    (tmp_path / "recipes" / "fake").mkdir(parents=True, exist_ok=True)
    (tmp_path / "recipes" / "fake" / "experiments.yaml").write_text(yaml.safe_dump(
        {"sets": {"train": ["train"], "valid": "dev", "test": ["test"]}, "experiments": experiments}, sort_keys=False))
    (tmp_path / "recipes" / "fake" / "corpus.sh").write_text("prepare_data() { :; }\n" + hooks)
    (tmp_path / "exp" / "fake" / "a").mkdir(parents=True, exist_ok=True)
    (tmp_path / "exp" / "fake" / "a" / "best.pt").write_text("")
    return subprocess.run(["bash", "run.sh", "--corpus", "fake", "--corpus-dir", ".", *options, "--stage", stage,
                           "--stop-stage", stop_stage or stage],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


#: a trained experiment of the fake corpus (exp/fake/a/best.pt is there)
A = {"a": {"config": "conf/tbrnn.yaml", "train": "train"}}


@needs_venv
def test_ensemble_options_become_decode_options(repo_root, tmp_path):
    """An ensemble's weights and bias (numbers, or tune) are stage 8's decode options; a tuned
    weight or bias is kept in the experiment's tuned_weights.json."""
    r = _fake_recipe(repo_root, tmp_path, {**A, "e": {"ensemble": ["a", "a"], "weights": [2, 1.5], "bias": [0.1, 0.2, -0.3]},
                                           "t": {"ensemble": ["a", "a"], "weights": "tune", "bias": "tune"},
                                           "b": {"ensemble": ["a"], "bias": "tune"}})
    assert r.returncode == 0, r.stderr[-2000:]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls[1:] == [
        "python -m punct.bin.decode --model exp/fake/a/best.pt --model exp/fake/a/best.pt --weights 2 1.5 --bias 0.1 0.2 -0.3 "
        "--data data/fake/test --out exp/fake/e/decode_test --no-score --threads 1",
        "python -m punct.bin.decode --model exp/fake/a/best.pt --model exp/fake/a/best.pt --tune-weights-on data/fake/dev "
        "--tune-bias-on data/fake/dev --tuned-weights exp/fake/t/tuned_weights.json "
        "--data data/fake/test --out exp/fake/t/decode_test --no-score --threads 1",
        "python -m punct.bin.decode --model exp/fake/a/best.pt --tune-bias-on data/fake/dev "
        "--tuned-weights exp/fake/b/tuned_weights.json --data data/fake/test --out exp/fake/b/decode_test --no-score --threads 1",
    ]
    assert calls[0] == ("python -m punct.bin.decode --model exp/fake/a/best.pt --data data/fake/test "
                        "--out exp/fake/a/decode_test --no-score --threads 1")


@needs_venv
@pytest.mark.parametrize("entry, message", [
    ({"ensemble": ["a"], "weights": "tune", "bias": "high"}, "experiments.e.bias: expected 'tune' or a list of numbers"),
    ({"ensemble": ["a"], "bias": [0.1, 0.2]}, "experiments.e.bias: expected 3 numbers, found 2"),
    ({"ensemble": ["a"], "weights": [1, "x"]}, "experiments.e.weights: expected 'tune' or a list of numbers"),
    ({"ensemble": ["a"], "weight": "tune"}, "experiments.e.weight: unknown key"),
])
def test_bad_ensemble_option_is_a_one_line_error(repo_root, tmp_path, entry, message):
    r = _fake_recipe(repo_root, tmp_path, {**A, "e": entry})
    assert r.returncode != 0 and not (tmp_path / "calls.txt").exists()
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "recipes/fake/experiments.yaml:" in r.stderr


@needs_venv
def test_warm_start_names_the_experiment_it_trains_on_from(repo_root, tmp_path):
    """warm_start: NAME is NAME's best.pt (init_from); a missing one is a one-line error when
    stage 6 reaches the experiment, after NAME's own training."""
    r = _fake_recipe(repo_root, tmp_path, {**A, "w": {"config": "conf/tbrnn.yaml", "train": "train", "warm_start": "a",
                                                      "overrides": {"lr": 0.1}}}, stage="6")
    assert r.returncode == 0, r.stderr[-2000:]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls[-1] == ("python -m punct.bin.train --config conf/tbrnn.yaml --train data/fake/train --valid data/fake/dev "
                         "--exp exp/fake/w init_from=exp/fake/a/best.pt lr=0.1")
    (tmp_path / "2").mkdir()
    r = _fake_recipe(repo_root, tmp_path / "2", {"n": {"config": "conf/tbrnn.yaml", "train": "train"},
                                                 "w": {"config": "conf/tbrnn.yaml", "train": "train", "warm_start": "n"}},
                     stage="6", options=("--models", "w"))
    assert r.returncode != 0 and not (tmp_path / "2" / "calls.txt").exists()
    assert "ERROR: w needs exp/fake/n/best.pt: not found (train n first)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@needs_venv
def test_decode_sets_choose_what_stages_8_and_9_decode(repo_root, tmp_path):
    """--decode-sets decodes other prepared sets (the validation set, whole) instead of the corpus's
    test sets, and goes into run.cmd; a set that is not prepared, or not decoded, is a one-line error."""
    r = _fake_recipe(repo_root, tmp_path, A, options=("--decode-sets", "dev"))
    assert r.returncode == 0, r.stderr[-2000:]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls == ["python -m punct.bin.decode --model exp/fake/a/best.pt --data data/fake/dev "
                     "--out exp/fake/a/decode_dev --no-score --threads 1"]
    (tmp_path / "2").mkdir()
    r = _fake_recipe(repo_root, tmp_path / "2", A, stage="6", options=("--decode-sets", "dev test"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "2" / "exp" / "fake" / "a" / "run.cmd").read_text() == \
        "./run.sh --corpus fake --corpus-dir . --models a --decode-sets 'dev test' --stage 6 --stop-stage 9\n"
    (tmp_path / "3").mkdir()
    r = _fake_recipe(repo_root, tmp_path / "3", A, options=("--decode-sets", "nosuch"))
    assert r.returncode != 0 and not (tmp_path / "3" / "calls.txt").exists()
    assert ("stage 8: data/fake/nosuch/text not found: nosuch is not a prepared set of fake (run stage 1; "
            "its sets: train dev test)") in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = _fake_recipe(repo_root, tmp_path / "3", A, stage="9", options=("--decode-sets", "dev"))
    assert r.returncode != 0
    assert "stage 9: exp/fake/a/decode_dev/.done not found: a has not been decoded on dev (run stage 8)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = _fake_recipe(repo_root, tmp_path / "3", A, options=("--decode-sets", "dev  test"))
    assert r.returncode != 0 and "--decode-sets 'dev  test': expected set names separated by single spaces" in r.stderr


@needs_venv
def test_stage_7_trains_and_stages_8_and_9_decode_and_score_its_own_test_sets(repo_root, tmp_path):
    """A stage 7 entry trains in stage 7 (its warm start a stage 6 model) with the step of stage
    6; stages 8 and 9 decode and score its own test sets; --models selects it and leaves the
    stage 6 entries out."""
    r = _fake_recipe(repo_root, tmp_path, {**A, "p": {"stage": 7, "config": "conf/ta_brnn_p.yaml", "train": "train",
                                                      "warm_start": "a", "test": ["test"]}},
                     stage="7", options=("--models", "p"))
    assert r.returncode == 0, r.stderr[-2000:]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls == ["python -m punct.bin.train --config conf/ta_brnn_p.yaml --train data/fake/train --valid data/fake/dev "
                     "--exp exp/fake/p init_from=exp/fake/a/best.pt"]
    assert (tmp_path / "exp" / "fake" / "p" / "run.cmd").read_text() == \
        "./run.sh --corpus fake --corpus-dir . --models p --stage 7 --stop-stage 9\n"
    r = _fake_recipe(repo_root, tmp_path, {**A, "p": {"stage": 7, "config": "conf/ta_brnn_p.yaml", "train": "train",
                                                      "warm_start": "a", "test": ["test"]}},
                     stage="8", stop_stage="9", options=("--models", "p"))
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls[1:] == ["python -m punct.bin.decode --model exp/fake/p/best.pt --data data/fake/test "
                         "--out exp/fake/p/decode_test --no-score --threads 1"]
    # the fake decode writes no labels: scoring it is what fails, with its one line
    assert r.returncode != 0 and "scoring exp/fake/p/decode_test failed" in r.stderr.splitlines()[-1]


@needs_venv
def test_a_joint_decision_and_a_hook_take_their_inputs_as_arguments(repo_root, tmp_path):
    """A joint decision is tuned in stage 7 and its two systems decoded in stage 8; a stage 7
    hook runs in stages 7, 8 and 9 with the stage as its first argument."""
    entries = {**A, "p": {"stage": 7, "config": "conf/che_pause.yaml", "train": "train"},
               "j": {"joint": {"lexical": "a", "acoustic": "p"}, "test": ["test"]},
               "h": {"hook": "corpus_extra", "needs": ["a"]}}
    hook = 'corpus_extra() { echo "$*" >> hook_args.txt; }\n'
    r = _fake_recipe(repo_root, tmp_path, entries, stage="7", stop_stage="9", options=("--models", "h"), hooks=hook)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "hook_args.txt").read_text().splitlines() == [
        f"{st} data/fake exp/fake false ./run.sh --corpus fake --corpus-dir . --models h --stage {st} --stop-stage {st} "
        "exp/fake/a/best.pt" for st in (7, 8, 9)]
    (tmp_path / "exp" / "fake" / "p").mkdir(parents=True)
    (tmp_path / "exp" / "fake" / "p" / "best.pt").write_text("")
    (tmp_path / "exp" / "fake" / "p" / ".done").write_text("")
    r = _fake_recipe(repo_root, tmp_path, entries, stage="7", stop_stage="9", options=("--models", "j"), hooks=hook)
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls == [
        "python -m punct.bin.joint_tune --lexical exp/fake/a/best.pt --acoustic exp/fake/p/best.pt --dev data/fake/dev "
        "--train data/fake/train --config conf/joint.yaml --out exp/fake/joint_a_p/joint.yaml"] + [
        "python -m punct.bin.joint_decode --lexical exp/fake/a/best.pt --acoustic exp/fake/p/best.pt --config "
        f"exp/fake/joint_a_p/joint.yaml --stage {st} --data data/fake/test --out exp/fake/joint{st}_a_p/decode_test"
        for st in (1, 2)]
    # the fake decode writes nothing to score: the one-line error of the score step
    assert r.returncode != 0 and "scoring exp/fake/joint1_a_p/decode_test failed" in r.stderr.splitlines()[-1]


def test_setup_env_never_installs_through_a_linked_venv(repo_root, tmp_path):
    """A tree whose .venv links another tree's (as the fake recipes above link the clone's) and
    whose stamp differs leaves that venv alone: pip run there would write this tree's paths into
    the other's scripts (its .venv/bin/punct broke so once, when setup_env.sh had changed)."""
    venv = tmp_path / "real_venv"
    (venv / "bin").mkdir(parents=True)
    calls = tmp_path / "python_calls.txt"
    stub = venv / "bin" / "python"
    stub.write_text(f'#!/bin/bash\necho "$*" >> {calls}\n')
    stub.chmod(0o755)
    (venv / ".punct-stamp").write_text("an older tree\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".venv").symlink_to(venv)
    for name in ("local", "requirements.txt", "requirements-test.txt", "pyproject.toml"):
        (tree / name).symlink_to(repo_root / name)
    env = dict(os.environ, PUNCT_APT_PACKAGES="")
    r = subprocess.run(["bash", "local/setup_env.sh"], cwd=tree, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f".venv links to {venv}, which is not up to date with this tree; left as it is" in r.stderr + r.stdout
    assert not calls.exists() and (venv / ".punct-stamp").read_text() == "an older tree\n"
    (tree / ".venv").unlink()  # the same tree with a venv of its own would be set up: the stub is called
    (tree / ".venv").mkdir()
    (tree / ".venv" / "bin").mkdir()
    (tree / ".venv" / "bin" / "python").symlink_to(stub)
    subprocess.run(["bash", "local/setup_env.sh"], cwd=tree, capture_output=True, text=True, env=env, timeout=60)
    assert calls.read_text().startswith("-m pip install")
