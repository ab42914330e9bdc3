"""Data-parallel training (torchrun, gloo on CPU): two ranks that split every batch
exactly in two reach the weights of one process (up to float summation order)."""
import os
import subprocess
import sys
from pathlib import Path

import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.train import train

ROOT = Path(__file__).resolve().parents[2]
# Plain SGD: its update is linear in the gradient, so the float rounding of the two
# summation orders stays at rounding size (AdaGrad's first steps divide a near-zero
# gradient by its own size and can turn a 1e-9 rounding difference into a visible one).
ARGS = ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8",
        "batch_size=4", "slice_length=20", "max_epochs=2", "checkpoint_minutes=0", "threads=1",
        "optimizer=sgd", "lr=0.5", "word_dropout=0.2"]  # word dropout: one draw per batch, split between the ranks


def test_two_ranks_match_one_process(tiny_data, tmp_path):
    tr, dev = tiny_data
    one = tmp_path / "one"
    train(load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, ARGS), tr, dev, one)
    two = tmp_path / "two"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")

    def two_ranks(args, timeout):
        return subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                               "-m", "punct.bin.train", "--config", str(ROOT / "conf" / "tbrnn.yaml"), "--train",
                               str(tr), "--valid", str(dev), "--exp", str(two), *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)

    r = two_ranks(ARGS, 300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "rank 1 of 2" in r.stderr  # both ranks trained
    # the ranks share the log: what training does is told once, by rank 0
    assert sum("epoch 2: train loss" in line for line in r.stderr.splitlines()) == 1, r.stderr[-3000:]
    assert sum("training stopped (max_epochs)" in line for line in r.stderr.splitlines()) == 1
    a, b = ckpt.load(one / "checkpoint.pt"), ckpt.load(two / "checkpoint.pt")
    assert a["progress"]["epoch"] == b["progress"]["epoch"] == 2
    for k, v in a["state_dict"].items():
        assert torch.allclose(v, b["state_dict"][k], atol=2e-5), k
    ha, hb = a["progress"]["history"], b["progress"]["history"]
    for ra, rb in zip(ha, hb):
        assert abs(ra["train_loss"] - rb["train_loss"]) < 1e-4
        assert abs(ra["valid_ppl"] - rb["valid_ppl"]) < 1e-4
        assert abs(ra["valid_f1"] - rb["valid_f1"]) < 0.5
    # rank 0 alone wrote the files
    assert sorted(p.name for p in two.iterdir() if p.name != "cmd") == sorted(p.name for p in one.iterdir())
    # a stop request reaches every rank: both end at once (a rank that went on would wait
    # forever for the other's gradients and the run would time out)
    (two / "stop").write_text("enough\n")
    args3 = [a if a != "max_epochs=2" else "max_epochs=3" for a in ARGS]
    r = two_ranks(args3, 120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert ckpt.load(two / "checkpoint.pt")["progress"]["epoch"] == 2
    assert '"why": "enough"' in (two / "train_done.json").read_text()
    # average_best switched on for a third epoch: both ranks validate the average together
    (two / "stop").unlink()
    r = two_ranks(args3 + ["average_best=2"], 120)
    assert r.returncode == 0, r.stderr[-3000:]
    prog = ckpt.load(two / "checkpoint.pt")["progress"]
    assert prog["epoch"] == 3 and len(prog["averaged"]) == 2 and prog["averaged"][-1] == 3
    assert ckpt.load(two / "epochs" / "average.pt")["averaged_epochs"] == prog["averaged"]


def test_two_ranks_validate_whole_utterances_together(tiny_data, tmp_path):
    """valid_decode whole with two ranks: each decodes every other validation utterance and
    the F1 is over all of them, the number decoding the saved model gives."""
    from punct.data.datadir import load_utterances
    from punct.engine.decode import decode
    from punct.scoring.score import score_labels

    tr, dev = tiny_data
    exp = tmp_path / "two"
    args = [a for a in ARGS if not a.startswith("max_epochs=")] + ["max_epochs=4", "valid_decode=whole"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                        "-m", "punct.bin.train", "--config", str(ROOT / "conf" / "tbrnn.yaml"), "--train", str(tr),
                        "--valid", str(dev), "--exp", str(exp), *args],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "decoded whole: 3 utterances" in r.stderr
    assert r.stderr.count("on the slices") == 4  # each epoch's pair of F1s, told by rank 0 alone
    hyp, ref = decode(exp / "best.pt", dev, runtime="torch", end_sentence=False), load_utterances(dev)
    f1 = float(score_labels([x for u in ref for x in u.labels], [x for u in hyp for x in u.labels]).overall.f1)
    assert ckpt.load(exp / "best.pt")["valid_f1"] == f1 > 0


def test_sigterm_to_a_two_rank_run_stops_both_ranks_after_the_same_batch(tiny_data, tmp_path):
    """kill -- -PGID (what a scheduler or Ctrl-C does to the torchrun job): every rank and
    torchrun get SIGTERM, torchrun forwards it once more; both ranks stop after one batch
    with the checkpoint saved (a rank that went on would wait forever for the other's
    gradients), and a rerun finishes the job."""
    import signal

    tr, dev = tiny_data
    exp = tmp_path / "two"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")

    def two_ranks(max_epochs):
        args = [a for a in ARGS if not a.startswith("max_epochs=")] + [f"max_epochs={max_epochs}"]
        return subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
                                 "2", "-m", "punct.bin.train", "--config", str(ROOT / "conf" / "tbrnn.yaml"),
                                 "--train", str(tr), "--valid", str(dev), "--exp", str(exp), *args],
                                cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)

    p = two_ranks(1000)
    err = []
    try:
        for line in p.stderr:
            err.append(line)
            if "epoch 2: train loss" in line:  # inside the batch loop, where the signal is deferred
                os.killpg(p.pid, signal.SIGTERM)
                break
        err += p.stderr.readlines()
        rc = p.wait(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    err = "".join(err)
    assert rc != 0, err[-3000:]
    assert sum(line.startswith("error: ") and "training stopped by SIGTERM at epoch" in line
               for line in err.splitlines()) == 1, err[-3000:]  # told once, by rank 0
    assert sum(": stopped at epoch" in line for line in err.splitlines()) == 1, err[-3000:]  # rank 0 tells it
    prog = ckpt.load(exp / "checkpoint.pt")["progress"]
    assert prog["epoch"] >= 2 and not (exp / "train_done.json").exists()
    p = two_ranks(prog["epoch"] + 1)
    err = p.stderr.read()
    assert p.wait(timeout=300) == 0, err[-3000:]
    assert f"resuming from {exp / 'checkpoint.pt'}: epoch {prog['epoch'] + 1}, batch {prog['batch']}" in err
    assert ckpt.load(exp / "checkpoint.pt")["progress"]["epoch"] == prog["epoch"] + 1
