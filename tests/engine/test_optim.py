"""punct.engine.optim: the halving and plateau steps back to the best weights, the fused
optimizer kernels and the implementation a resumed run steps with, and the learning rate."""
from __future__ import annotations

import pytest
import torch

from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig


def test_halving_step_goes_back_to_the_best_weights(tmp_path):
    from punct.engine.optim import halving_step

    cfg = TrainConfig(lr_schedule="halving")
    model = torch.nn.Linear(2, 2)
    best = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    from punct.text.labels import LABELS

    ckpt.save(tmp_path / "best.pt", {"state_dict": best, "labels": list(LABELS)})
    prog = {"epoch": 4, "best_ppl": 1.30, "best_epoch": 4}
    halving_step(cfg, prog, 1.20, True, model, tmp_path / "best.pt")  # a real gain: nothing changes
    assert "halving" not in prog and model.weight.abs().sum() > 0
    halving_step(cfg, prog, 1.35, False, model, tmp_path / "best.pt")  # worse: halve, back to the best weights
    assert prog["halving"] and prog["lr_scale"] == 0.5 and model.weight.abs().sum() == 0
    halving_step(cfg, prog, 1.2999, True, model, tmp_path / "best.pt")  # a gain under 0.3% of log-ppl: stop
    assert prog["halved_out"] and prog["lr_scale"] == 0.5


def test_plateau_step_goes_back_to_the_best_weights_and_decays_the_rate(tmp_path):
    from punct.engine.optim import plateau_step
    from punct.text.labels import LABELS

    cfg = TrainConfig(lr_schedule="plateau", lr_decay=0.25, lr=0.01)
    model = torch.nn.Linear(2, 2)
    ckpt.save(tmp_path / "best.pt", {"state_dict": {k: torch.zeros_like(v) for k, v in model.state_dict().items()},
                                     "labels": list(LABELS)})
    prog = {"epoch": 6, "best_epoch": 4}
    plateau_step(cfg, prog, model, tmp_path / "best.pt", 1)
    assert prog["lr_scale"] == 0.25 and model.weight.abs().sum() == 0
    plateau_step(cfg, prog, model, tmp_path / "best.pt", 1)
    assert prog["lr_scale"] == 0.25 ** 2


@pytest.mark.parametrize("optimizer", ["adagrad", "adam", "adamw"])
def test_fused_optimizer_is_the_same_update(optimizer, tiny_cfg):
    """The optimizer steps with torch's fused CPU kernel; it gives the update of the
    foreach implementation up to float rounding."""
    from punct.engine.optim import make_optimizer

    torch.manual_seed(0)
    start = [torch.randn(50, 8), torch.randn(8)]
    grads = [[torch.randn_like(p) for p in start] for _ in range(5)]
    weights = {}
    for fused in (True, False):
        params = [torch.nn.Parameter(p.clone()) for p in start]
        opt = make_optimizer(tiny_cfg(f"optimizer={optimizer}", "lr=0.01", "weight_decay=0.01"), params, fused)
        assert bool(opt.defaults.get("fused")) is fused
        for g in grads:
            for p, gp in zip(params, g):
                p.grad = gp.clone()
            opt.step()
        weights[fused] = params
    for a, b, s in zip(weights[True], weights[False], start):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
        assert not torch.equal(a, s)


def test_a_resume_steps_with_the_configs_optimizer_implementation(tiny_cfg):
    """torch's load_state_dict restores the saved groups' implementation; a run saved on the
    foreach path resumes on the fused one (and back) as the config now says."""
    from punct.engine.optim import load_optimizer_state, make_optimizer

    params = [torch.nn.Parameter(torch.randn(4, 3))]
    params[0].grad = torch.randn(4, 3)
    for saved, now in ((False, True), (True, False)):
        old = make_optimizer(tiny_cfg("optimizer=adam"), params, saved)
        old.step()
        new = make_optimizer(tiny_cfg("optimizer=adam"), params, now)
        load_optimizer_state(new, old.state_dict())
        assert bool(new.param_groups[0]["fused"]) is now
        assert int(new.state[params[0]]["step"]) == 1
        new.step()
        assert int(new.state[params[0]]["step"]) == 2


def test_lr_at_warms_up_then_decays_linearly_to_zero():
    from punct.engine.optim import lr_at

    cfg = TrainConfig(lr_schedule="linear", lr=0.1, warmup_steps=4)
    rates = [lr_at(cfg, s, 12) for s in range(13)]
    assert rates[:4] == pytest.approx([0.025, 0.05, 0.075, 0.1])
    assert rates[4:] == pytest.approx([0.1 * (12 - s) / 8 for s in range(4, 13)]) and rates[-1] == 0.0


@pytest.mark.parametrize("schedule", ["constant", "halving"])
def test_lr_at_is_the_configured_rate_without_a_step_schedule(schedule):
    from punct.engine.optim import lr_at

    cfg = TrainConfig(lr_schedule=schedule, lr=0.02, warmup_steps=4)
    assert {lr_at(cfg, s, 10) for s in range(10)} == {0.02}
