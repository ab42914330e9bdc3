"""Data-parallel training (``torchrun --nproc_per_node N``, WORLD_SIZE > 1): every rank builds
the same batches and takes a contiguous 1/N of each; the gradients of the summed loss are
all-reduced (gloo) before clipping and the step, so the update is the single-process one up
to summation order. Rank 0 alone writes files and logs what training does."""
from __future__ import annotations

import contextlib
import logging
import os
from typing import Any, Callable

import numpy as np
import torch

from punct.engine.batching import Slices, batch_inputs
from punct.engine.loss import Distill, loss_sum_of, map_targets


def dist_info() -> tuple[int, int]:
    """(rank, world size); joins the torchrun process group (gloo) when WORLD_SIZE > 1."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return 0, 1
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def gather(world: int, obj: Any) -> list[Any]:
    """Every rank's ``obj``, in rank order (validation counts and labels)."""
    import torch.distributed as dist

    parts: list[Any] = [None] * world
    dist.all_gather_object(parts, obj)
    return parts


def dist_step(model, params, inputs, slices: Slices, part: np.ndarray, n_total: int,
               precision: str = "fp32", prepare: Callable | None = None, distill: Distill | None = None,
               label_weights: torch.Tensor | None = None) -> float:
    """One rank's share of a data-parallel step: backward of its summed loss / N_TOTAL
    (the whole batch's word count for a mean loss, 1 for a sum), then one all-reduce of
    every gradient and the loss. ``prepare`` changes the model's inputs (word dropout)."""
    import torch.distributed as dist

    for p in params:
        p.grad = None
    loss_val = 0.0
    if n_total and len(part):
        kw, mask, y = batch_inputs(inputs, slices, part)
        if prepare is not None:
            kw = prepare(kw)
        y = map_targets(model, y)
        if int((y != -100).sum()):
            loss_sum = loss_sum_of(model, kw, y, precision, distill, label_weights)
            (loss_sum / n_total).backward()
            loss_val = loss_sum.item()
    flat = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1) for p in params]
                     + [torch.tensor([loss_val], dtype=params[0].dtype)])
    dist.all_reduce(flat)
    off = 0
    for p in params:
        k = p.numel()
        p.grad = flat[off : off + k].view_as(p).clone()
        off += k
    return float(flat[-1])


class _MainRankOnly(logging.Filter):
    """On the ranks other than 0 of a data-parallel run, which write to the same log as rank
    0: drops the INFO records (rank 0 tells what training does) but those logged with
    ``extra={"all_ranks": True}``; warnings and errors pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or bool(getattr(record, "all_ranks", False))


@contextlib.contextmanager
def rank_logging(main: bool):
    if main:
        yield
        return
    filt, handlers = _MainRankOnly(), list(logging.getLogger().handlers)
    for h in handlers:
        h.addFilter(filt)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(filt)
