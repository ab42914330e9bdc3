from pathlib import Path

import pytest
import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.train import train
from punct.errors import PunctError


ROOT = Path(__file__).resolve().parents[2]


TINY_ARGS = ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8"]


def tiny_cfg(*extra: str) -> TrainConfig:
    return load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig,
                       TINY_ARGS + ["batch_size=4", "slice_length=20", "max_epochs=2", "checkpoint_minutes=0",
                                                       "threads=1", *extra])  # tiny tensors: 1 thread is faster


# every config under conf/ builds and trains: tests/models/test_configs.py


def test_outputs_and_best_model(tiny_data, tmp_path):
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg(), tr, dev, exp, command="cmd line")
    assert prog["epoch"] == 2
    lines = (exp / "train_log.tsv").read_text().splitlines()
    assert lines[0].split("\t") == ["epoch", "train_loss", "valid_ppl", "valid_f1", "seconds", "words_per_s"]
    assert len(lines) == 3
    assert (exp / "cmd").read_text() == "cmd line\n"
    assert "model_args:" in (exp / "config.yaml").read_text()
    model, vocab, ck = ckpt.load_model(exp / "best.pt")
    assert len(vocab) == 33 and ck["model"] == "tbrnn" and "optimizer" not in ck
    import json

    done = json.loads((exp / "train_done.json").read_text())
    assert done["stopped"] == "max_epochs" and done["epochs"] == 2 and done["best_epoch"] in (1, 2)


def test_resume_mid_epoch_gives_identical_weights(tiny_data, tmp_path):
    tr, dev = tiny_data
    train(tiny_cfg(), tr, dev, tmp_path / "a")

    class Killed(Exception):
        pass

    def kill(epoch, batch):
        if epoch == 1 and batch == 3:
            raise Killed

    with pytest.raises(Killed):
        train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=kill)
    assert ckpt.load(tmp_path / "b" / "checkpoint.pt")["progress"]["batch"] == 2  # killed during step 3
    steps = []
    train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=lambda e, b: steps.append((e, b)))
    assert steps[0] == (1, 3)  # resumed at the third batch of the second epoch
    a = ckpt.load(tmp_path / "a" / "checkpoint.pt")
    b = ckpt.load(tmp_path / "b" / "checkpoint.pt")
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("seconds", "words_per_s")} for r in rows]
    assert strip(a["progress"]["history"]) == strip(b["progress"]["history"])


def test_resume_refuses_changed_model(tiny_data, tmp_path):
    tr, dev = tiny_data
    train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "e")
    with pytest.raises(PunctError, match="hidden_size"):
        train(tiny_cfg("model_args.hidden_size=4"), tr, dev, tmp_path / "e")
