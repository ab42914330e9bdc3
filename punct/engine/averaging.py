"""Checkpoint averaging (TrainConfig ``average_best``): the models of the N best epochs are
kept in ``EXP/epochs/E.pt`` (the format of best.pt) while training runs, and their weights
are averaged when it ends, as speech toolkits average their best snapshots. The average
replaces best.pt only if it validates better; training itself is unchanged."""
from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any, Callable

import torch

from punct.engine import checkpoint as ckpt
from punct.engine.config import ValidationConfig, TrainConfig
from punct.errors import PunctError

log = logging.getLogger(__name__)

#: the folder of the kept epoch models (``E.pt``) and of their average
SNAPSHOT_DIR = "epochs"
AVERAGE_FILE = "average.pt"


def better(cfg: ValidationConfig, a: dict[str, Any], b: dict[str, Any] | None) -> bool:
    """Whether scores ``a`` (valid_ppl, valid_f1) beat ``b`` by select_by (ties do not)."""
    if b is None:
        return True
    if cfg.select_by == "f1":
        return a["valid_f1"] > b["valid_f1"]
    return a["valid_ppl"] < b["valid_ppl"]


def seed_snapshots(exp_dir: Path, prog: dict[str, Any], main: bool, world: int) -> list[dict[str, Any]]:
    """average_best switched on: the snapshot list starts with best.pt, if it is the model of
    the best epoch so far (not an average), copied to ``epochs/E.pt``."""
    best = exp_dir / "best.pt"
    seeded: list[dict[str, Any]] = []
    if prog["best_epoch"] and best.is_file():
        ck = ckpt.load(best)
        if ck.get("epoch") == prog["best_epoch"] and not ck.get("averaged_epochs"):
            seeded = [{"epoch": ck["epoch"], "valid_ppl": ck.get("valid_ppl", prog["best_ppl"]),
                       "valid_f1": ck.get("valid_f1", prog.get("best_f1", math.nan))}]
            if main:
                (exp_dir / SNAPSHOT_DIR).mkdir(exist_ok=True)
                ckpt.save(exp_dir / SNAPSHOT_DIR / f"{ck['epoch']}.pt", ck)
    if world > 1:
        import torch.distributed as dist

        dist.barrier()
    return seeded


def keep_snapshot(cfg: TrainConfig, prog: dict[str, Any], exp_dir: Path, payload: dict[str, Any], main: bool) -> None:
    """average_best: write this epoch's model to ``epochs/E.pt`` and keep the best
    ``average_best`` epochs (by select_by; an earlier epoch wins a tie) in prog["snapshots"].
    The files of dropped epochs are deleted by ``_prune_snapshots`` once the checkpoint
    no longer lists them."""
    row = {"epoch": payload["epoch"], "valid_ppl": payload["valid_ppl"], "valid_f1": payload["valid_f1"]}
    kept = best_snapshots(cfg, [s for s in prog["snapshots"] if s["epoch"] != row["epoch"]] + [row])
    if main and row in kept:
        (exp_dir / SNAPSHOT_DIR).mkdir(exist_ok=True)
        ckpt.save(exp_dir / SNAPSHOT_DIR / f"{row['epoch']}.pt", payload)
    prog["snapshots"] = kept


def best_snapshots(cfg: ValidationConfig, snapshots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``average_best`` best of ``snapshots`` by select_by (an earlier epoch wins a tie),
    in epoch order."""
    key = (lambda s: (-s["valid_f1"], s["epoch"])) if cfg.select_by == "f1" else (lambda s: (s["valid_ppl"], s["epoch"]))
    return sorted(sorted(snapshots, key=key)[:cfg.average_best], key=lambda s: s["epoch"])


def prune_snapshots(exp_dir: Path, snapshots: list[dict[str, Any]]) -> None:
    """Delete the epoch snapshots of EXP_DIR that are not among SNAPSHOTS (those kept for averaging)."""
    keep = {f"{s['epoch']}.pt" for s in snapshots}
    folder = exp_dir / SNAPSHOT_DIR
    if folder.is_dir():
        for f in folder.glob("*.pt"):
            if f.name not in keep:
                f.unlink(missing_ok=True)


def average_state_dicts(states: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The element-wise mean of the floating-point tensors of ``states`` (same keys and
    shapes); other tensors (counts, indices) are taken from the last."""
    if not states:
        raise ValueError("no models to average")
    out = {}
    for k, last in states[-1].items():
        if torch.is_floating_point(last):
            out[k] = (torch.stack([s[k].to(torch.float64) for s in states]).mean(0)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out


def average_snapshots(cfg: TrainConfig, prog: dict[str, Any], model: torch.nn.Module, exp_dir: Path,
                      payload_common: Callable[[], dict[str, Any]], rank: int, world: int,
                      validate: Callable[[], tuple[float, float]]) -> None:
    """Training has ended: average the kept epoch models, validate the average, write it to
    ``epochs/average.pt`` and, if it beats the best epoch, to best.pt (``validate()``: the
    model's (perplexity, F1) on the validation set, on every rank). The model's own
    (training) weights are put back, so checkpoint.pt still resumes the training."""
    if world > 1:
        import torch.distributed as dist

        dist.barrier()  # rank 0 has written the snapshots
    epochs = sorted(s["epoch"] for s in prog["snapshots"])
    folder = exp_dir / SNAPSHOT_DIR
    missing = [e for e in epochs if not (folder / f"{e}.pt").is_file()]
    if missing:
        raise PunctError(f"the model of epoch {missing[0]} to average is missing (delete checkpoint.pt's run or "
                         f"set average_best=0)", folder / f"{missing[0]}.pt")
    own = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(average_state_dicts([ckpt.load(folder / f"{e}.pt")["state_dict"] for e in epochs]))
    ppl, f1 = validate()
    scores = {"valid_ppl": ppl, "valid_f1": f1}
    best = {"valid_ppl": prog["best_ppl"], "valid_f1": prog.get("best_f1", -math.inf)}
    wins = better(cfg, scores, best)
    log.info("average of epochs %s: valid ppl %.4f, valid F1 %.1f; best epoch %d: ppl %.4f, F1 %.1f -> %s",
             ", ".join(map(str, epochs)), ppl, f1, prog["best_epoch"], best["valid_ppl"], best["valid_f1"],
             "the average is best.pt" if wins else "best.pt stays")
    if rank == 0:
        payload = dict(payload_common(), epoch=max(epochs), averaged_epochs=epochs, **scores)
        ckpt.save(folder / AVERAGE_FILE, payload)
        if wins:
            ckpt.save(exp_dir / "best.pt", payload)
    if wins:
        prog.update(best_ppl=ppl, best_f1=f1, best_averaged=epochs)
    prog["averaged"] = epochs
    model.load_state_dict(own)
    model.train()
