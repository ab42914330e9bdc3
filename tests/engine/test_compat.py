"""Checkpoints of the engine before featurizers (tests/engine/fixtures/old_tbrnn) still
load, decode and resume exactly as that engine did."""
import json
import shutil
from pathlib import Path

import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.decode import decode
from punct.engine.train import train

ROOT = Path(__file__).resolve().parents[2]
OLD = Path(__file__).parent / "fixtures" / "old_tbrnn"
# the fixtures were written before adagrad_accumulator_init (torch's default, 0) and
# loss_reduction (the mean) existed
OVERRIDES = ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8",
             "batch_size=4", "slice_length=20", "checkpoint_minutes=0", "adagrad_accumulator_init=0.0",
             "loss_reduction=mean"]


def assert_same_weights(want: dict, got: dict) -> None:
    """The fixture's weights were written on another CPU: its float kernels (AVX2 against
    AVX-512, say) round differently, about 1e-7 after one epoch here. A resume that lost the
    optimizer state, the data order or the rate moves the weights by 1e-3 or more."""
    assert want.keys() <= got.keys()
    for k in want:
        torch.testing.assert_close(got[k], want[k], rtol=1e-5, atol=1e-5, msg=lambda m, k=k: f"{k}: {m}")


def test_old_checkpoint_decodes_identically(tiny_data):
    _, dev = tiny_data
    model, vocab, ck = ckpt.load_model(OLD / "best.pt")
    assert "inputs" not in ck and len(vocab) == 33
    hyp = decode(OLD / "best.pt", dev, window=7, runtime="torch", end_sentence=False)  # the model alone
    assert [u.labels for u in hyp] == json.loads((OLD / "decode_dev_window7.json").read_text())


def test_old_checkpoint_resumes_to_the_same_weights(tiny_data, tmp_path):
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    exp.mkdir()
    shutil.copy(OLD / "checkpoint_epoch1.pt", exp / "checkpoint.pt")
    cfg = load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, OVERRIDES + ["max_epochs=2"])
    prog = train(cfg, tr, dev, exp)
    assert prog["epoch"] == 2
    want = torch.load(OLD / "state_epoch2.pt", weights_only=True)
    got = ckpt.load(exp / "checkpoint.pt")["state_dict"]
    assert_same_weights(want, got)


def test_resume_refuses_a_changed_optimizer_setting(tiny_data, tmp_path):
    """A checkpoint from before adagrad_accumulator_init existed counts as 0; resuming it with
    conf/tbrnn.yaml's punctuator2 value would change what is learnt, so it is refused."""
    import pytest

    from punct.errors import PunctError

    exp = tmp_path / "exp"
    exp.mkdir()
    shutil.copy(OLD / "checkpoint_epoch1.pt", exp / "checkpoint.pt")
    no_accumulator = [o for o in OVERRIDES if not o.startswith("adagrad_accumulator_init")]
    cfg = load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, no_accumulator + ["max_epochs=2"])
    assert cfg.adagrad_accumulator_init == 1e-6
    with pytest.raises(PunctError, match="adagrad_accumulator_init was 0.0, now 1e-06"):
        train(cfg, tiny_data[0], tiny_data[1], exp)


def test_resume_ignores_a_parameter_of_another_schedule(tiny_data, tmp_path):
    """lr_decay is read only by lr_schedule plateau: a constant-rate checkpoint written before
    lr_decay existed (so 0.5) trains on with 0.3 to the same weights; switching the schedule
    itself to plateau is refused."""
    import pytest

    from punct.errors import PunctError

    tr, dev = tiny_data
    for schedule, ok in (("constant", True), ("plateau", False)):
        exp = tmp_path / schedule
        exp.mkdir()
        shutil.copy(OLD / "checkpoint_epoch1.pt", exp / "checkpoint.pt")
        cfg = load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig,
                          OVERRIDES + ["max_epochs=2", "lr_decay=0.3", f"lr_schedule={schedule}"])
        if not ok:
            with pytest.raises(PunctError, match="lr_schedule was 'constant', now 'plateau'"):
                train(cfg, tr, dev, exp)
            continue
        assert train(cfg, tr, dev, exp)["epoch"] == 2
        want = torch.load(OLD / "state_epoch2.pt", weights_only=True)
        got = ckpt.load(exp / "checkpoint.pt")["state_dict"]
        assert_same_weights(want, got)
