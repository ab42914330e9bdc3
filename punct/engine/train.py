"""The training loop shared by every model: slices, mini-batches, optimizer,
early stopping on validation perplexity, resumable checkpoints.

``train(cfg, train_dir, valid_dir, exp_dir)`` writes into ``exp_dir``:
``config.yaml`` (resolved config), ``cmd``, ``vocab.txt``, ``train_log.tsv``
(one row per epoch), ``checkpoint.pt`` (everything needed to resume, written
every ``checkpoint_minutes`` and after every epoch), ``best.pt`` (the model
with the best validation perplexity), ``cache/`` (precomputed slices), ``train_done.json`` (why and when training ended).
Rerunning the same command on an existing ``exp_dir`` resumes from
``checkpoint.pt`` at the batch where it stopped, with the same result.

A run is ended early by a file ``exp_dir/stop`` (``punct.bin.train --stop``, or
``echo why > exp_dir/stop``): training ends at the next epoch boundary, after that
epoch's validation and checkpoint, as it does on patience or ``max_epochs``;
``train_done.json`` says ``"stopped": "by hand"`` with the file's first line as
``why``. The file stays: a rerun stops at once until it is removed. A stop signal
(SIGTERM from a batch scheduler, Ctrl-C's SIGINT) ends training sooner: after
the batch it arrives in, with that batch saved in ``checkpoint.pt``, as an
error (exit status 128 + the signal's number) that a rerun resumes from
(punct.engine.signals).

Every model goes through here. What differs between models is declared by
the model class: ``input_kind`` picks the featurizer (punct.engine.inputs)
that turns the words of a batch into the model's keyword arguments; an
optional ``training_loss(y, **inputs)`` replaces the per-word cross-entropy
(a CRF's sequence likelihood), returning the summed loss of the words with a
target; ``trainer = "fit"`` marks a model estimated in one pass by its
``fit(streams)`` (an n-gram LM) instead of by SGD: it is fitted, validated and
saved as one "epoch" with the same files; ``target_map`` (a label per label of
punct.labels.LABELS) trains and validates the model on mapped targets (a
sentence-boundary model: COMMA as O, QUESTION as PERIOD).

Two-stage models (punct.models.twostage) name a stage-one checkpoint with
``init_from``: its vocabulary becomes the featurizer's, its model name and
arguments go into the new model's ``model_args["stage1"]``, its weights are
loaded into the new model (and kept fixed with ``freeze``), and its training
config is saved as ``stage1_train_config``; so the new checkpoint decodes
alone. Models that read per-word features get the featurizer's
``model_args()`` (the feature column names) in their arguments.

Distillation (``distill_from``, punct.engine.soft_labels): the training directory's
feature set of that name holds a teacher's per-word posteriors (``punct posteriors``);
they are cut into the slices with the words (``Slices.soft``), and ``loss_sum_of``
mixes each word's cross-entropy to its reference label with the KL divergence from the
teacher (``distill_weight``, ``distill_temperature``); a student with a case head
(``case_head``: the transformer tagger, T-BRNN) learns the teacher's case posteriors the
same way, on words whose text has no ``written`` spelling too.

Data parallel: started by ``torchrun --nproc_per_node N -m punct.bin.train ...``
(WORLD_SIZE > 1 in the environment), every rank builds the same slices and
batches, takes a contiguous 1/N of every batch, and the gradients of the
summed loss (divided by the whole batch's word count) are all-reduced (gloo)
before clipping and the optimizer step, so the update equals the
single-process one up to floating-point summation order. Validation is split
across ranks; rank 0 alone writes files. Each rank gets threads / N threads.
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F

from punct.config import dump_yaml, to_dict
from punct.engine import checkpoint as ckpt
from punct.engine import signals
from punct.engine.averaging import average_snapshots, best_snapshots, keep_snapshot, prune_snapshots, seed_snapshots
from punct.engine.batching import Slices, batch_inputs, epoch_order, load_slices
from punct.engine.config import TrainConfig
from punct.engine.inputs import WordInputs, build_inputs, input_kind, inputs_from_checkpoint
from punct.errors import PunctError
from punct.fsutil import atomic_write, exclusive
from punct.labels import LABELS, label_id
from punct.models import SPECIALS, UNK_ID, build_model, get_model_class, resolved_model_args

log = logging.getLogger(__name__)

#: the stop-request file in an experiment directory (see the module docstring)
STOP_FILE = "stop"

#: config keys that may change when a run is resumed (they do not change what is learnt;
#: precision changes only the rounding of the forward pass)
RESUMABLE_CHANGES = {"max_epochs", "patience", "threads", "checkpoint_minutes", "valid_batch_size", "stage1_cache_mb",
                     "decode_window", "precision", "average_best", "fused_optimizer"}


#: parameters read only by one learning-rate schedule: under another schedule they change
#: nothing, so a resume does not compare them (a constant-rate run trained before
#: ``lr_decay`` had its conf value can be trained on)
SCHEDULE_ONLY = {"lr_decay": "plateau", "halving_threshold": "halving"}

LOG_COLUMNS = ("epoch", "train_loss", "valid_ppl", "valid_f1", "seconds", "words_per_s")

#: without a terminal (no progress bar), a progress line is logged this often (seconds)
PROGRESS_LOG_SECONDS = 300.0


def make_optimizer(cfg: TrainConfig, params) -> torch.optim.Optimizer:
    """The optimizer of ``cfg`` over the parameters that require a gradient."""
    params = [p for p in params if p.requires_grad]
    wd = {"weight_decay": cfg.weight_decay} if cfg.weight_decay else {}
    fused = {"fused": True} if cfg.fused_optimizer else {}
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
    torch restores it from the saved groups, so a run saved before ``fused_optimizer``
    would otherwise resume on the slow path."""
    opt.load_state_dict(state)
    for group in opt.param_groups:
        for key in ("fused", "foreach"):
            if key in group:
                group[key] = opt.defaults.get(key)


def lr_at(cfg: TrainConfig, step: int, total_steps: int) -> float:
    """Learning rate of optimizer step ``step`` (0-based) under ``cfg.lr_schedule``."""
    if cfg.lr_schedule in ("constant", "halving"):  # halving: scaled per epoch by train()
        return cfg.lr
    warm = cfg.warmup_steps
    if step < warm:
        return cfg.lr * (step + 1) / warm
    return cfg.lr * max(0.0, (total_steps - step) / max(1, total_steps - warm))


def map_targets(model: torch.nn.Module, y: torch.Tensor) -> torch.Tensor:
    """``y`` with every label replaced by the model's ``target_map`` entry (-100 kept)."""
    tm = getattr(model, "target_map", None)
    if tm is None:
        return y
    from punct.labels import label_id

    table = torch.tensor([label_id(t) for t in tm], dtype=y.dtype)
    keep = y >= 0
    out = y.clone()
    out[keep] = table[y[keep]]
    return out


