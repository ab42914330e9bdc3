"""Adagrad's accumulator for a warm start (TrainConfig ``warm_accumulator_steps``).

Adagrad divides each step by the root of the sum of the squared gradients seen so far. A
model trained for N steps and then trained on from its weights alone (init_from: a shipped
model, whose run and accumulator are gone) would start with an empty sum, and take steps
about sqrt(N) times larger than its own last ones: a jolt that undoes part of what it
learnt. Here the sum is estimated instead, as N times the mean squared gradient of a few
batches at the starting weights (the clipped gradients Adagrad would see). The embedding's
rows are estimated per row (row-wise Adagrad's approximation): a batch holds few of its
words, and a row no batch of the sample touched takes the smallest estimate of a row that
one did, which is what a word seen about once in the sample would have.
"""
from __future__ import annotations

import logging

from typing import Any

import numpy as np
import torch

log = logging.getLogger(__name__)


def estimate_accumulator(stepper: Any, embedding: torch.nn.Parameter | None, steps: int, batches: int,
                         seed: int) -> None:
    """Set the Adagrad accumulator of ``stepper.opt`` (a punct.engine.sgd.Stepper) to ``steps`` times the mean squared
    gradient of ``batches`` batches drawn with ``seed`` (``embedding``: the weight estimated per
    row); its step count to ``steps``. The weights do not change."""
    opt, train_sl, cfg = stepper.opt, stepper.train_sl, stepper.cfg
    if not isinstance(opt, torch.optim.Adagrad):
        raise TypeError(f"an Adagrad accumulator is estimated for Adagrad, not {type(opt).__name__}")
    rng = np.random.default_rng([seed, 7919])  # not the epochs' order: those batches are still to come
    params = stepper.params
    sums = [torch.zeros_like(p) for p in params]
    n_batches = max(1, min(batches, len(train_sl) // max(1, cfg.batch_size)))
    was_training = stepper.model.training
    stepper.model.train()
    for b in range(n_batches):
        idx = np.sort(rng.choice(len(train_sl), size=min(cfg.batch_size, len(train_sl)), replace=False))
        n, _, _ = stepper.gradient(1 << 20, b, idx)  # an epoch no run reaches: its own word dropout
        for s, p in zip(sums, params):
            if n and p.grad is not None:
                s.add_(p.grad.detach() ** 2)
    opt.zero_grad(set_to_none=True)
    stepper.model.train(was_training)
    init = opt.defaults.get("initial_accumulator_value", 0.0)
    for s, p in zip(sums, params):
        s.mul_(steps / n_batches)
        if embedding is not None and p is embedding:
            rows = s.mean(dim=1)
            seen = rows > 0
            if bool(seen.any()):
                rows = torch.where(seen, rows, rows[seen].min())
            s.copy_(rows[:, None].expand_as(s))
        state = opt.state[p]
        state["sum"].copy_(s + init)
        state["step"].fill_(float(steps))
    log.info("Adagrad accumulator estimated as %d steps of the squared gradients of %d batches (the embedding per "
             "row): the warm start's rate goes on near where its training left it", steps, n_batches)
