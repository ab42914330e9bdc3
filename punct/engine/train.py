"""The training loop shared by every model: slices, mini-batches, optimizer,
early stopping on validation perplexity, resumable checkpoints.

``train(cfg, train_dir, valid_dir, exp_dir)`` writes into ``exp_dir``:
``config.yaml`` (resolved config), ``cmd``, ``vocab.txt``, ``train_log.tsv``
(one row per epoch), ``checkpoint.pt`` (everything needed to resume, written
every ``checkpoint_minutes`` and after every epoch), ``best.pt`` (the model
with the best validation perplexity), ``cache/`` (precomputed slices).
Rerunning the same command on an existing ``exp_dir`` resumes from
``checkpoint.pt`` at the batch where it stopped, with the same result.
"""
from __future__ import annotations

import logging
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F

from punct.config import dump_yaml, to_dict
from punct.engine import checkpoint as ckpt
from punct.engine.batching import Slices, collate, epoch_order, load_slices
from punct.engine.config import TrainConfig
from punct.engine.vocab import Vocabulary
from punct.errors import PunctError
from punct.fsutil import atomic_write
from punct.labels import LABELS, MARK_LABELS
from punct.models import build_model, resolved_model_args

log = logging.getLogger(__name__)

#: config keys that may change when a run is resumed (they do not change what is learnt)
RESUMABLE_CHANGES = {"max_epochs", "patience", "threads", "checkpoint_minutes", "valid_batch_size"}

LOG_COLUMNS = ("epoch", "train_loss", "valid_ppl", "valid_f1", "seconds", "words_per_s")


def make_optimizer(cfg: TrainConfig, params) -> torch.optim.Optimizer:
    if cfg.optimizer == "adagrad":
        return torch.optim.Adagrad(params, lr=cfg.lr)
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr)
    return torch.optim.SGD(params, lr=cfg.lr)


def mark_f1(ref: list[str], hyp: list[str]) -> float:
    """Overall F1 (percent) of the marks; punct.score's number when that module exists."""
    try:
        from punct.score import score_labels
    except ImportError:
        score_labels = None
    if score_labels is not None:
        return float(score_labels(ref, hyp).overall.f1)
    marks = set(MARK_LABELS)
    tp = sum(1 for r, h in zip(ref, hyp) if r == h and r in marks)
    n_hyp = sum(1 for h in hyp if h in marks)
    n_ref = sum(1 for r in ref if r in marks)
    p = tp / n_hyp if n_hyp else 0.0
    r = tp / n_ref if n_ref else 0.0
    return 100.0 * (2 * p * r / (p + r) if p + r else 0.0)


@torch.no_grad()
def evaluate(model: torch.nn.Module, slices: Slices, batch_size: int) -> tuple[float, float]:
    """(perplexity, overall mark F1 in percent) of ``model`` on the loss words of ``slices``."""
    model.eval()
    nll, n = 0.0, 0
    ref: list[str] = []
    hyp: list[str] = []
    for idx in epoch_order(len(slices), batch_size, 0, 0, shuffle=False):
        ids, mask, y = collate(slices, idx)
        logits = model(ids, mask)
        keep = y != -100
        nll += float(F.cross_entropy(logits[keep], y[keep], reduction="sum"))
        n += int(keep.sum())
        ref.extend(LABELS[i] for i in y[keep].tolist())
        hyp.extend(LABELS[i] for i in logits[keep].argmax(-1).tolist())
    model.train()
    ppl = math.exp(nll / n) if n else float("nan")
    return ppl, mark_f1(ref, hyp)


def _check_resume(saved: dict[str, Any], cfg: TrainConfig, model_args: dict[str, Any], path: Path) -> None:
    now = dict(to_dict(cfg), model_args=model_args)
    for key in sorted(set(saved) | set(now)):
        if key in RESUMABLE_CHANGES:
            continue
        if saved.get(key) != now.get(key):
            raise PunctError(
                f"cannot resume: {key} was {saved.get(key)!r}, now {now.get(key)!r} "
                "(use another --exp directory or delete this one)",
                path,
            )