def autocast(precision: str):
    """The context of a forward pass at ``precision`` (TrainConfig.precision): bf16 runs the
    matrix products in bfloat16 (torch.autocast on the CPU), fp32 changes nothing."""
    if precision == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _native_bf16() -> bool:
    """Whether oneDNN runs bfloat16 natively on this CPU (else autocast to bf16 is emulated)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


@dataclasses.dataclass(frozen=True)
class Distill:
    """How a student learns from its teacher's posteriors (TrainConfig distill_*)."""

    weight: float
    temperature: float

    @classmethod
    def of(cls, cfg: TrainConfig) -> "Distill | None":
        return cls(cfg.distill_weight, cfg.distill_temperature) if cfg.distill_from else None


def loss_sum_of(model: torch.nn.Module, inputs: dict[str, torch.Tensor], y: torch.Tensor,
                precision: str = "fp32", distill: Distill | None = None) -> torch.Tensor:
    """Summed training loss of the words with a target (-100: none); the forward pass at
    ``precision``, the loss in fp32. A model with a case head (``case_head``) adds
    ``case_weight`` times its case loss where ``cases`` has targets. With ``distill`` and a
    teacher's posteriors in ``inputs["soft"]`` (punct.engine.batching), each loss mixes the
    reference's cross-entropy with the KL divergence from the teacher
    (punct.engine.soft_labels.distill_loss_sum); the case loss then covers every loss word
    when the teacher's posteriors have case columns."""
    from punct.engine.soft_labels import SoftLayout, distill_loss_sum

    inputs = dict(inputs)
    soft = inputs.pop("soft", None)
    if distill is None:
        soft = None
    case = bool(getattr(model, "case_head", False))
    if soft is None and hasattr(model, "training_loss"):  # its own sequence loss (a CRF's)
        with autocast(precision):
            return model.training_loss(y, **inputs).float()
    if soft is not None and hasattr(model, "training_loss"):
        raise PunctError(f"{type(model).__name__} trains with its own sequence loss: it cannot learn from soft targets")
    cases = inputs.get("cases")
    soft_case = soft is not None and soft.shape[-1] == SoftLayout(True).width
    with autocast(precision):
        out = model(**inputs, return_case=True) if case and (cases is not None or soft_case) else model(**inputs)
    logits, case_logits = out if isinstance(out, tuple) else (out, None)
    n_marks = logits.shape[-1]
    w, t = (distill.weight, distill.temperature) if soft is not None else (0.0, 1.0)
    keep = y != -100
    loss = distill_loss_sum(logits.float(), y, None if soft is None else soft[..., :n_marks], keep, w, t)
    if case_logits is not None:
        hard = cases if cases is not None else torch.full_like(y, -100)
        case_soft = soft[..., n_marks:] if soft_case else None
        if case_soft is not None or bool((hard >= 0).any()):
            loss = loss + model.case_weight * distill_loss_sum(case_logits.float(), hard, case_soft, keep,
                                                               w if case_soft is not None else 0.0, t)
    return loss


def dist_info() -> tuple[int, int]:
    """(rank, world size); joins the torchrun process group (gloo) when WORLD_SIZE > 1."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return 0, 1
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def mark_f1(ref: list[str], hyp: list[str]) -> float:
    """Overall F1 (percent) of the marks; punct.score's number when that module exists."""
    try:
        from punct.score import score_labels
    except ImportError:
        score_labels = None
    if score_labels is not None:
        return float(score_labels(ref, hyp).overall.f1)
    from punct.engine.decode import overall_f1

    return overall_f1([label_id(x) for x in ref], [label_id(x) for x in hyp])


@torch.no_grad()
def evaluate(model: torch.nn.Module, slices: Slices, batch_size: int, inputs=None, limit: int = 0,
             rank: int = 0, world: int = 1, precision: str = "fp32") -> tuple[float, float]:
    """(perplexity, overall mark F1 in percent) of ``model`` on the loss words of ``slices``
    (the first ``limit`` slices if > 0); ``inputs`` is the featurizer (default: word ids).
    With ``world`` > 1 every rank scores its share of the batches and the counts are gathered."""
    inputs = inputs if inputs is not None else _IdsOnly()
    model.eval()
    nll, n = 0.0, 0
    ref: list[str] = []
    hyp: list[str] = []
    n_slices = min(len(slices), limit) if limit > 0 else len(slices)
    batches = epoch_order(n_slices, batch_size, 0, 0, shuffle=False)
    for idx in batches[rank::world]:
        kw, mask, y = batch_inputs(inputs, slices, idx)
        y = map_targets(model, y)
        with autocast(precision):
            logits = model(**kw)
        logits = logits.float()
        keep = y != -100
        nll += float(F.cross_entropy(logits[keep], y[keep], reduction="sum"))
        n += int(keep.sum())
        ref.extend(LABELS[i] for i in y[keep].tolist())
        hyp.extend(LABELS[i] for i in logits[keep].argmax(-1).tolist())
    model.train()
    if world > 1:
        parts = _gather(world, (nll, n, ref, hyp))
        nll, n = sum(p[0] for p in parts), sum(p[1] for p in parts)
        ref = [x for p in parts for x in p[2]]
        hyp = [x for p in parts for x in p[3]]
    ppl = math.exp(nll / n) if n else float("nan")
    return ppl, mark_f1(ref, hyp)


def _gather(world: int, obj: Any) -> list[Any]:
    """Every rank's ``obj``, in rank order (validation counts and labels)."""
    import torch.distributed as dist

    parts: list[Any] = [None] * world
    dist.all_gather_object(parts, obj)
    return parts


class WholeValidation:
    """The validation utterances, whole, for ``valid_decode: whole``: their word ids, reference
    label ids and per-word features (None for a model without), decoded as a test set is."""

    def __init__(self, valid_dir: str | Path, inputs, window: int, batch_size: int) -> None:
        from punct.datadir import load_utterances
        from punct.engine.decode import inputs_features

        utts = load_utterances(valid_dir)
        self.streams = [inputs.encode(u.texts) for u in utts]
        self.refs = [[label_id(x) for x in u.labels] for u in utts]
        self.feats = inputs_features(inputs, valid_dir, utts)
        self.inputs, self.window, self.batch_size = inputs, window, batch_size
        self.words = sum(len(r) for r in self.refs)

    @torch.no_grad()
    def f1(self, model: torch.nn.Module, rank: int = 0, world: int = 1) -> float:
        """Overall mark F1 (percent) of ``model`` on every word; with ``world`` > 1 each rank
        decodes every world-th utterance and the labels are gathered."""
        from punct.engine.decode import run_streams

        mine = list(range(rank, len(self.streams), world))
        preds, _ = run_streams(model, [self.streams[i] for i in mine], self.window, self.batch_size, self.inputs,
                               None if self.feats is None else [self.feats[i] for i in mine])
        model.train()
        ref_ids = [x for i in mine for x in self.refs[i]]
        ref = [LABELS[i] for i in map_targets(model, torch.tensor(ref_ids, dtype=torch.long)).tolist()]
        hyp = [LABELS[i] for p in preds for i in p]
        if world > 1:
            parts = _gather(world, (ref, hyp))
            ref = [x for p in parts for x in p[0]]
            hyp = [x for p in parts for x in p[1]]
        return mark_f1(ref, hyp)


