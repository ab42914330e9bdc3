"""A training run carried in a state file (punct.engine.carry) with a tiny random MPNet and the
adapter code of the accurate tier (conf/accurate.yaml): the file holds the trained part only,
a run resumed from it in a new process on a wiped exp/ ends at the weights of a run never
stopped, a changed config is refused, a corrupt file is one clear line, the time budget stops
a run in time and a rerun goes on without repeating or skipping a batch."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from punct.config import load_config
from punct.engine import carry
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.train import _Run, train
from punct.errors import PunctError
from punct.text.labels import LABELS

ROOT = Path(__file__).resolve().parents[2]
#: conf/accurate.yaml on the tiny MPNet (2 layers): adapters on both, rank 2; 2 epochs of 3 steps
TINY = ["model_args.pretrained=false", "model_args.max_length=16", "model_args.overlap=4", "model_args.lora_rank=2",
        "model_args.lora_layers=0", "model_args.lora_dropout=0.1", "warmup_steps=2", "rewarm_steps=2",
        "decode_window=20", "valid_batch_size=4", "batch_size=4", "slice_length=20", "max_epochs=2",
        "epoch_slices=12", "valid_slices=4", "checkpoint_minutes=0", "threads=1"]


def cfg_of(*extra):
    return load_config(ROOT / "conf/accurate.yaml", TrainConfig, TINY + list(extra))


def trained_part(path):
    return ckpt.load(path)["state_dict"]


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_the_state_holds_only_the_trained_part_and_loads_as_a_model(tiny_mpnet, tiny_data, tmp_path):
    from punct.engine.checkpoint import load_model

    st = tmp_path / "models" / "tagger.pt"
    prog = train(cfg_of(), *tiny_data, tmp_path / "exp", state=st)
    sd = trained_part(st)
    assert sd and all("lora_" in k or k.startswith(("out.", "case_out.")) for k in sd)
    assert prog["words_seen"] == prog["valid_curve"][-1]["words_seen"] > prog["valid_curve"][0]["words_seen"] > 0
    record = json.loads((tmp_path / "models" / "tagger.pt.json").read_text())
    assert record["step"] == 6 and record["epoch"] == 2 and len(record["validation"]) == 2
    assert record["config_hash"] == ckpt.load(st)["config_hash"]
    # the file is a model: punct restore loads it (the encoder from its own file, the rest from here)
    model, _, ck = load_model(st)
    heads = {k: v for k, v in sd.items() if k.startswith(("out.", "case_out."))}
    assert heads and all(torch.equal(model.state_dict()[k], v) for k, v in heads.items())
    assert not any("lora_" in n for n, _ in model.named_parameters())  # merged into the encoder for decoding
    # the best.pt of the experiment directory is as small: the encoder is never saved
    assert set(trained_part(tmp_path / "exp" / "best.pt")) == set(sd)


def test_a_finished_state_run_again_keeps_its_file_and_writes_the_experiment(tiny_mpnet, tiny_data, tmp_path):
    """The state file of a finished schedule, as it ships (with the decision bias punct set-bias
    wrote into it), run again on a fresh exp/: nothing is trained, the file stays byte for byte
    (a pause stage pins its sha256), and the exp/ gets the run's log and train_done.json."""
    from punct.bin.set_bias import main as set_bias
    from punct.engine.expdir import read_train_log

    st = tmp_path / "models" / "tagger.pt"
    prog = train(cfg_of(), *tiny_data, tmp_path / "exp", state=st)
    assert set_bias(["--model", str(st), "--bias", "0.5", "0", "0"]) == 0
    record = json.loads(st.with_suffix(".pt.json").read_text())  # the readable record shows it
    assert record["decision_bias"] == {"COMMA": 0.5, "PERIOD": 0.0, "QUESTION": 0.0}
    assert record["decision_bias_from"] == {"given": True}
    before = st.read_bytes()
    again = train(cfg_of(), *tiny_data, tmp_path / "fresh", state=st)
    assert st.read_bytes() == before
    assert [r["epoch"] for r in read_train_log(tmp_path / "fresh" / "train_log.tsv")] == [1, 2]
    assert json.loads((tmp_path / "fresh" / "train_done.json").read_text())["stopped"] == "max_epochs"
    assert again["step"] == prog["step"]
    # a run that trains writes the file anew from its own payload, which has no bias: it is kept
    ck = ckpt.load(st)
    payload = {k: v for k, v in ck.items() if k not in carry.SHIPPED_KEYS + ("format", "config_hash")}
    carry.write_state(st, dict(payload, progress=dict(ck["progress"], note="rewritten")), None)
    ck = ckpt.load(st)
    assert ck["progress"]["note"] == "rewritten" and ck["decision_bias"]["COMMA"] == 0.5
    assert json.loads(st.with_suffix(".pt.json").read_text())["decision_bias"]["COMMA"] == 0.5


