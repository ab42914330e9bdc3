"""One optimizer step of an SGD training run, and the order of an epoch's batches: the parts
of punct.engine.train's run that touch the weights. ``Stepper(cfg, model, opt, inputs,
train_sl)`` holds what a step needs; calling it on the slice indices of one batch computes the
loss (data-parallel across ranks under torchrun), clips the gradient, sets the learning rate
of the schedule and steps; ``gradient`` stops before the step. ``epoch_batches`` gives the
batches of an epoch, the same in every run with the seed (the resume record's data order)."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from punct.engine.batching import Slices, batch_inputs, epoch_order
from punct.engine.config import SlicingConfig, TrainConfig
from punct.engine.loss import Distill, label_weights_of, loss_sum_of, map_targets, word_dropout_of
from punct.engine.optim import lr_at
from punct.engine.parallel import dist_info, dist_step


def epoch_batches(cfg: SlicingConfig, seed: int, n_slices: int, epoch: int) -> list[np.ndarray]:
    """The batches of slice indices of ``epoch``: all ``n_slices`` shuffled, or with
    ``epoch_slices`` the first that many of this epoch's permutation (a fresh subset each epoch)."""
    n_epoch = min(n_slices, cfg.epoch_slices) if cfg.epoch_slices else n_slices
    if n_epoch == n_slices:
        return epoch_order(n_slices, cfg.batch_size, seed, epoch)
    perm = np.random.default_rng([seed, epoch]).permutation(n_slices)
    return [perm[b] for b in epoch_order(n_epoch, cfg.batch_size, seed, epoch, shuffle=False)]


class Stepper:
    """The optimizer step of a run (module docstring)."""

    def __init__(self, cfg: TrainConfig, model: torch.nn.Module, opt: torch.optim.Optimizer, inputs,
                 train_sl: Slices) -> None:
        self.cfg, self.model, self.opt, self.inputs, self.train_sl = cfg, model, opt, inputs, train_sl
        self.rank, self.world = dist_info()
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.device = next(model.parameters()).device
        self.distill, self.label_weights = Distill.of(cfg), label_weights_of(cfg)

    def __call__(self, epoch: int, b: int, idx: np.ndarray, step: int, total_steps: int, prog: dict[str, Any]) -> int:
        """One step on the slices ``idx`` (batch ``b`` of ``epoch``, ``step`` of ``total_steps``
        in the run); returns the words of the batch and adds its loss to ``prog``."""
        cfg = self.cfg
        n, n_words, loss_val = self.gradient(epoch, b, idx)
        if n:
            if cfg.lr_schedule == "linear":
                rate = lr_at(cfg, step, total_steps)
                if "rewarm_from" in prog and cfg.rewarm_steps:  # fresh moments: a short ramp first
                    rate *= min(1.0, (step - prog["rewarm_from"] + 1) / cfg.rewarm_steps)
                for group in self.opt.param_groups:
                    group["lr"] = rate
            self.opt.step()
            prog["loss_sum"] += loss_val
            prog["loss_words"] += n
        return n_words

    def gradient(self, epoch: int, b: int, idx: np.ndarray) -> tuple[int, int, float]:
        """The clipped gradient of the loss on the slices ``idx`` (batch ``b`` of ``epoch``) in
        the parameters' ``.grad``: (words in the loss, words of the batch, the loss's sum)."""
        cfg, model, train_sl = self.cfg, self.model, self.train_sl
        loss_val = 0.0
        prepare = word_dropout_of(cfg, epoch, b, len(idx), train_sl.ids.shape[1], self.rank, self.world)
        if self.world > 1:
            n = int((train_sl.labels[idx] >= 0).sum())
            n_words = int(train_sl.lengths[idx].sum())
            loss_val = dist_step(model, self.params, self.inputs, train_sl, np.array_split(idx, self.world)[self.rank],
                                 n if cfg.loss_reduction == "mean" else 1, cfg.precision, prepare, self.distill,
                                 self.label_weights)
        else:
            kw, mask, y = batch_inputs(self.inputs, train_sl, idx, self.device)
            if prepare is not None:
                kw = prepare(kw)
            y = map_targets(model, y)
            n = int((y != -100).sum())
            n_words = int(mask.sum())
            if n:
                loss_sum = loss_sum_of(model, kw, y, cfg.precision, self.distill, self.label_weights)
                self.opt.zero_grad(set_to_none=True)
                (loss_sum / n if cfg.loss_reduction == "mean" else loss_sum).backward()
                loss_val = loss_sum.item()
        if n and cfg.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.params, cfg.clip_norm)
        return n, n_words, loss_val