def validator(cfg: TrainConfig, model: torch.nn.Module, valid_sl: Slices, inputs, whole: WholeValidation | None,
              rank: int = 0, world: int = 1) -> Callable[[], tuple[float, float]]:
    """The validation of every epoch: () -> (perplexity on the slices, overall mark F1 on the
    slices or, with ``whole``, on the utterances decoded whole); leaves the model in train mode."""
    def validate() -> tuple[float, float]:
        ppl, f1 = evaluate(model, valid_sl, cfg.valid_batch_size, inputs, cfg.valid_slices, rank, world, cfg.precision)
        if whole is not None:
            sliced, f1 = f1, whole.f1(model, rank, world)
            # the slices' F1 is not kept; logged so that the two can be compared
            log.info("validation F1 %.2f decoded whole, %.2f on the slices", f1, sliced)
        return ppl, f1
    return validate


class _IdsOnly:
    """Word ids as they are (``evaluate`` without a featurizer: any vocabulary)."""

    def tensors(self, ids, lengths):
        return WordInputs.tensors(self, ids, lengths)  # type: ignore[arg-type]


def _check_resume(saved: dict[str, Any], cfg: TrainConfig, model_args: dict[str, Any], path: Path) -> None:
    now = dict(to_dict(cfg), model_args=model_args)
    # keys added to TrainConfig or to a model's Config after the checkpoint was
    # written take their defaults (which reproduce what the older code did)
    saved = dict(to_dict(TrainConfig()), **saved)
    try:
        saved["model_args"] = resolved_model_args(saved["model"], saved.get("model_args"))
    except PunctError:
        pass
    # the schedule before the parameters it reads, so a changed schedule is what is named
    for key in sorted(set(saved) | set(now), key=lambda k: (k != "lr_schedule", k)):
        if key in RESUMABLE_CHANGES:
            continue
        if key in SCHEDULE_ONLY and saved.get("lr_schedule") == now.get("lr_schedule") != SCHEDULE_ONLY[key]:
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