STOP_AFTER = """
import os, signal, sys
from punct.engine import train as t
sys.argv = ["punct.bin.train"] + sys.argv[1:]
real = t.train
def stopping(*a, **kw):
    kw["on_step"] = lambda e, b: os.kill(os.getpid(), signal.SIGTERM) if (e, b) == (0, 2) else None
    return real(*a, **kw)
t.train = stopping
from punct.bin.train import main
sys.exit(main())
"""


def test_a_run_resumed_from_the_state_in_a_new_process_ends_as_one_never_stopped(tiny_mpnet, tiny_data, tmp_path):
    tr, dev = tiny_data
    train(cfg_of(), tr, dev, tmp_path / "once", state=tmp_path / "once.pt")
    st = tmp_path / "models" / "tagger.pt"
    args = ["--config", str(ROOT / "conf/accurate.yaml"), "--train", str(tr), "--valid", str(dev), "--state", str(st)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # first machine: SIGTERM after two steps; the state file is written, then the machine is gone
    r = subprocess.run([sys.executable, "-c", STOP_AFTER, *args, "--exp", str(tmp_path / "m1"), *TINY],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 143, r.stderr
    assert ckpt.load(st)["progress"]["step"] == 2 and "optimizer" in ckpt.load(st)
    # second machine: a fresh exp/, only the state file
    r = subprocess.run([sys.executable, "-m", "punct.bin.train", *args, "--exp", str(tmp_path / "m2"), *TINY],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "resuming from " + str(st) + ": epoch 1, batch 2" in r.stderr
    assert_same(trained_part(st), trained_part(tmp_path / "once.pt"))
    a, b = ckpt.load(st)["progress"], ckpt.load(tmp_path / "once.pt")["progress"]
    assert (a["step"], a["words_seen"]) == (b["step"], b["words_seen"]) == (6, b["words_seen"])
    assert [v["valid_f1"] for v in a["valid_curve"]] == [v["valid_f1"] for v in b["valid_curve"]]


def test_a_resume_without_moments_ramps_the_rate_and_goes_on_at_the_next_batch(tiny_mpnet, tiny_data, tmp_path,
                                                                               monkeypatch):
    tr, dev = tiny_data
    st = tmp_path / "tagger.pt"
    monkeypatch.setattr(carry, "STATE_MAX_BYTES", 40_000)  # the weights fit, compact moments do not
    calls = {"n": 0}

    def out_of_time(self, step_seconds):
        calls["n"] += 1
        return calls["n"] == 3 and self.deadline is not None  # before the third step of the first call

    monkeypatch.setattr(_Run, "out_of_time", out_of_time)
    p1 = train(cfg_of(), tr, dev, tmp_path / "m1", state=st, time_budget=3600)
    assert p1["stopped"] == "time budget" and p1["step"] == 2
    assert not (tmp_path / "m1" / "train_done.json").exists()
    rec = json.loads(Path(str(st) + ".json").read_text())
    assert rec["step"] == 2 and rec["validation"][-1]["partial_epoch"] and not rec["optimizer_moments"]
    assert rec["weights"] == "float32"
    rates, steps = [], []
    from punct.engine.sgd import Stepper

    real_step = Stepper.__call__

    def step(self, epoch, b, idx, step, total, prog):
        steps.append((epoch, b))
        n = real_step(self, epoch, b, idx, step, total, prog)
        rates.append(self.opt.param_groups[0]["lr"])
        return n

    monkeypatch.setattr(Stepper, "__call__", step)
    p2 = train(cfg_of(), tr, dev, tmp_path / "m2", state=st)  # a new machine
    assert steps == [(0, 2), (1, 0), (1, 1), (1, 2)]  # neither repeated nor skipped
    assert p2["rewarm_from"] == 2 and p2["step"] == 6
    from punct.engine.optim import lr_at

    cfg = cfg_of()
    assert rates[0] == pytest.approx(lr_at(cfg, 2, 6) / 2) and rates[1] == pytest.approx(lr_at(cfg, 3, 6))
    assert (tmp_path / "m2" / "train_done.json").exists()
    assert p2["words_seen"] == train(cfg_of(), tr, dev, tmp_path / "once")["words_seen"]
    # the finished run's file, resumed once more: nothing is left to do, and it stays as it is
    before = trained_part(st)
    train(cfg_of(), tr, dev, tmp_path / "m3", state=st)
    assert_same(before, trained_part(st))


def test_a_changed_config_is_refused(tiny_mpnet, tiny_data, tmp_path):
    st = tmp_path / "tagger.pt"
    train(cfg_of("max_epochs=1"), *tiny_data, tmp_path / "a", state=st)
    with pytest.raises(PunctError, match="cannot resume: max_epochs|config's hash"):
        train(cfg_of("max_epochs=3"), *tiny_data, tmp_path / "b", state=st)
    with pytest.raises(PunctError, match="cannot resume: lr was"):
        train(cfg_of("max_epochs=1", "lr=0.1"), *tiny_data, tmp_path / "c", state=st)
    # what does not change the learning (threads) resumes
    train(cfg_of("max_epochs=1", "threads=2"), *tiny_data, tmp_path / "d", state=st)


def test_a_corrupt_state_file_is_one_clear_line(tiny_mpnet, tiny_data, tmp_path):
    st = tmp_path / "tagger.pt"
    st.write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\n")
    r = subprocess.run([sys.executable, "-m", "punct.bin.train", "--config", str(ROOT / "conf/accurate.yaml"),
                        "--train", str(tiny_data[0]), "--valid", str(tiny_data[1]), "--exp", str(tmp_path / "e"),
                        "--state", str(st), *TINY], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       capture_output=True, text=True)
    assert r.returncode == 1
    lines = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1 and str(st) in lines[0] and "not a readable model file" in lines[0], r.stderr
    assert st.read_bytes().startswith(b"version")  # left as it was


def test_a_state_over_the_limit_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(carry, "STATE_MAX_BYTES", 1000)
    payload = {"state_dict": {"w": torch.zeros(1000)}, "train_config": {"seed": 1}, "progress": {"epoch": 0, "batch": 0}}
    with pytest.raises(PunctError, match="over the 0 MB"):
        carry.write_state(tmp_path / "s.pt", payload, None)
    assert not (tmp_path / "s.pt").exists()


def test_a_gpu_run_without_a_gpu_is_one_clear_error(tiny_mpnet, tiny_data, tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(PunctError, match="--device cuda: this torch sees no GPU"):
        train(cfg_of(), *tiny_data, tmp_path / "e", state=tmp_path / "s.pt", device="cuda")
    with pytest.raises(PunctError, match="unknown device 'tpu'"):
        train(cfg_of(), *tiny_data, tmp_path / "e2", device="tpu")
    assert not (tmp_path / "s.pt").exists()


def test_the_device_plumbing_builds_batches_and_autocast_for_the_model_s_device(tiny_mpnet, tiny_data):
    """What --device cuda changes, checked where the CPU can: batches go to the device given,
    autocast takes the device's type, and the loss's label weights follow the logits."""
    from punct.engine.batching import batch_inputs, load_slices
    from punct.engine.inputs import PieceInputs
    from punct.engine.loss import autocast, device_of, label_weights_of, loss_sum_of
    from punct.models import build_model

    inputs = PieceInputs("all-mpnet-base-v2")
    sl = load_slices(tiny_data[0], inputs, length=20)
    kw, mask, y = batch_inputs(inputs, sl, [0, 1], "cpu")
    assert all(v.device.type == "cpu" for v in kw.values()) and y.device.type == "cpu"
    m = build_model("transformer_tagger", {"encoder": "all-mpnet-base-v2", "pretrained": False, "adapter": "lora",
                                           "lora_rank": 2, "max_length": 16, "overlap": 4}, inputs.input_size)
    assert device_of(m) == "cpu"
    with autocast("bf16", "cpu"):
        assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    cfg = cfg_of()
    loss = loss_sum_of(m, kw, y, "fp32", None, label_weights_of(cfg))
    assert torch.isfinite(loss)


def test_a_key_added_at_its_default_leaves_the_config_hash_of_older_state_files():
    from punct.engine.carry import config_hash

    old = {"lr": 0.02, "seed": 1}
    assert config_hash({**old, "distill_mark_weights": False}) == config_hash(old)
    assert config_hash({**old, "distill_mark_weights": True}) != config_hash(old)


def _adagrad_state(rows):
    emb, lin = torch.nn.Embedding(rows, 8), torch.nn.Linear(8, 3)
    opt = torch.optim.Adagrad(list(emb.parameters()) + list(lin.parameters()), lr=0.1, initial_accumulator_value=1e-6)
    lin(emb(torch.arange(0, rows, 7))).pow(2).sum().backward()
    opt.step()
    return emb, lin, opt


def test_compact_moments_keep_row_means_and_expand_to_the_full_shapes():
    emb, lin, opt = _adagrad_state(carry.COMPACT_MIN_ROWS)
    sd = opt.state_dict()
    back = carry.expand_optimizer(carry.compact_optimizer(sd))
    e_full, e_back = sd["state"][0]["sum"], back["state"][0]["sum"]
    assert e_back.shape == e_full.shape and e_back.dtype == torch.float32
    assert torch.allclose(e_back[:, 0], e_full.mean(dim=1)) and torch.equal(e_back, e_back[:, :1].expand_as(e_back))
    w_full, w_back = sd["state"][1]["sum"], back["state"][1]["sum"]  # a small matrix: every value, as bfloat16
    assert torch.allclose(w_back, w_full, rtol=1e-2) and not torch.equal(w_back, w_back[:, :1].expand_as(w_back))
    assert back["state"][1]["step"] == sd["state"][1]["step"]
    opt2 = torch.optim.Adagrad(list(emb.parameters()) + list(lin.parameters()), lr=0.1)
    opt2.load_state_dict(back)  # as train.py loads it on a resume
    assert opt2.state[emb.weight]["sum"].shape == emb.weight.shape


@pytest.mark.parametrize("limit, moments, weights", [
    (10_000_000, "full", "float32"),
    (460_000, "compact", "float32"),   # full moments would double the file
    (300_000, "compact", "float16"),   # float32 weights do not fit, even without moments
    (200_000, False, "float16"),       # nor do compact moments beside float16 weights
])
def test_a_state_keeps_the_most_that_fits(tmp_path, monkeypatch, limit, moments, weights):
    emb, lin, opt = _adagrad_state(carry.COMPACT_MIN_ROWS)  # weights 320 KB as float32
    monkeypatch.setattr(carry, "STATE_MAX_BYTES", limit)
    sd = {"embedding.weight": emb.weight.detach(), "out.weight": lin.weight.detach(), "out.bias": lin.bias.detach()}
    payload = {"state_dict": sd, "train_config": {"seed": 1}, "progress": {"epoch": 0, "batch": 3},
               "labels": list(LABELS)}
    kept = carry.write_state(tmp_path / "s.pt", payload, opt.state_dict())
    rec = json.loads((tmp_path / "s.pt.json").read_text())
    assert (rec["optimizer_moments"], rec["weights"], kept) == (moments, weights, bool(moments))
    ck = ckpt.load(tmp_path / "s.pt")
    assert (tmp_path / "s.pt").stat().st_size <= limit and ck["progress"]["batch"] == 3
    assert torch.allclose(ck["state_dict"]["embedding.weight"].float(), emb.weight.detach(), rtol=1e-3, atol=1e-3)
