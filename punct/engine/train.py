"""The training loop shared by every model: epochs of mini-batches, validation, early
stopping, ``best.pt`` and resumable checkpoints.

``train(cfg, train_dir, valid_dir, exp_dir)`` writes into ``exp_dir`` the files of
punct.engine.expdir, ``vocab.txt``, ``cache/`` (precomputed slices), ``checkpoint.pt``
(everything a resume needs: every ``checkpoint_minutes`` and after every epoch) and
``best.pt`` (the model of the best validation score). Rerunning the same command resumes
at the batch where the run stopped, with the same result. A file ``exp_dir/stop`` ends
training at the next epoch boundary; SIGTERM or SIGINT end it after the current batch,
saved, as an error a rerun resumes from (punct.engine.signals).

What differs between models is declared by the model class: ``input_kind`` picks the
featurizer (punct.engine.inputs), ``training_loss`` replaces the per-word cross-entropy,
``trainer = "fit"`` marks a model estimated by counting in one pass (saved as one epoch),
``target_map`` maps the targets it learns. How a run starts (resume, warm start, two-stage
model) is punct.engine.start; the loss of a step punct.engine.loss; validation
punct.engine.validation; data parallelism punct.engine.parallel.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from punct.config import to_dict
from punct.data.datadir import DataSet
from punct.engine import carry
from punct.engine import checkpoint as ckpt
from punct.engine import signals
from punct.engine.averaging import average_snapshots, best_snapshots, keep_snapshot, prune_snapshots, seed_snapshots
from punct.engine.budget import BudgetedRun
from punct.engine.device import check_device, native_bf16, on_device
from punct.engine.batching import Slices, load_slices
from punct.engine.config import TrainConfig
from punct.engine.expdir import STOP_FILE, one_training, stop_requested, write_done, write_log, write_run_files
from punct.engine.inputs import WordInputs
from punct.engine.optim import halving_step, load_optimizer_state, make_optimizer, plateau_step
from punct.engine.parallel import dist_info, rank_logging
from punct.engine.sgd import Stepper, epoch_batches
from punct.engine.start import RunKind, check_teacher, model_of, starting_point
from punct.engine.warm_optim import estimate_accumulator
from punct.engine.validation import LAST_BY_MARK, WholeValidation, improves, validator
from punct.errors import PunctError
from punct.text.labels import LABELS, MARK_LABELS
from punct.models import get_model_class, resolved_model_args

log = logging.getLogger(__name__)

#: without a terminal (no progress bar), a progress line is logged this often (seconds)
PROGRESS_LOG_SECONDS = 300.0


def train(
    cfg: TrainConfig,
    train_dir: str | Path,
    valid_dir: str | Path,
    exp_dir: str | Path,
    command: str | None = None,
    on_step: Callable[[int, int], None] | None = None,
    state: str | Path | None = None,
    time_budget: float | None = None,
    device: str = "cpu",
) -> dict[str, Any]:
    """Train ``cfg.model`` on ``train_dir``, early-stop on ``valid_dir``; resume from
    ``exp_dir/checkpoint.pt`` if present. Returns the final progress record.
    ``on_step(epoch, batch)`` is called after every optimizer step (tests use it).

    ``state``: a state file carried in git (punct.engine.carry): the run resumes from it when
    it is further along than ``exp_dir``'s checkpoint, and writes it back after every epoch,
    on a stop signal and at the end. ``time_budget``: seconds of wall time for this call;
    training stops in time to validate and write its files before they run out (the record
    then says ``stopped: time budget``, and a rerun continues). ``device``: where the model
    trains (``cuda``: a GPU, in bf16; the files it writes are the CPU's)."""
    main = dist_info()[0] == 0
    deadline = time.monotonic() + time_budget if time_budget else None
    LAST_BY_MARK.clear()  # an earlier training's per-mark F1 never reaches this one's log
    with rank_logging(main), one_training(Path(exp_dir), main):
        return _train(cfg, train_dir, valid_dir, exp_dir, command, on_step, state, deadline, device)


def _train(cfg: TrainConfig, train_dir: str | Path, valid_dir: str | Path, exp_dir: str | Path,
           command: str | None, on_step: Callable[[int, int], None] | None, state: str | Path | None = None,
           deadline: float | None = None, device: str = "cpu") -> dict[str, Any]:
    exp_dir = Path(exp_dir)
    rank, world = dist_info()
    check_device(device, world)
    main = rank == 0  # rank 0 made exp_dir when it took its lock (one_training)
    torch.set_num_threads(max(1, cfg.threads // world))
    model_cls = get_model_class(cfg.model)
    config_args = resolved_model_args(cfg.model, cfg.model_args)  # an unknown or mistyped argument fails first
    kind = RunKind.of(cfg, model_cls)
    # the training set, read once (on first use) for the featurizer, the slices and the spellings
    train_set = DataSet(train_dir)
    start = starting_point(cfg, model_cls, kind, config_args, train_set, exp_dir / "checkpoint.pt", state)
    inputs, model_args = start.inputs, start.model_args
    if start.resumed is None and main and isinstance(inputs, WordInputs):  # a new run (fresh or warm)
        inputs.vocab.write(exp_dir / "vocab.txt")
    if isinstance(inputs, WordInputs):
        log.info("vocabulary: %d entries (min_count %d)", len(inputs.vocab), cfg.min_count)
    else:
        log.info("inputs: %s", inputs.describe())
    resolved = dict(to_dict(cfg), model_args=model_args)
    if main:
        write_run_files(exp_dir, resolved, command, start.resumed is not None)

    slice_opts = dict(length=cfg.slice_length, tail_in_loss=cfg.tail_in_loss, long_sentences=cfg.long_sentences,
                      cases=bool(model_args.get("case_head", False)))
    # ids of an open lexicon (characters, word pieces) depend on the encoding order: no cache
    cache_dir = exp_dir / "cache" if inputs.closed and main else None
    if cfg.distill_from:
        check_teacher(cfg, model_cls, train_dir, model_args)
    train_sl = load_slices(train_set, inputs, cache=cache_dir and cache_dir / "train.npz", soft=cfg.distill_from,
                           **slice_opts)
    valid_sl = load_slices(valid_dir, inputs, cache=cache_dir and cache_dir / "valid.npz", **slice_opts)
    whole = None
    if cfg.valid_decode == "whole":
        whole = WholeValidation(valid_dir, inputs, cfg.decode_window or cfg.slice_length, cfg.valid_batch_size)
        log.info("validation F1 on %s decoded whole: %d utterances, %d words, %d-word windows", valid_dir,
                 len(whole.streams), whole.words, whole.window)

    model = model_of(cfg, start)
    warm_start = start.warm is not None  # a new one: a resumed warm start has no start.warm
    start.warm = None  # its weights are in the model now
    payload_extra = {"inputs": inputs.state(),
                     "vocab": inputs.vocab.to_list() if isinstance(inputs, WordInputs) else []}
    if getattr(model, "case_head", False):  # how restore spells the MIXED class (punct.restore.true_case)
        spellings = train_set.mixed_spellings()
        if kind.second_stage:  # the case head is stage one's, passed through: its spellings win
            first = start.stage1 if start.stage1 is not None else start.resumed
            spellings.update((first or {}).get("mixed_spellings") or {})
        payload_extra["mixed_spellings"] = spellings
        lexicon = train_set.case_lexicon()  # the words its training text spells one way (punct.text.casing)
        if kind.second_stage:
            lexicon.update((first or {}).get("case_lexicon") or {})
        payload_extra["case_lexicon"] = lexicon
        log.info("case head: %d mixed spellings (seen at least twice in %s%s), %d words in its case lexicon",
                 len(spellings), Path(train_dir) / "written", " and stage one's" if kind.second_stage else "",
                 len(lexicon))
    if kind.second_stage:
        payload_extra["stage1_train_config"] = start.stage1_train_config
        bias = start.stage1_decision_bias
        if bias:  # words without times take stage one's decisions, its tuned bias (punct set-bias) included
            payload_extra["stage1_decision_bias"] = bias

    if kind.counting:
        if cfg.average_best:
            raise PunctError(f"model {cfg.model} is estimated by counting, in no epochs: average_best does not apply")
        if world > 1:
            raise PunctError(f"model {cfg.model} is estimated by counting, not by SGD: run it in one process")
        # validated in fp32: precision is a setting of SGD training
        fit_cfg = dataclasses.replace(cfg, precision="fp32")
        return _fit(model, cfg, inputs, train_set, validator(fit_cfg, model, valid_sl, inputs, whole), exp_dir,
                    start.prog, resolved, model_args, payload_extra)

    train_set.drop()  # the slices and spellings are made: the utterances are not needed again
    if device != "cpu":
        cfg = on_device(cfg, model, device)
    opt = make_optimizer(cfg, model.parameters())
    fresh_moments = warm_start  # an optimizer whose moments are not the ones these weights were trained with
    if start.resumed is not None:
        model.load_state_dict(start.resumed["state_dict"])
        if "optimizer" in start.resumed:
            load_optimizer_state(opt, start.resumed["optimizer"])
        elif "optimizer_compact" in start.resumed:  # the moments a full-size state file could not hold
            load_optimizer_state(opt, carry.expand_optimizer(start.resumed["optimizer_compact"]))
        else:  # a state file without Adam's moments: fresh ones, and the rate re-warms from here
            start.prog["rewarm_from"] = start.prog.get("step", 0)
            fresh_moments = True
        torch.set_rng_state(start.resumed["rng"])
        start.resumed = None  # the checkpoint's weights and optimizer state are loaded: not kept twice
    if world > 1:
        import torch.distributed as dist

        for t in list(model.parameters()) + list(model.buffers()):
            dist.broadcast(t.data, 0)
        torch.manual_seed(cfg.seed * 1000 + rank + 1)  # dropout masks differ between ranks
    n_params = sum(p.numel() for p in model.parameters())
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if cfg.precision == "bf16" and not native_bf16():
        log.warning("precision bf16 on a CPU without native bfloat16 (AVX512-BF16 or AMX): it will be slower than fp32")
    log.info("model %s: %d parameters (%d trained); %d train slices, %d valid slices%s", cfg.model, n_params, n_train,
             len(train_sl), len(valid_sl), f"; rank {rank} of {world}" if world > 1 else "",
             extra={"all_ranks": True})
    model.train()
    run = _Run(cfg, exp_dir, model, opt, inputs, train_sl, validator(cfg, model, valid_sl, inputs, whole, rank, world),
               start.prog, dict(payload_extra, model=cfg.model, model_args=model_args, labels=list(LABELS),
                                train_config=resolved), on_step)
    run.state, run.deadline, run.command = (Path(state) if state else None), deadline, command
    if deadline is not None:  # half a minute for the files, less of a short budget (tests)
        run.save_seconds = min(30.0, (deadline - time.monotonic()) / 20)
    n_valid = min(len(valid_sl), cfg.valid_slices) if cfg.valid_slices else len(valid_sl)
    run.valid_words = whole.words if whole is not None else int(valid_sl.lengths[:n_valid].sum())
    if cfg.warm_accumulator_steps and fresh_moments:
        # the accumulator of the steps behind these weights, which their file does not hold
        emb = getattr(model, "embedding", None)
        estimate_accumulator(run.step, emb.weight if isinstance(emb, torch.nn.Embedding) else None,
                             cfg.warm_accumulator_steps + start.prog.get("step", 0) * (not warm_start),
                             cfg.warm_accumulator_batches, cfg.seed + start.prog.get("step", 0))
    if warm_start:
        run.validate_warm_start()
    return run.train()


class _Run(BudgetedRun):
    """An SGD run from the moment its model and optimizer are ready: the epochs and their
    batches (each step: punct.engine.sgd.Stepper), validation, checkpoints and ``best.pt``, and
    the end of training. ``prog`` (the progress record of checkpoint.pt) is the state a resume
    restores."""

    def __init__(self, cfg: TrainConfig, exp_dir: Path, model: torch.nn.Module, opt: torch.optim.Optimizer, inputs,
                 train_sl: Slices, validate: Callable[[], tuple[float, float]], prog: dict[str, Any],
                 payload: dict[str, Any], on_step: Callable[[int, int], None] | None) -> None:
        self.cfg, self.exp_dir, self.model, self.opt, self.inputs = cfg, exp_dir, model, opt, inputs
        self.train_sl, self.validate, self.prog, self._payload, self.on_step = train_sl, validate, prog, payload, on_step
        self.rank, self.world = dist_info()
        self.main = self.rank == 0
        self.ck_path = exp_dir / "checkpoint.pt"
        self.step = Stepper(cfg, model, opt, inputs, train_sl)  # the optimizer step (punct.engine.sgd)
        self.last_save = 0.0  # when the checkpoint was last saved (time.monotonic)
        self.state: Path | None = None  # the state file carried in git (punct.engine.carry)
        self.deadline: float | None = None  # time.monotonic() by which this call must have ended
        self.command: str | None = None
        self.valid_seconds: float | None = None  # how long the last validation took
        self.valid_words = 0  # words of a validation (its time before the first one is measured)
        self.trained_now = False  # whether this call has trained a step
        self.save_seconds = 30.0  # what the time budget keeps for writing the files (set by train)

    def note_validation(self, ppl: float, f1: float, partial: bool) -> None:
        """A point of the validation curve against the words seen (the state file's record)."""
        self.prog.setdefault("valid_curve", []).append(
            {"words_seen": self.prog.get("words_seen", 0), "step": self.prog.get("step", 0),
             "epoch": self.prog["epoch"] + (0 if partial else 1), "batch": self.prog["batch"],
             "valid_ppl": round(ppl, 4), "valid_f1": round(f1, 2), "partial_epoch": partial,
             "by_mark": {m: c["f1"] for m, c in LAST_BY_MARK.items()}})

    def validate_warm_start(self) -> None:
        """A new warm start: the starting weights are the best model until an epoch beats them on
        this validation set (select_by last: until the first epoch ends)."""
        ppl, f1 = self.validate()
        self.model.train()
        self.prog.update(best_ppl=ppl, best_f1=f1)
        log.info("warm start: valid ppl %.4f, valid F1 %.1f before training on", ppl, f1)
        self.save_best(self.prog["epoch"], ppl, f1)
        if self.main:
            write_log(self.exp_dir, self.prog["history"])
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
        out_of_time = False
        # a stop signal ends training after the batch it arrives in, with a checkpoint (punct.engine.signals)
        with signals.deferred(announce=self.main) as got:
            while self.epochs_left():
                if prog["batch"] == 0:  # an epoch boundary: a half-done epoch is finished first
                    stop_reason = stop_requested(self.exp_dir, self.rank, self.world)
                    if stop_reason is not None:
                        log.info("stop requested by %s (%s); remove the file to train on", self.exp_dir / STOP_FILE,
                                 stop_reason)
                        break
                out_of_time = self.run_epoch(got)
                if out_of_time:
                    break
                self.end_epoch()
        if out_of_time:
            return self.end_of_budget(got)
        signum = got.agreed(self.world)
        if signum:  # it came after the last batch, while validating: the epoch's checkpoint is saved
            raise signals.Interrupted(f"training stopped by {signals.signal_name(signum)} after epoch {prog['epoch']}; "
                                      "rerun the same command to finish from this checkpoint", self.ck_path, signum,
                                      quiet=not self.main)
        return self.finish(stop_reason)

    def batches(self, epoch: int) -> list[np.ndarray]:
        """The batches of slice indices of ``epoch``, the same in every run with the seed."""
        return epoch_batches(self.cfg, self.cfg.seed, len(self.train_sl), epoch)

    def run_epoch(self, got) -> bool:
        """The batches of the current epoch from ``prog["batch"]`` on, with progress
        (_EpochProgress) and checkpoints every ``checkpoint_minutes``; a stop signal in ``got``
        saves the batch and raises Interrupted. Returns True when the time budget ends the
        epoch before its last batch."""
        cfg, prog = self.cfg, self.prog
        epoch = prog["epoch"]
        if cfg.lr_schedule in ("halving", "plateau"):
            for group in self.opt.param_groups:
                group["lr"] = cfg.lr * prog.get("lr_scale", 1.0)
        batches = self.batches(epoch)
        total_steps = cfg.max_epochs * len(batches)
        shown = _EpochProgress(self.main, epoch, len(batches), prog)
        for b in range(prog["batch"], len(batches)):
            if self.out_of_time(shown.step_seconds(b)):
                shown.close()
                return True
            n_words = self.step(epoch, b, batches[b], epoch * len(batches) + b, total_steps, prog)
            self.trained_now = True
            shown.count(b, n_words)
            if self.on_step is not None:
                self.on_step(epoch, b + 1)
            signum = got.agreed(self.world)
            if signum:  # a stop signal: this batch is kept (the module docstring of punct.engine.signals)
                shown.close()
                self.stop_by_signal(signum, b + 1, len(batches))
            if time.monotonic() - self.last_save >= self.cfg.checkpoint_minutes * 60.0 and b + 1 < len(batches):
                self.save_checkpoint()
                self.last_save = time.monotonic()
        shown.close()
        return False

    def stop_by_signal(self, signum: int, batch: int, n_batches: int) -> None:
        """A stop signal after ``batch`` of the epoch: save the checkpoint and the state file,
        then raise Interrupted (a rerun resumes at the next batch)."""
        self.save_checkpoint()
        self.save_state()
        name, epoch = signals.signal_name(signum), self.prog["epoch"] + 1
        log.info("%s: stopped at epoch %d, batch %d of %d; checkpoint saved", name, epoch, batch, n_batches)
        raise signals.Interrupted(f"training stopped by {name} at epoch {epoch}, batch {batch} of {n_batches}; "
                                  "rerun the same command to resume from this checkpoint", self.ck_path, signum,
                                  quiet=not self.main)

    def end_epoch(self) -> None:
        """Validate the epoch just trained, keep it as best.pt (and a snapshot) if it is, apply
        the schedule's end-of-epoch step, log the epoch and save the checkpoint."""
        cfg, prog = self.cfg, self.prog
        epoch = prog["epoch"]
        ppl, f1 = self.timed_validate()
        self.note_validation(ppl, f1, partial=False)
        improved = improves(cfg, prog, ppl, f1)
        if cfg.average_best:  # this epoch's weights, before a schedule goes back to the best ones
            keep_snapshot(cfg, prog, self.exp_dir, dict(self.payload(), epoch=epoch + 1, valid_ppl=ppl, valid_f1=f1),
                          self.main)
        if cfg.lr_schedule == "halving":
            halving_step(cfg, prog, ppl, improved, self.model, self.exp_dir / "best.pt")
        elif cfg.lr_schedule == "plateau" and not improved:
            plateau_step(cfg, prog, self.model, self.exp_dir / "best.pt", self.world)
        prog["history"] = prog["history"] + [_epoch_row(cfg, prog, ppl, f1, improved)]
        if improved:
            prog["best_ppl"], prog["best_f1"], prog["best_epoch"], prog["bad_epochs"] = ppl, f1, epoch + 1, 0
            self.save_best(epoch + 1, ppl, f1)
        else:
            prog["bad_epochs"] += 1
        prog.update(epoch=epoch + 1, batch=0, loss_sum=0.0, loss_words=0, words=0, seconds=0.0)
        self.save_checkpoint()
        self.save_state()
        self.last_save = time.monotonic()
        if self.main:
            write_log(self.exp_dir, prog["history"])
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
        why = _why_stopped(cfg, prog, stop_reason)
        log.info("training stopped (%s) after %d epochs; best (by %s) at epoch %d: valid ppl %.4f, F1 %.1f -> %s",
                 why, prog["epoch"], cfg.select_by, prog["best_epoch"], prog["best_ppl"],
                 prog.get("best_f1", math.nan), self.exp_dir / "best.pt")
        if self.main:
            write_log(self.exp_dir, prog["history"])  # also when a finished state file's run ends at once
            write_done(self.exp_dir, why, prog, stop_reason)
        if self.trained_now or self.state is None or not self.state.is_file():
            self.save_state()  # a finished schedule resumed does not rewrite the file it carries
        if self.world > 1:
            import torch.distributed as dist

            dist.barrier()
        return prog


def _epoch_row(cfg: TrainConfig, prog: dict[str, Any], ppl: float, f1: float, improved: bool) -> dict[str, Any]:
    """The train log's row of the epoch just validated, logged as a line."""
    row = {"epoch": prog["epoch"] + 1, "train_loss": prog["loss_sum"] / max(1, prog["loss_words"]), "valid_ppl": ppl,
           "valid_f1": f1, "seconds": round(prog["seconds"], 1),
           "words_per_s": round(prog["words"] / max(1e-9, prog["seconds"]))}
    for m in MARK_LABELS:  # the validation's per-mark F1 (punct.engine.validation), None where it gave none
        row[f"f1_{m}"] = (LAST_BY_MARK.get(m) or {}).get("f1")
    mark = " (best)" if improved and cfg.select_by != "last" else ""  # beside the score that selects
    ppl_mark, f1_mark = (mark, "") if cfg.select_by == "ppl" else ("", mark)
    by_mark = ", ".join(f"{m} {row[f'f1_{m}']:.1f}" for m in MARK_LABELS if row[f"f1_{m}"] is not None)
    log.info("epoch %d: train loss %.4f, valid ppl %.4f%s, valid F1 %.1f%s%s, %.0f s, %.0f words/s", row["epoch"],
             row["train_loss"], ppl, ppl_mark, f1, f1_mark, f" ({by_mark})" if by_mark else "", row["seconds"],
             row["words_per_s"])
    return row


def _why_stopped(cfg: TrainConfig, prog: dict[str, Any], stop_reason: str | None) -> str:
    """Why training ended (train_done.json's ``why``)."""
    if stop_reason is not None:
        return "by hand"
    if prog.get("halved_out"):
        return "halving"
    return "patience" if prog["bad_epochs"] >= cfg.patience else "max_epochs"


class _EpochProgress:
    """An epoch's bookkeeping after each step: the words and seconds of ``prog`` (what the
    log's words/s and the state file's training time come from), and what the user sees: a
    tqdm bar on a terminal, else a log line every PROGRESS_LOG_SECONDS (on the main rank)."""

    def __init__(self, main: bool, epoch: int, n_batches: int, prog: dict[str, Any]) -> None:
        self.main, self.epoch, self.n_batches, self.prog = main, epoch, n_batches, prog
        self.first_batch = prog["batch"]
        self.seconds_before = prog["seconds"]
        self.t_epoch = self.t_last = self.last_log = time.monotonic()
        self.bar = _progress(n_batches, prog["batch"], f"epoch {epoch + 1}") if main else None

    def step_seconds(self, b: int) -> float:
        """The mean time of a step so far in this call (0 before the first)."""
        return (time.monotonic() - self.t_epoch) / max(1, b - self.first_batch)

    def count(self, b: int, n_words: int) -> None:
        """Batch ``b`` of the epoch was trained on ``n_words`` words."""
        prog = self.prog
        prog["words"] += n_words
        prog["words_seen"] = prog.get("words_seen", 0) + n_words
        prog["step"] = self.epoch * self.n_batches + b + 1
        prog["batch"] = b + 1
        now = time.monotonic()
        prog["seconds_total"] = prog.get("seconds_total", 0.0) + (now - self.t_last)
        self.t_last = now
        prog["seconds"] = self.seconds_before + (now - self.t_epoch)
        loss = prog["loss_sum"] / max(1, prog["loss_words"])
        speed = prog["words"] / max(1e-9, prog["seconds"])
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.4f}", wps=f"{speed:.0f}")
        elif self.main and now - self.last_log >= PROGRESS_LOG_SECONDS:
            self.last_log = now
            left = (now - self.t_epoch) / (b + 1 - self.first_batch) * (self.n_batches - b - 1)
            log.info("epoch %d batch %d/%d: train loss %.4f, %.0f words/s, the epoch's batches end in %.0f min",
                     self.epoch + 1, b + 1, self.n_batches, loss, speed, left / 60)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _fit(model, cfg: TrainConfig, inputs, train_set, validate: Callable[[], tuple[float, float]], exp_dir: Path,
         prog: dict[str, Any], resolved: dict[str, Any], model_args: dict[str, Any], extra: dict[str, Any]
         ) -> dict[str, Any]:
    """Estimate a counting model (``trainer = "fit"``) in one pass, validated by ``validate``
    (``validator``); one log row."""
    if prog["epoch"] >= 1:
        log.info("%s is already estimated", exp_dir / "best.pt")
        return prog
    from punct.text.labels import label_id

    t0 = time.monotonic()
    streams = []
    n_words = 0
    for u in train_set.utterances:
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
    write_log(exp_dir, prog["history"])
    write_done(exp_dir, "estimated", prog)
    return prog


def _progress(total: int, initial: int, desc: str):
    """A tqdm bar on a terminal; None otherwise (then progress is logged every PROGRESS_LOG_SECONDS)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="batch", dynamic_ncols=True)