def _write_log(exp_dir: Path, history: list[dict[str, Any]]) -> None:
    with atomic_write(exp_dir / "train_log.tsv") as f:
        f.write("\t".join(LOG_COLUMNS) + "\n")
        for row in history:
            f.write("\t".join(_fmt(row[c]) for c in LOG_COLUMNS) + "\n")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def train(
    cfg: TrainConfig,
    train_dir: str | Path,
    valid_dir: str | Path,
    exp_dir: str | Path,
    command: str | None = None,
    on_step: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Train ``cfg.model`` on ``train_dir``, early-stop on ``valid_dir``; resume from
    ``exp_dir/checkpoint.pt`` if present. Returns the final progress record.
    ``on_step(epoch, batch)`` is called after every optimizer step (tests use it)."""
    exp_dir = Path(exp_dir)
    exp_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    model_args = resolved_model_args(cfg.model, cfg.model_args)
    ck_path = exp_dir / "checkpoint.pt"

    resume = ck_path.is_file()
    if resume:
        ck = ckpt.load(ck_path)
        _check_resume(ck["train_config"], cfg, model_args, ck_path)
        vocab = Vocabulary.from_list(ck["vocab"])
        prog = dict(ck["progress"])
        log.info("resuming from %s: epoch %d, batch %d", ck_path, prog["epoch"] + 1, prog["batch"])
    else:
        ck = None
        from punct.datadir import load_utterances

        utts = load_utterances(train_dir)
        vocab = Vocabulary.build((u.texts for u in utts), cfg.min_count, cfg.max_vocab)
        del utts
        prog = {"epoch": 0, "batch": 0, "loss_sum": 0.0, "loss_words": 0, "words": 0, "seconds": 0.0,
                "best_ppl": float("inf"), "best_epoch": 0, "bad_epochs": 0, "history": []}
        vocab.write(exp_dir / "vocab.txt")
    log.info("vocabulary: %d entries (min_count %d)", len(vocab), cfg.min_count)

    resolved = dict(to_dict(cfg), model_args=model_args)
    with atomic_write(exp_dir / "config.yaml") as f:
        f.write(dump_yaml(resolved))
    if command is not None:
        if resume and (exp_dir / "cmd").is_file():
            with open(exp_dir / "cmd", "a", encoding="utf-8") as f:
                f.write(f"# resumed with: {command}\n")
        else:
            with atomic_write(exp_dir / "cmd") as f:
                f.write(command + "\n")

    slice_opts = dict(length=cfg.slice_length, tail_in_loss=cfg.tail_in_loss, long_sentences=cfg.long_sentences)
    train_sl = load_slices(train_dir, vocab, cache=exp_dir / "cache" / "train.npz", **slice_opts)
    valid_sl = load_slices(valid_dir, vocab, cache=exp_dir / "cache" / "valid.npz", **slice_opts)

    torch.manual_seed(cfg.seed)
    model = build_model(cfg.model, model_args, len(vocab))
    opt = make_optimizer(cfg, model.parameters())
    if ck is not None:
        model.load_state_dict(ck["state_dict"])
        opt.load_state_dict(ck["optimizer"])
        torch.set_rng_state(ck["rng"])
    n_params = sum(p.numel() for p in model.parameters())
    log.info("model %s: %d parameters; %d train slices, %d valid slices", cfg.model, n_params, len(train_sl), len(valid_sl))
    model.train()

    def payload_common() -> dict[str, Any]:
        return {"model": cfg.model, "model_args": model_args, "vocab": vocab.to_list(), "labels": list(LABELS),
                "state_dict": model.state_dict(), "train_config": resolved}

    def save_checkpoint() -> None:
        ckpt.save(ck_path, dict(payload_common(), optimizer=opt.state_dict(), progress=prog, rng=torch.get_rng_state()))

    last_save = time.monotonic()
    interval = cfg.checkpoint_minutes * 60.0
    while prog["epoch"] < cfg.max_epochs and prog["bad_epochs"] < cfg.patience:
        epoch = prog["epoch"]
        batches = epoch_order(len(train_sl), cfg.batch_size, cfg.seed, epoch)
        bar = _progress(len(batches), prog["batch"], f"epoch {epoch + 1}")
        t_epoch = time.monotonic()
        seconds_before = prog["seconds"]
        last_log = t_epoch
        for b in range(prog["batch"], len(batches)):
            ids, mask, y = collate(train_sl, batches[b])
            n = int((y != -100).sum())
            if n:
                logits = model(ids, mask)
                loss_sum = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-100, reduction="sum")
                opt.zero_grad(set_to_none=True)
                (loss_sum / n).backward()
                if cfg.clip_norm > 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
                opt.step()
                prog["loss_sum"] += loss_sum.item()
                prog["loss_words"] += n
            prog["words"] += int(mask.sum())
            prog["batch"] = b + 1
            now = time.monotonic()
            prog["seconds"] = seconds_before + (now - t_epoch)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{prog['loss_sum'] / max(1, prog['loss_words']):.4f}")
            if on_step is not None:
                on_step(epoch, b + 1)
            if now - last_log >= 300 and bar is None:
                last_log = now
                log.info("epoch %d batch %d/%d: train loss %.4f, %.0f words/s", epoch + 1, b + 1, len(batches),
                         prog["loss_sum"] / max(1, prog["loss_words"]), prog["words"] / max(1e-9, prog["seconds"]))
            if now - last_save >= interval and b + 1 < len(batches):
                save_checkpoint()
                last_save = time.monotonic()
        if bar is not None:
            bar.close()

        ppl, f1 = evaluate(model, valid_sl, cfg.valid_batch_size)
        row = {"epoch": epoch + 1, "train_loss": prog["loss_sum"] / max(1, prog["loss_words"]), "valid_ppl": ppl,
               "valid_f1": f1, "seconds": round(prog["seconds"], 1),
               "words_per_s": round(prog["words"] / max(1e-9, prog["seconds"]))}
        improved = ppl < prog["best_ppl"]
        log.info("epoch %d: train loss %.4f, valid ppl %.4f%s, valid F1 %.1f, %.0f s, %.0f words/s", row["epoch"],
                 row["train_loss"], ppl, " (best)" if improved else "", f1, row["seconds"], row["words_per_s"])
        prog["history"] = prog["history"] + [row]
        if improved:
            prog["best_ppl"], prog["best_epoch"], prog["bad_epochs"] = ppl, epoch + 1, 0
            ckpt.save(exp_dir / "best.pt", dict(payload_common(), epoch=epoch + 1, valid_ppl=ppl, valid_f1=f1))
        else:
            prog["bad_epochs"] += 1
        prog.update(epoch=epoch + 1, batch=0, loss_sum=0.0, loss_words=0, words=0, seconds=0.0)
        save_checkpoint()
        last_save = time.monotonic()
        _write_log(exp_dir, prog["history"])

    why = "patience" if prog["bad_epochs"] >= cfg.patience else "max_epochs"
    log.info("training stopped (%s) after %d epochs; best valid ppl %.4f at epoch %d -> %s", why, prog["epoch"],
             prog["best_ppl"], prog["best_epoch"], exp_dir / "best.pt")
    return prog


def _progress(total: int, initial: int, desc: str):
    """A tqdm bar on a terminal; None otherwise (then progress is logged every 5 minutes)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="batch", dynamic_ncols=True)
