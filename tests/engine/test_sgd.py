"""punct.engine.sgd: the batches of an epoch (the same in every run with the seed, a fresh
subset each epoch with epoch_slices) and one optimizer step on the tiny synthetic corpus (the
loss counted, the rate of the linear schedule and its re-warm set, the gradient clipped)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from punct.engine.sgd import Stepper, epoch_batches


def test_an_epoch_is_every_slice_once_in_the_seeds_order(tiny_cfg):
    cfg = tiny_cfg()
    batches = epoch_batches(cfg, 7, 10, 0)
    assert sorted(np.concatenate(batches).tolist()) == list(range(10)) and max(len(b) for b in batches) == 4
    assert [b.tolist() for b in batches] == [b.tolist() for b in epoch_batches(cfg, 7, 10, 0)]
    assert [b.tolist() for b in batches] != [b.tolist() for b in epoch_batches(cfg, 7, 10, 1)]


def test_epoch_slices_take_a_fresh_subset_every_epoch(tiny_cfg):
    cfg = tiny_cfg("epoch_slices=6")
    subsets = [sorted(np.concatenate(epoch_batches(cfg, 7, 20, e)).tolist()) for e in range(3)]
    assert all(len(s) == 6 == len(set(s)) for s in subsets) and len({tuple(s) for s in subsets}) > 1
    assert sorted(np.concatenate(epoch_batches(tiny_cfg("epoch_slices=50"), 7, 20, 0)).tolist()) == list(range(20))


@pytest.fixture
def tiny_run(tiny_data, tiny_cfg, one_torch_thread):
    """(model, featurizer, slices) of the tiny T-BRNN on the synthetic training set."""
    from punct.data.datadir import load_utterances
    from punct.engine.batching import load_slices
    from punct.engine.inputs import WordInputs
    from punct.engine.vocab import Vocabulary
    from punct.models import build_model, resolved_model_args

    inputs = WordInputs(Vocabulary.build([u.texts for u in load_utterances(tiny_data[0])], min_count=1))
    torch.manual_seed(0)
    model = build_model("tbrnn", resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8,
                                                                "attention_dim": 8}), inputs.input_size)
    return model, inputs, load_slices(tiny_data[0], inputs.vocab, 20)


def test_a_step_counts_its_loss_and_sets_the_linear_schedules_rate(tiny_run, tiny_cfg):
    model, inputs, sl = tiny_run
    cfg = tiny_cfg("optimizer=sgd", "lr=0.1", "lr_schedule=linear", "warmup_steps=4", "clip_norm=0.5")
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    prog = {"loss_sum": 0.0, "loss_words": 0}
    before = {k: v.clone() for k, v in model.state_dict().items()}
    words = Stepper(cfg, model, opt, inputs, sl)(0, 0, np.arange(4), 1, 10, prog)
    assert words == int(sl.lengths[:4].sum()) and prog["loss_words"] == int((sl.labels[:4] >= 0).sum()) > 0
    assert prog["loss_sum"] > 0 and opt.param_groups[0]["lr"] == pytest.approx(0.1 * 2 / 4)
    moved = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
    assert moved
    prog["rewarm_from"] = 5  # a resume without moments: the rate ramps up over rewarm_steps
    Stepper(tiny_cfg("optimizer=sgd", "lr=0.1", "lr_schedule=linear", "rewarm_steps=2"), model, opt, inputs,
            sl)(0, 1, np.arange(4, 8), 5, 10, prog)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 5 / 10 / 2)


def test_the_gradient_is_clipped_to_clip_norm(tiny_run, tiny_cfg):
    model, inputs, sl = tiny_run
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    Stepper(tiny_cfg("clip_norm=0.01"), model, opt, inputs, sl)(0, 0, np.arange(4), 0, 10,
                                                                  {"loss_sum": 0.0, "loss_words": 0})
    norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]))
    assert norm.item() == pytest.approx(0.01, rel=1e-3)
