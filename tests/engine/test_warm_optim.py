"""punct.engine.warm_optim: a warm start's Adagrad accumulator estimated from the squared
gradients at its starting weights (TrainConfig warm_accumulator_steps), through punct.engine.train."""
from __future__ import annotations

import pytest
import torch

from punct.engine import checkpoint as ckpt
from punct.engine.train import train
from punct.errors import PunctError


def _warm(tiny_data, tmp_path, tiny_cfg, name, *extra):
    """A warm start from ``tmp_path/first`` that trains no epoch (max_epochs is the start's):
    its checkpoint.pt holds the optimizer as the warm start left it."""
    tr, dev = tiny_data
    if not (tmp_path / "first" / "best.pt").is_file():
        train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "first")
    train(tiny_cfg(f"init_from={tmp_path / 'first' / 'best.pt'}", "max_epochs=1", *extra), tr, dev, tmp_path / name)
    ck = ckpt.load(tmp_path / name / "checkpoint.pt")
    names = list(ck["state_dict"])
    params = [k for k in names if ck["state_dict"][k].is_floating_point()]
    return ck, {params[int(i)]: st for i, st in ck["optimizer"]["state"].items()}


def test_the_accumulator_is_its_steps_of_squared_gradients_and_the_weights_stay(tiny_data, tmp_path, tiny_cfg):
    init = 1e-6  # conf/tbrnn.yaml's adagrad_accumulator_init
    fresh, fresh_st = _warm(tiny_data, tmp_path, tiny_cfg, "fresh")
    ck, st = _warm(tiny_data, tmp_path, tiny_cfg, "warm", "warm_accumulator_steps=50", "warm_accumulator_batches=3")
    assert all(torch.allclose(s["sum"], torch.full_like(s["sum"], init)) for s in fresh_st.values())
    assert all(float(s["step"]) == 50 for s in st.values())
    grown = [k for k, s in st.items() if float((s["sum"] - init).max()) > 0]
    assert "embedding.weight" in grown and len(grown) >= len(st) - 2  # (a bias no loss reaches may stay at init)
    emb = st["embedding.weight"]["sum"]
    assert torch.equal(emb, emb[:, :1].expand_as(emb))  # one value a row: row-wise Adagrad's
    assert float(emb.min()) > init  # a row no sampled batch touched takes the smallest touched row's
    first = ckpt.load(tmp_path / "first" / "best.pt")
    for k, v in first["state_dict"].items():
        assert torch.equal(ck["state_dict"][k], v), k  # estimating steps nothing
    # twice the steps, the same batches: twice the sum
    _, st2 = _warm(tiny_data, tmp_path, tiny_cfg, "warm2", "warm_accumulator_steps=100", "warm_accumulator_batches=3")
    for k in st:
        assert torch.allclose(st2[k]["sum"] - init, 2 * (st[k]["sum"] - init), rtol=1e-4, atol=1e-9), k


@pytest.mark.parametrize("extra, message", [
    (("warm_accumulator_steps=10", "optimizer=adam"), "needs optimizer adagrad"),
    (("warm_accumulator_batches=0",), "warm_accumulator_batches must be >= 1"),
    (("warm_accumulator_steps=-1",), "warm_accumulator_steps must be >= 0"),
])
def test_the_keys_are_checked(tiny_cfg, extra, message):
    with pytest.raises(PunctError, match=message):
        tiny_cfg(*extra)