def read_train_log(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``train_log.tsv`` (as ``_write_log`` writes them), numbers parsed."""
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if tuple(header) != LOG_COLUMNS:
            raise PunctError(f"expected the columns {' '.join(LOG_COLUMNS)}", path, 1)
        for n, line in enumerate(f, 2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != len(LOG_COLUMNS):
                raise PunctError(f"expected {len(LOG_COLUMNS)} tab-separated fields, found {len(fields)}", path, n)
            try:
                row = {c: float(v) for c, v in zip(LOG_COLUMNS, fields)}
            except ValueError:
                raise PunctError(f"a field is not a number: {line.strip()!r}", path, n) from None
            row["epoch"], row["words_per_s"] = int(row["epoch"]), round(row["words_per_s"])
            rows.append(row)
    return rows


def _write_stopped(exp_dir: Path, why: str, prog: dict[str, Any], reason: str | None = None) -> None:
    """``train_done.json``: training has ended (why, epochs, best epoch); RESULTS.md tells
    a finished run from one still going by it."""
    import json

    done = {"stopped": why, "epochs": prog["epoch"], "best_epoch": prog["best_epoch"],
            "best_valid_ppl": prog["best_ppl"], "best_valid_f1": prog.get("best_f1")}
    if reason is not None:
        done["why"] = reason
    if prog.get("best_averaged"):
        done["averaged_epochs"] = prog["best_averaged"]
    if prog.get("warm_start"):  # {"from": best.pt, "epoch": its epoch}: RESULTS.md adds its training words
        done["warm_start"] = prog["warm_start"]
    with atomic_write(exp_dir / "train_done.json") as f:
        json.dump(done, f, indent=1)
        f.write("\n")


def request_stop(exp_dir: str | Path, why: str) -> Path:
    """Ask the training in ``exp_dir`` (running or resumable) to end at its next epoch
    boundary: write ``exp_dir/stop`` holding ``why``. Returns the file's path."""
    exp_dir = Path(exp_dir)
    if not exp_dir.is_dir():
        raise PunctError("experiment directory not found", exp_dir)
    if not (exp_dir / "checkpoint.pt").is_file() and not (exp_dir / "best.pt").is_file():
        raise PunctError("no training here (neither checkpoint.pt nor best.pt)", exp_dir)
    why = " ".join(why.split()) or "stop requested"
    with atomic_write(exp_dir / STOP_FILE) as f:
        f.write(why + "\n")
    return exp_dir / STOP_FILE


def stop_requested(exp_dir: Path, rank: int = 0, world: int = 1) -> str | None:
    """The reason in ``exp_dir/stop`` (its first line, or "stop requested"), or None if
    there is no such file. Rank 0 reads it and tells the other ranks, so every rank of a
    data-parallel run stops at the same epoch."""
    reason = None
    if rank == 0:
        path = exp_dir / STOP_FILE
        if path.is_file():
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            reason = (lines[0].strip() if lines else "") or "stop requested"
    if world > 1:
        import torch.distributed as dist

        flag = torch.tensor([1 if reason is not None else 0])
        dist.broadcast(flag, 0)
        if flag.item() and reason is None:
            reason = "stop requested"  # the other ranks need only the decision
    return reason


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


class _MainRankOnly(logging.Filter):
    """On the ranks other than 0 of a data-parallel run, which write to the same log as rank
    0: drops the INFO records (rank 0 tells what training does) but those logged with
    ``extra={"all_ranks": True}``; warnings and errors pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or bool(getattr(record, "all_ranks", False))


@contextlib.contextmanager
def _rank_logging(main: bool):
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
    main = dist_info()[0] == 0
    with _rank_logging(main), _one_training(Path(exp_dir), main):
        return _train(cfg, train_dir, valid_dir, exp_dir, command, on_step)


#: the lock file that keeps a second training out of an experiment directory
LOCK_FILE = ".train.lock"


@contextlib.contextmanager
def _one_training(exp_dir: Path, main: bool):
    """One training at a time in ``exp_dir``: a rerun started while the first still runs
    (a run.sh killed alone leaves its training going) would interleave their checkpoints.
    Rank 0 holds the lock for its data-parallel job."""
    if not main:
        yield
        return
    exp_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(exp_dir / LOCK_FILE, "a training"):
        yield


@dataclasses.dataclass
class _Kind:
    """What sort of training a config asks of its model class (checked against each other)."""

    #: a two-stage model: ``init_from`` names its stage one
    second_stage: bool
    #: a warm start: ``init_from`` names a model of the same kind to train on from
    warm: bool
    #: estimated by counting in one pass (``trainer = "fit"``), not by SGD
    counting: bool

    @classmethod
    def of(cls, cfg: TrainConfig, model_cls: type) -> "_Kind":
        second_stage = hasattr(model_cls, "stage1_models")
        kind = cls(second_stage=second_stage, warm=bool(cfg.init_from) and not second_stage,
                   counting=getattr(model_cls, "trainer", "sgd") == "fit")
        if cfg.freeze and not second_stage:
            raise PunctError(f"freeze keeps a two-stage model's stage one fixed; {cfg.model} has no stage one")
        if cfg.word_dropout and (kind.counting or input_kind(model_cls) not in ("words", "words+feats")):
            raise PunctError(f"word_dropout needs a network that reads word ids; {cfg.model} "
                             + ("is estimated by counting" if kind.counting else f"reads {input_kind(model_cls)}"))
        if kind.warm and kind.counting:
            raise PunctError(f"model {cfg.model} is estimated by counting: it cannot train on from init_from")
        if second_stage and not cfg.init_from:
            raise PunctError(f"model {cfg.model} is a second stage: set init_from to a stage-one model (a best.pt)")
        return kind


@dataclasses.dataclass
class _Start:
    """Where a run starts: its featurizer, model arguments and progress, and the checkpoints
    it starts from (the one it resumes, a warm start's model, a two-stage model's stage one)."""

    inputs: Any
    model_args: dict[str, Any]
    prog: dict[str, Any]
    resumed: dict[str, Any] | None = None
    warm: dict[str, Any] | None = None
    stage1: dict[str, Any] | None = None


def _starting_point(cfg: TrainConfig, model_cls: type, kind: _Kind, model_args: dict[str, Any],
                    train_dir: str | Path, ck_path: Path) -> _Start:
    """Resume from ``ck_path`` when it exists, else start from ``init_from``'s weights (a warm
    start) or anew, building the featurizer from ``train_dir`` and the config's resolved
    ``model_args`` (a two-stage model: from its stage one's vocabulary)."""
    if ck_path.is_file():
        ck = ckpt.load(ck_path)
        inputs = inputs_from_checkpoint(ck)
        stage1_extra = {"stage1": ck["model_args"].get("stage1") or {}} if kind.second_stage else {}
        model_args = _complete_model_args(cfg, inputs, stage1_extra)
        _check_resume(ck["train_config"], cfg, model_args, ck_path)
        prog = dict(ck["progress"])
        log.info("resuming from %s: epoch %d, batch %d", ck_path, prog["epoch"] + 1, prog["batch"])
        return _Start(inputs, model_args, prog, resumed=ck)
    if kind.warm:
        warm_ck = _load_warm_start(cfg.model, cfg.init_from)
        inputs = inputs_from_checkpoint(warm_ck)
        prog = _warm_progress(warm_ck, Path(cfg.init_from))
        log.info("warm start from %s (epoch %d): training on from its weights with this config", cfg.init_from,
                 prog["epoch"])
        return _Start(inputs, _complete_model_args(cfg, inputs, {}), prog, warm=warm_ck)
    from punct.datadir import load_utterances

    stage1_ck, stage1_vocab, stage1_extra = None, None, {}
    if kind.second_stage:
        stage1_ck, stage1_vocab, stage1_extra = _load_stage1(model_cls, cfg.init_from)
    utts = load_utterances(train_dir)
    inputs = build_inputs(model_cls, (u.texts for u in utts), cfg, model_args, data_dir=train_dir, vocab=stage1_vocab)
    del utts
    return _Start(inputs, _complete_model_args(cfg, inputs, stage1_extra), _new_progress(), stage1=stage1_ck)


def _write_run_files(exp_dir: Path, resolved: dict[str, Any], command: str | None, resumed: bool) -> None:
    """``config.yaml`` (the resolved config) and ``cmd`` (the command; a resume adds a line)."""
    with atomic_write(exp_dir / "config.yaml") as f:
        f.write(dump_yaml(resolved))
    if command is None:
        return
    if resumed and (exp_dir / "cmd").is_file():
        with open(exp_dir / "cmd", "a", encoding="utf-8") as f:
            f.write(f"# resumed with: {command}\n")
    else:
        with atomic_write(exp_dir / "cmd") as f:
            f.write(command + "\n")


def _model_of(cfg: TrainConfig, start: _Start) -> torch.nn.Module:
    """The model of a new run or a resume, from ``cfg.seed``: a warm start's weights, or the
    pretrained embeddings, or a two-stage model's stage one loaded; the parts the config
    freezes frozen. (A resume's weights are loaded with its optimizer's state.)"""
    torch.manual_seed(cfg.seed)
    model = build_model(cfg.model, start.model_args, start.inputs.input_size)
    if start.warm is not None:
        try:
            model.load_state_dict(start.warm["state_dict"])
        except RuntimeError as e:  # torch's first line is a header, the second the first mismatch
            lines = [x.strip() for x in str(e).strip().splitlines()]
            detail = lines[1] if len(lines) > 1 else lines[0]
            raise PunctError(f"its weights do not fit this config's model_args ({detail})", cfg.init_from) from None
    elif cfg.pretrained_embeddings and start.resumed is None:
        _init_pretrained(model, start.inputs, cfg.pretrained_embeddings)
    if cfg.freeze_embeddings:
        _embedding_of(model).weight.requires_grad_(False)
    if start.stage1 is not None:
        model.load_stage1(start.stage1["state_dict"])
        log.info("stage one: %s (%s, epoch %s)%s", cfg.init_from, start.stage1["model"], start.stage1.get("epoch"),
                 ", kept fixed" if cfg.freeze else ", trained on")
    if cfg.freeze:
        model.freeze_stage1()
        if cfg.stage1_cache_mb:
            model.cache_stage1(cfg.stage1_cache_mb)
    return model


def _train(cfg: TrainConfig, train_dir: str | Path, valid_dir: str | Path, exp_dir: str | Path,
           command: str | None, on_step: Callable[[int, int], None] | None) -> dict[str, Any]:
    exp_dir = Path(exp_dir)
    rank, world = dist_info()
    main = rank == 0  # rank 0 made exp_dir when it took its lock (_one_training)
    torch.set_num_threads(max(1, cfg.threads // world))
    model_cls = get_model_class(cfg.model)
    config_args = resolved_model_args(cfg.model, cfg.model_args)  # an unknown or mistyped argument fails first
    kind = _Kind.of(cfg, model_cls)
    start = _starting_point(cfg, model_cls, kind, config_args, train_dir, exp_dir / "checkpoint.pt")
    inputs, model_args = start.inputs, start.model_args
    if start.resumed is None and main and isinstance(inputs, WordInputs):  # a new run (fresh or warm)
        inputs.vocab.write(exp_dir / "vocab.txt")
    if isinstance(inputs, WordInputs):
        log.info("vocabulary: %d entries (min_count %d)", len(inputs.vocab), cfg.min_count)
    else:
        log.info("inputs: %s", inputs.describe())
    resolved = dict(to_dict(cfg), model_args=model_args)
    if main:
        _write_run_files(exp_dir, resolved, command, start.resumed is not None)

    slice_opts = dict(length=cfg.slice_length, tail_in_loss=cfg.tail_in_loss, long_sentences=cfg.long_sentences,
                      cases=bool(model_args.get("case_head", False)))
    # ids of an open lexicon (characters, word pieces) depend on the encoding order: no cache
    cache_dir = exp_dir / "cache" if inputs.closed and main else None
    if cfg.distill_from:
        _check_teacher(cfg, model_cls, train_dir, model_args)
    train_sl = load_slices(train_dir, inputs, cache=cache_dir and cache_dir / "train.npz", soft=cfg.distill_from,
                           **slice_opts)
    valid_sl = load_slices(valid_dir, inputs, cache=cache_dir and cache_dir / "valid.npz", **slice_opts)
    whole = None
    if cfg.valid_decode == "whole":
        whole = WholeValidation(valid_dir, inputs, cfg.decode_window or cfg.slice_length, cfg.valid_batch_size)
        log.info("validation F1 on %s decoded whole: %d utterances, %d words, %d-word windows", valid_dir,
                 len(whole.streams), whole.words, whole.window)

    model = _model_of(cfg, start)
    warm_start = start.warm is not None  # a new one: a resumed warm start has no start.warm
    start.warm = None  # its weights are in the model now
    payload_extra = {"inputs": inputs.state(),
                     "vocab": inputs.vocab.to_list() if isinstance(inputs, WordInputs) else []}
    if getattr(model, "case_head", False):  # how restore spells the MIXED class (punct.restore.true_case)
        from punct.datadir import mixed_spellings

        payload_extra["mixed_spellings"] = mixed_spellings(train_dir)
        log.info("case head: %d mixed spellings seen at least twice in %s", len(payload_extra["mixed_spellings"]),
                 Path(train_dir) / "written")
    if kind.second_stage:
        payload_extra["stage1_train_config"] = (start.stage1.get("train_config", {}) if start.stage1 is not None
                                                else start.resumed.get("stage1_train_config", {}))

    if kind.counting:
        if cfg.average_best:
            raise PunctError(f"model {cfg.model} is estimated by counting, in no epochs: average_best does not apply")
        if world > 1:
            raise PunctError(f"model {cfg.model} is estimated by counting, not by SGD: run it in one process")
        # validated in fp32, as counting models always were (precision is a setting of SGD training)
        fit_cfg = dataclasses.replace(cfg, precision="fp32")
        return _fit(model, cfg, inputs, train_dir, validator(fit_cfg, model, valid_sl, inputs, whole), exp_dir,
                    start.prog, resolved, model_args, payload_extra)

    opt = make_optimizer(cfg, model.parameters())
    if start.resumed is not None:
        model.load_state_dict(start.resumed["state_dict"])
        load_optimizer_state(opt, start.resumed["optimizer"])
        torch.set_rng_state(start.resumed["rng"])
        start.resumed = None  # the checkpoint's weights and optimizer state are loaded: not kept twice
    if world > 1:
        import torch.distributed as dist

        for t in list(model.parameters()) + list(model.buffers()):
            dist.broadcast(t.data, 0)
        torch.manual_seed(cfg.seed * 1000 + rank + 1)  # dropout masks differ between ranks
    n_params = sum(p.numel() for p in model.parameters())
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if cfg.precision == "bf16" and not _native_bf16():
        log.warning("precision bf16 on a CPU without native bfloat16 (AVX512-BF16 or AMX): it will be slower than fp32")
    log.info("model %s: %d parameters (%d trained); %d train slices, %d valid slices%s", cfg.model, n_params, n_train,
             len(train_sl), len(valid_sl), f"; rank {rank} of {world}" if world > 1 else "",
             extra={"all_ranks": True})
    model.train()
    run = _Run(cfg, exp_dir, model, opt, inputs, train_sl, validator(cfg, model, valid_sl, inputs, whole, rank, world),
               start.prog, dict(payload_extra, model=cfg.model, model_args=model_args, labels=list(LABELS),
                                train_config=resolved), on_step)
    if warm_start:
        run.validate_warm_start()
    return run.train()


class _Run:
    """An SGD run from the moment its model and optimizer are ready: the epochs, their batches,
    validation, checkpoints and ``best.pt``, and the end of training. ``prog`` (the progress
    record of checkpoint.pt) is the state a resume restores."""

    def __init__(self, cfg: TrainConfig, exp_dir: Path, model: torch.nn.Module, opt: torch.optim.Optimizer, inputs,
                 train_sl: Slices, validate: Callable[[], tuple[float, float]], prog: dict[str, Any],
                 payload: dict[str, Any], on_step: Callable[[int, int], None] | None) -> None:
        self.cfg, self.exp_dir, self.model, self.opt, self.inputs = cfg, exp_dir, model, opt, inputs
        self.train_sl, self.validate, self.prog, self._payload, self.on_step = train_sl, validate, prog, payload, on_step
        self.rank, self.world = dist_info()
        self.main = self.rank == 0
        self.ck_path = exp_dir / "checkpoint.pt"
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.last_save = 0.0  # when the checkpoint was last saved (time.monotonic)

    def payload(self) -> dict[str, Any]:
        """What every saved model holds: the model's name, arguments and weights, its inputs, the config."""
        return dict(self._payload, state_dict=self.model.state_dict())

    def save_checkpoint(self) -> None:
        if self.main:
            ckpt.save(self.ck_path, dict(self.payload(), optimizer=self.opt.state_dict(), progress=self.prog,
                                         rng=torch.get_rng_state()))

    def save_best(self, epoch: int, ppl: float, f1: float) -> None:
        if self.main:
            ckpt.save(self.exp_dir / "best.pt", dict(self.payload(), epoch=epoch, valid_ppl=ppl, valid_f1=f1))

    def validate_warm_start(self) -> None:
        """A new warm start: the starting weights are the best model until an epoch beats them on
        this validation set (select_by last: until the first epoch ends)."""
        ppl, f1 = self.validate()
        self.model.train()
        self.prog.update(best_ppl=ppl, best_f1=f1)
        log.info("warm start: valid ppl %.4f, valid F1 %.1f before training on", ppl, f1)
        self.save_best(self.prog["epoch"], ppl, f1)
        if self.main:
            _write_log(self.exp_dir, self.prog["history"])
        self.save_checkpoint()

    def epochs_left(self) -> bool:
        prog = self.prog
        return prog["epoch"] < self.cfg.max_epochs and prog["bad_epochs"] < self.cfg.patience \
            and not prog.get("halved_out")

    def train(self) -> dict[str, Any]:
        """Train the epochs that are left, then end the run (averaging, train_done.json)."""
        cfg, prog = self.cfg, self.prog
        if cfg.average_best and "snapshots" not in prog:
            # switched on now (it may be, on a resume): the best model so far is the first one kept
            prog["snapshots"] = seed_snapshots(self.exp_dir, prog, self.main, self.world)
        elif cfg.average_best and len(prog["snapshots"]) > cfg.average_best:  # a smaller N on a resume
            prog["snapshots"] = best_snapshots(cfg, prog["snapshots"])
        if self.main and not (self.exp_dir / STOP_FILE).exists() and self.epochs_left():
            # a run that ended (by hand, or at an earlier max_epochs) trains on: its old end no longer
            # holds, and RESULTS.md must show it as still training until it ends again
            (self.exp_dir / "train_done.json").unlink(missing_ok=True)
        stop_reason = None
        self.last_save = time.monotonic()
        # a stop signal ends training after the batch it arrives in, with a checkpoint (punct.engine.signals)
        with signals.deferred(announce=self.main) as got:
            while self.epochs_left():
                if prog["batch"] == 0:  # an epoch boundary: a half-done epoch is finished first
                    stop_reason = stop_requested(self.exp_dir, self.rank, self.world)
                    if stop_reason is not None:
                        log.info("stop requested by %s (%s); remove the file to train on", self.exp_dir / STOP_FILE,
                                 stop_reason)
                        break
                self.run_epoch(got)
                self.end_epoch()
        signum = got.agreed(self.world)
        if signum:  # it came after the last batch, while validating: the epoch's checkpoint is saved
            raise signals.Interrupted(f"training stopped by {signals.signal_name(signum)} after epoch {prog['epoch']}; "
                                      "rerun the same command to finish from this checkpoint", self.ck_path, signum,
                                      quiet=not self.main)
        return self.finish(stop_reason)

    def batches(self, epoch: int) -> list[np.ndarray]:
        """The batches of slice indices of ``epoch``, the same in every run with the seed."""
        cfg, n_slices = self.cfg, len(self.train_sl)
        n_epoch = min(n_slices, cfg.epoch_slices) if cfg.epoch_slices else n_slices
        if n_epoch == n_slices:
            return epoch_order(n_slices, cfg.batch_size, cfg.seed, epoch)
        # a random subset: the first n_epoch slices of this epoch's permutation
        perm = np.random.default_rng([cfg.seed, epoch]).permutation(n_slices)
        return [perm[b] for b in epoch_order(n_epoch, cfg.batch_size, cfg.seed, epoch, shuffle=False)]

    def run_epoch(self, got) -> None:
        """The batches of the current epoch from ``prog["batch"]`` on, with progress (a bar on a
        terminal, else a log line every PROGRESS_LOG_SECONDS) and checkpoints every
        ``checkpoint_minutes``; a stop signal in ``got`` saves the batch and raises Interrupted."""
        cfg, prog = self.cfg, self.prog
        epoch = prog["epoch"]
        if cfg.lr_schedule in ("halving", "plateau"):
            for group in self.opt.param_groups:
                group["lr"] = cfg.lr * prog.get("lr_scale", 1.0)
        batches = self.batches(epoch)
        total_steps = cfg.max_epochs * len(batches)
        bar = _progress(len(batches), prog["batch"], f"epoch {epoch + 1}") if self.main else None
        t_epoch = time.monotonic()
        seconds_before = prog["seconds"]
        last_log = t_epoch
        first_batch = prog["batch"]
        for b in range(prog["batch"], len(batches)):
            prog["words"] += self.step(epoch, b, batches[b], epoch * len(batches) + b, total_steps)
            prog["batch"] = b + 1
            now = time.monotonic()
            prog["seconds"] = seconds_before + (now - t_epoch)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{prog['loss_sum'] / max(1, prog['loss_words']):.4f}",
                                wps=f"{prog['words'] / max(1e-9, prog['seconds']):.0f}")
            if self.on_step is not None:
                self.on_step(epoch, b + 1)
            if now - last_log >= PROGRESS_LOG_SECONDS and bar is None and self.main:
                last_log = now
                left = (now - t_epoch) / (b + 1 - first_batch) * (len(batches) - b - 1)
                log.info("epoch %d batch %d/%d: train loss %.4f, %.0f words/s, the epoch's batches end in %.0f min",
                         epoch + 1, b + 1, len(batches), prog["loss_sum"] / max(1, prog["loss_words"]),
                         prog["words"] / max(1e-9, prog["seconds"]), left / 60)
            signum = got.agreed(self.world)
            if signum:  # a stop signal: this batch is kept (the module docstring of punct.engine.signals)
                self.save_checkpoint()
                if bar is not None:
                    bar.close()
                name = signals.signal_name(signum)
                log.info("%s: stopped at epoch %d, batch %d of %d; checkpoint saved", name, epoch + 1, b + 1,
                         len(batches))
                raise signals.Interrupted(f"training stopped by {name} at epoch {epoch + 1}, batch {b + 1} of "
                                          f"{len(batches)}; rerun the same command to resume from this "
                                          "checkpoint", self.ck_path, signum, quiet=not self.main)
            if now - self.last_save >= self.cfg.checkpoint_minutes * 60.0 and b + 1 < len(batches):
                self.save_checkpoint()
                self.last_save = time.monotonic()
        if bar is not None:
            bar.close()

    def step(self, epoch: int, b: int, idx: np.ndarray, step: int, total_steps: int) -> int:
        """One optimizer step on the slices ``idx`` (step ``b`` of ``epoch``, ``step`` of
        ``total_steps`` in the run); returns the words of the batch, adds its loss to ``prog``."""
        cfg, model, prog = self.cfg, self.model, self.prog
        train_sl = self.train_sl
        prepare = word_dropout_of(cfg, epoch, b, len(idx), train_sl.ids.shape[1], self.rank, self.world)
        if self.world > 1:
            n = int((train_sl.labels[idx] >= 0).sum())
            n_words = int(train_sl.lengths[idx].sum())
            loss_val = _dist_step(model, self.params, self.inputs, train_sl, np.array_split(idx, self.world)[self.rank],
                                  n if cfg.loss_reduction == "mean" else 1, cfg.precision, prepare, Distill.of(cfg))
        else:
            kw, mask, y = batch_inputs(self.inputs, train_sl, idx)
            if prepare is not None:
                kw = prepare(kw)
            y = map_targets(model, y)
            n = int((y != -100).sum())
            n_words = int(mask.sum())
            if n:
                loss_sum = loss_sum_of(model, kw, y, cfg.precision, Distill.of(cfg))
                self.opt.zero_grad(set_to_none=True)
                (loss_sum / n if cfg.loss_reduction == "mean" else loss_sum).backward()
                loss_val = loss_sum.item()
        if n:
            if cfg.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.params, cfg.clip_norm)
            if cfg.lr_schedule == "linear":
                for group in self.opt.param_groups:
                    group["lr"] = lr_at(cfg, step, total_steps)
            self.opt.step()
            prog["loss_sum"] += loss_val
            prog["loss_words"] += n
        return n_words

    def end_epoch(self) -> None:
        """Validate the epoch just trained, keep it as best.pt (and a snapshot) if it is, apply
        the schedule's end-of-epoch step, log the epoch and save the checkpoint."""
        cfg, prog = self.cfg, self.prog
        epoch = prog["epoch"]
        ppl, f1 = self.validate()
        row = {"epoch": epoch + 1, "train_loss": prog["loss_sum"] / max(1, prog["loss_words"]), "valid_ppl": ppl,
               "valid_f1": f1, "seconds": round(prog["seconds"], 1),
               "words_per_s": round(prog["words"] / max(1e-9, prog["seconds"]))}
        if cfg.select_by == "last":
            improved = True
        elif cfg.select_by == "f1":
            improved = f1 > prog.get("best_f1", -math.inf)
        else:
            improved = ppl < prog["best_ppl"]
        if cfg.average_best:  # this epoch's weights, before a schedule goes back to the best ones
            keep_snapshot(cfg, prog, self.exp_dir, dict(self.payload(), epoch=epoch + 1, valid_ppl=ppl, valid_f1=f1),
                          self.main)
        if cfg.lr_schedule == "halving":
            _halving_step(cfg, prog, ppl, improved, self.model, self.exp_dir / "best.pt")
        elif cfg.lr_schedule == "plateau" and not improved:
            _plateau_step(cfg, prog, self.model, self.exp_dir / "best.pt", self.world)
        mark = " (best)" if improved and cfg.select_by != "last" else ""  # beside the score that selects
        ppl_mark, f1_mark = (mark, "") if cfg.select_by == "ppl" else ("", mark)
        log.info("epoch %d: train loss %.4f, valid ppl %.4f%s, valid F1 %.1f%s, %.0f s, %.0f words/s", row["epoch"],
                 row["train_loss"], ppl, ppl_mark, f1, f1_mark, row["seconds"], row["words_per_s"])
        prog["history"] = prog["history"] + [row]
        if improved:
            prog["best_ppl"], prog["best_f1"], prog["best_epoch"], prog["bad_epochs"] = ppl, f1, epoch + 1, 0
            self.save_best(epoch + 1, ppl, f1)
        else:
            prog["bad_epochs"] += 1
        prog.update(epoch=epoch + 1, batch=0, loss_sum=0.0, loss_words=0, words=0, seconds=0.0)
        self.save_checkpoint()
        self.last_save = time.monotonic()
        if self.main:
            _write_log(self.exp_dir, prog["history"])
            if cfg.average_best:  # only now that the checkpoint no longer lists them
                prune_snapshots(self.exp_dir, prog["snapshots"])

    def finish(self, stop_reason: str | None) -> dict[str, Any]:
        """The end of training: the average of the best epochs when it is due, the log line and
        train_done.json saying why training ended."""
        cfg, prog = self.cfg, self.prog
        if stop_reason is not None and prog["best_epoch"] == 0:
            raise PunctError("a stop was requested before the first epoch ended, so there is no model to keep "
                             "(remove the file to train)", self.exp_dir / STOP_FILE)
        snaps = [s["epoch"] for s in prog.get("snapshots", [])] if cfg.average_best else []
        if len(snaps) >= 2 and prog.get("averaged") != sorted(snaps):
            average_snapshots(cfg, prog, self.model, self.exp_dir, self.payload, self.rank, self.world,
                              validate=self.validate)
            self.save_checkpoint()
        if stop_reason is not None:
            why = "by hand"
        elif prog.get("halved_out"):
            why = "halving"
        else:
            why = "patience" if prog["bad_epochs"] >= cfg.patience else "max_epochs"
        log.info("training stopped (%s) after %d epochs; best (by %s) at epoch %d: valid ppl %.4f, F1 %.1f -> %s",
                 why, prog["epoch"], cfg.select_by, prog["best_epoch"], prog["best_ppl"],
                 prog.get("best_f1", math.nan), self.exp_dir / "best.pt")
        if self.main:
            _write_stopped(self.exp_dir, why, prog, stop_reason)
        if self.world > 1:
            import torch.distributed as dist

            dist.barrier()
        return prog


def _halving_step(cfg: TrainConfig, prog: dict[str, Any], ppl: float, improved: bool, model: torch.nn.Module,
                  best_path: Path) -> None:
    """lr_schedule halving after an epoch of validation perplexity PPL (Mikolov's recipe, as
    the T-LSTM reference implementation ottokart/punctuator trains): the first epoch that
    improves log-perplexity by less than the threshold starts the halving (going back to the
    best weights if it got worse); from then on the rate halves every epoch, and the next
    such epoch ends training."""
    small = math.log(ppl) * cfg.halving_threshold > math.log(prog["best_ppl"])
    if small and prog.get("halving"):
        prog["halved_out"] = True
        log.info("lr halving: epoch %d improved by less than %.3g in log-perplexity again; stopping",
                 prog["epoch"] + 1, cfg.halving_threshold)
        return
    if small:
        prog["halving"] = True
        if not improved and best_path.is_file():
            model.load_state_dict(ckpt.load(best_path)["state_dict"])
            log.info("lr halving starts; back to the weights of epoch %d", prog["best_epoch"])
    if prog.get("halving"):
        prog["lr_scale"] = prog.get("lr_scale", 1.0) / 2
        log.info("lr halving: the learning rate is now %.4g", cfg.lr * prog["lr_scale"])


def _plateau_step(cfg: TrainConfig, prog: dict[str, Any], model: torch.nn.Module, best_path: Path,
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


def _new_progress() -> dict[str, Any]:
    """The progress record of a run before its first epoch (kept in checkpoint.pt)."""
    return {"epoch": 0, "batch": 0, "loss_sum": 0.0, "loss_words": 0, "words": 0, "seconds": 0.0,
            "best_ppl": float("inf"), "best_epoch": 0, "bad_epochs": 0, "history": []}


def _load_warm_start(model: str, path: str) -> dict[str, Any]:
    """The checkpoint ``path`` that a run of ``model`` trains on from (init_from of a one-stage model)."""
    p = Path(path)
    if not p.is_file():
        raise PunctError("init_from: no such checkpoint", p)
    ck0 = ckpt.load(p)
    if ck0.get("model") != model:
        raise PunctError(f"init_from is a {ck0.get('model')} model; a {model} run can only train on from a "
                         f"{model} model", p)
    return ck0


def _warm_progress(ck0: dict[str, Any], path: Path) -> dict[str, Any]:
    """A warm start's progress: it goes on from the epochs of the run that made ``ck0``
    (its train_log.tsv rows up to that model's epoch, when the file is beside it), so
    epoch numbers, max_epochs and the training time count the whole way to the model."""
    epoch = int(ck0.get("epoch") or 0)
    tsv = path.parent / "train_log.tsv"
    history = [row for row in read_train_log(tsv) if row["epoch"] <= epoch] if tsv.is_file() else []
    return dict(_new_progress(), epoch=epoch, best_epoch=epoch, history=history,
                warm_start={"from": str(path), "epoch": epoch})


def drop_words(kw: dict[str, torch.Tensor], p: float, u: np.ndarray) -> dict[str, torch.Tensor]:
    """Word dropout: each real word of ``kw["ids"]`` ``[b,T]`` becomes ``<unk>`` where its
    uniform draw ``u[:, :T]`` is below ``p`` (padding stays padding). The training loop
    draws ``u`` from the seed, epoch and step, so that a resumed run and a data-parallel
    one draw what one uninterrupted process would have."""
    ids = kw["ids"]
    hit = torch.from_numpy(u[:, : ids.shape[1]] < p) & kw["mask"]
    return dict(kw, ids=ids.masked_fill(hit, UNK_ID))


def word_dropout_of(cfg: TrainConfig, epoch: int, step: int, n_slices: int, width: int, rank: int,
                    world: int) -> Callable | None:
    """The input change of one training step when ``cfg.word_dropout`` is on (else None):
    one draw for the whole batch from the seed, epoch and step, split between the ranks
    as the batch is, so that every run of the step drops the same words."""
    if not cfg.word_dropout:
        return None
    u = np.random.default_rng([cfg.seed, epoch, step]).random((n_slices, width))
    if world > 1:
        u = np.array_split(u, world)[rank]
    return lambda kw: drop_words(kw, cfg.word_dropout, u)


def _dist_step(model, params, inputs, slices: Slices, part: np.ndarray, n_total: int,
               precision: str = "fp32", prepare: Callable | None = None, distill: Distill | None = None) -> float:
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
            loss_sum = loss_sum_of(model, kw, y, precision, distill)
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


def _complete_model_args(cfg: TrainConfig, inputs, extra: dict[str, Any]) -> dict[str, Any]:
    """The model's arguments: the config's, plus what the featurizer tells the model
    (``feature_names``) and the stage-one spec of a two-stage model."""
    more = dict(inputs.model_args()) if hasattr(inputs, "model_args") else {}
    more.update(extra)
    return resolved_model_args(cfg.model, dict(cfg.model_args, **more))


def _load_stage1(model_cls: type, path: str) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """(checkpoint, what it read, {"stage1": spec}) of the stage-one model ``path`` of a two-stage
    model. What it read is its Vocabulary for a word-id model (``words+feats`` second stages)
    and its featurizer's state (under ``inputs``: the encoder and tokenizer digest) for a
    transformer tagger (``wordpieces+feats``)."""
    from punct.engine.vocab import Vocabulary

    ck1 = ckpt.load(path)
    if ck1["model"] not in model_cls.stage1_models:
        raise PunctError(f"stage one is a {ck1['model']} model; {model_cls.__name__} builds on "
                         f"{' or '.join(model_cls.stage1_models)}", path)
    kind = (ck1.get("inputs") or {}).get("kind", "words")
    wants = input_kind(model_cls)
    spec = {"model": ck1["model"], "model_args": dict(ck1["model_args"]), "source": str(path),
            "epoch": ck1.get("epoch"), "valid_ppl": ck1.get("valid_ppl")}
    if wants == "wordpieces+feats":
        if kind != "wordpieces":
            raise PunctError(f"stage one must read word pieces (its inputs are {kind})", path)
        return ck1, dict(ck1["inputs"]), {"stage1": spec}
    if kind != "words" or not ck1.get("vocab"):
        raise PunctError(f"stage one must read word ids (its inputs are {kind})", path)
    return ck1, Vocabulary.from_list(ck1["vocab"]), {"stage1": spec}


def _check_teacher(cfg: TrainConfig, model_cls: type, train_dir: str | Path, model_args: dict[str, Any]) -> None:
    """A distillation run: the teacher's posteriors are in the training directory, and the
    student can learn from them (a per-word loss); says what it learns from them."""
    from punct.engine.soft_labels import SoftLayout
    from punct.prosody.features import feature_files, read_names

    scp = feature_files(train_dir, cfg.distill_from)[1]
    if not scp.is_file():
        raise PunctError(f"distill_from: no posteriors {cfg.distill_from!r} in the training directory (punct posteriors "
                         f"--model TEACHER --data {train_dir} --name {cfg.distill_from} writes them)", scp)
    layout = SoftLayout.of(read_names(train_dir, cfg.distill_from), scp)
    if getattr(model_cls, "trainer", "sgd") == "fit":
        raise PunctError(f"model {cfg.model} is estimated by counting: it cannot learn from a teacher's posteriors")
    case = bool(model_args.get("case_head", False))
    log.info("distillation from %s: marks%s, teacher weight %.2f, temperature %g", scp,
             " and case" if case and layout.case else (" (the teacher has no case posteriors)" if case else ""),
             cfg.distill_weight, cfg.distill_temperature)


def _embedding_of(model: torch.nn.Module) -> torch.nn.Embedding:
    emb = getattr(model, "embedding", None)
    if not isinstance(emb, torch.nn.Embedding):
        raise PunctError(f"{type(model).__name__} has no word embedding (an nn.Embedding named 'embedding')")
    return emb


def _init_pretrained(model: torch.nn.Module, inputs, name: str) -> None:
    from punct.models.pretrained import init_embedding

    if not isinstance(inputs, WordInputs):
        raise PunctError("pretrained_embeddings needs a model that reads word ids")
    init_embedding(_embedding_of(model).weight, inputs.vocab.words, name, skip=len(SPECIALS))


def _fit(model, cfg: TrainConfig, inputs, train_dir, validate: Callable[[], tuple[float, float]], exp_dir: Path,
         prog: dict[str, Any], resolved: dict[str, Any], model_args: dict[str, Any], extra: dict[str, Any]
         ) -> dict[str, Any]:
    """Estimate a counting model (``trainer = "fit"``) in one pass, validated by ``validate``
    (``validator``); one log row."""
    if prog["epoch"] >= 1:
        log.info("%s is already estimated", exp_dir / "best.pt")
        return prog
    from punct.datadir import load_utterances
    from punct.labels import label_id

    t0 = time.monotonic()
    streams = []
    n_words = 0
    for u in load_utterances(train_dir):
        streams.append((np.asarray(inputs.encode(u.texts), np.int64), np.asarray([label_id(x) for x in u.labels], np.int64)))
        n_words += len(u.words)
    model.fit(streams)
    seconds = time.monotonic() - t0
    ppl, f1 = validate()
    row = {"epoch": 1, "train_loss": float("nan"), "valid_ppl": ppl, "valid_f1": f1, "seconds": round(seconds, 1),
           "words_per_s": round(n_words / max(1e-9, seconds))}
    log.info("estimated %s on %d words in %.0f s: valid ppl %.4f, valid F1 %.1f", cfg.model, n_words, seconds, ppl, f1)
    prog.update(epoch=1, batch=0, best_ppl=ppl, best_epoch=1, bad_epochs=0, history=[row])
    payload = {"model": cfg.model, "model_args": model_args, "vocab": extra["vocab"], "labels": list(LABELS),
               "state_dict": model.state_dict(), "train_config": resolved, "inputs": extra["inputs"]}
    ckpt.save(exp_dir / "best.pt", dict(payload, epoch=1, valid_ppl=ppl, valid_f1=f1))
    ckpt.save(exp_dir / "checkpoint.pt", dict(payload, progress=prog))
    _write_log(exp_dir, prog["history"])
    _write_stopped(exp_dir, "estimated", prog)
    return prog


def _progress(total: int, initial: int, desc: str):
    """A tqdm bar on a terminal; None otherwise (then progress is logged every PROGRESS_LOG_SECONDS)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="batch", dynamic_ncols=True)
