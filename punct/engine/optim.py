"""The optimizer and the learning-rate schedules of a training run (TrainConfig optimizer,
lr_schedule): the optimizer of a config, the rate of a step, and the end-of-epoch steps of
the halving and plateau schedules."""
from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import torch

from punct.engine import checkpoint as ckpt
from punct.engine.config import OptimizerConfig, TrainConfig

log = logging.getLogger(__name__)

#: lr_schedule halving: an epoch "improves" when log(best ppl) >= HALVING_THRESHOLD * log(its ppl)
#: (Mikolov's 0.3%, as ottokart/punctuator trains T-LSTM)
HALVING_THRESHOLD = 1.003


def make_optimizer(cfg: OptimizerConfig, params, fused: bool = True) -> torch.optim.Optimizer:
    """The optimizer of ``cfg`` over the parameters that require a gradient. Adagrad, Adam and
    AdamW step with torch's fused CPU kernel: one pass over each parameter instead of one per
    operation, the same update up to rounding and several times faster on large embedding
    tables (benchmarks/bench_optimizer.py compares it, ``fused=False``, with foreach)."""
    params = [p for p in params if p.requires_grad]
    wd = {"weight_decay": cfg.weight_decay} if cfg.weight_decay else {}
    fused = {"fused": True} if fused else {}
    if cfg.optimizer == "adagrad":
        return torch.optim.Adagrad(params, lr=cfg.lr, initial_accumulator_value=cfg.adagrad_accumulator_init,
                                   **wd, **fused)
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, **wd, **fused)
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay, **fused)
    return torch.optim.SGD(params, lr=cfg.lr, **wd)  # plain SGD: fusing gains nothing (measured)


def load_optimizer_state(opt: torch.optim.Optimizer, state: dict[str, Any]) -> None:
    """``opt.load_state_dict(state)`` keeping ``opt``'s own implementation (fused or foreach):
    torch restores the saved groups' one, so a state saved on the foreach path would
    otherwise resume on it."""
    opt.load_state_dict(state)
    for group in opt.param_groups:
        for key in ("fused", "foreach"):
            if key in group:
                group[key] = opt.defaults.get(key)


def lr_at(cfg: OptimizerConfig, step: int, total_steps: int) -> float:
    """Learning rate of optimizer step ``step`` (0-based) under ``cfg.lr_schedule``."""
    if cfg.lr_schedule in ("constant", "halving"):  # halving: scaled per epoch by train()
        return cfg.lr
    warm = cfg.warmup_steps
    if step < warm:
        return cfg.lr * (step + 1) / warm
    return cfg.lr * max(0.0, (total_steps - step) / max(1, total_steps - warm))


def halving_step(cfg: TrainConfig, prog: dict[str, Any], ppl: float, improved: bool, model: torch.nn.Module,
                  best_path: Path) -> None:
    """lr_schedule halving after an epoch of validation perplexity PPL (Mikolov's recipe, as
    the T-LSTM reference implementation ottokart/punctuator trains): the first epoch that
    improves log-perplexity by less than the threshold starts the halving (going back to the
    best weights if it got worse); from then on the rate halves every epoch, and the next
    such epoch ends training."""
    small = math.log(ppl) * HALVING_THRESHOLD > math.log(prog["best_ppl"])
    if small and prog.get("halving"):
        prog["halved_out"] = True
        log.info("lr halving: epoch %d improved by less than %.3g in log-perplexity again; stopping",
                 prog["epoch"] + 1, HALVING_THRESHOLD)
        return
    if small:
        prog["halving"] = True
        if not improved and best_path.is_file():
            model.load_state_dict(ckpt.load(best_path)["state_dict"])
            log.info("lr halving starts; back to the weights of epoch %d", prog["best_epoch"])
    if prog.get("halving"):
        prog["lr_scale"] = prog.get("lr_scale", 1.0) / 2
        log.info("lr halving: the learning rate is now %.4g", cfg.lr * prog["lr_scale"])


def plateau_step(cfg: TrainConfig, prog: dict[str, Any], model: torch.nn.Module, best_path: Path,
                  world: int) -> None:
    """lr_schedule plateau after an epoch without a better validation score: back to the best
    weights (every rank reads the same best.pt), and the rate times lr_decay."""
    if world > 1:
        import torch.distributed as dist

        dist.barrier()  # rank 0 has written best.pt
    if best_path.is_file():
        model.load_state_dict(ckpt.load(best_path)["state_dict"])
    prog["lr_scale"] = prog.get("lr_scale", 1.0) * cfg.lr_decay
    log.info("lr plateau: back to the weights of epoch %d; the learning rate is now %.4g", prog["best_epoch"],
             cfg.lr * prog["lr_scale"])
