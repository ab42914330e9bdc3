"""The files of a training's experiment directory and what a resume checks: ``train_log.tsv``,
``train_done.json``, ``config.yaml`` and ``cmd``, the stop request (``stop``), the lock that
keeps a second training out, the progress record kept in ``checkpoint.pt``, and the config
changes a resume accepts."""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import torch

from punct.config import drop_retired, dump_yaml, to_dict
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.errors import PunctError
from punct.fsutil import atomic_write, exclusive
from punct.models import resolved_model_args

#: the stop-request file in an experiment directory (request_stop)
STOP_FILE = "stop"

#: config keys that may change when a run is resumed (they do not change what is learnt;
#: precision changes only the rounding of the forward pass)
RESUMABLE_CHANGES = {"max_epochs", "patience", "threads", "checkpoint_minutes", "valid_batch_size", "stage1_cache_mb",
                     "decode_window", "precision", "average_best"}


#: parameters read only by one learning-rate schedule: under another schedule they change
#: nothing, so a resume does not compare them
SCHEDULE_ONLY = {"lr_decay": "plateau"}

#: the columns of a train log; a log of before the per-mark F1 columns has the first six and still reads
BASE_LOG_COLUMNS = ("epoch", "train_loss", "valid_ppl", "valid_f1", "seconds", "words_per_s")
#: the validation F1 of each mark (``-`` where the validation gave none, or in a resumed run's older rows):
#: a rare mark the overall F1 hardly weighs (a question is 1 word in 350) shows in its own column
MARK_LOG_COLUMNS = ("f1_COMMA", "f1_PERIOD", "f1_QUESTION")
LOG_COLUMNS = BASE_LOG_COLUMNS + MARK_LOG_COLUMNS


def check_resume(saved: dict[str, Any], cfg: TrainConfig, model_args: dict[str, Any], path: Path) -> None:
    """A resume of the run whose checkpoint ``path`` saved the config ``saved`` under ``cfg``:
    any difference that changes what is learnt is an error naming the key."""
    now = dict(to_dict(cfg), model_args=model_args)
    # a key the checkpoint lacks takes its default (each default reproduces the engine
    # that wrote such checkpoints); a retired option must hold the value every run has now
    saved = dict(to_dict(TrainConfig()), **drop_retired(TrainConfig, saved, path))
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


def write_log(exp_dir: Path, history: list[dict[str, Any]]) -> None:
    with atomic_write(exp_dir / "train_log.tsv") as f:
        f.write("\t".join(LOG_COLUMNS) + "\n")
        for row in history:
            f.write("\t".join(_fmt(row.get(c)) if c in MARK_LOG_COLUMNS else _fmt(row[c]) for c in LOG_COLUMNS) + "\n")


def read_train_log(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``train_log.tsv`` (as ``write_log`` writes them), numbers parsed."""
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as f:
        header = tuple(f.readline().rstrip("\n").split("\t"))
        if header not in (LOG_COLUMNS, BASE_LOG_COLUMNS):
            raise PunctError(f"expected the columns {' '.join(LOG_COLUMNS)}", path, 1)
        for n, line in enumerate(f, 2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != len(header):
                raise PunctError(f"expected {len(header)} tab-separated fields, found {len(fields)}", path, n)
            try:
                row = {c: None if c in MARK_LOG_COLUMNS and v == "-" else float(v) for c, v in zip(header, fields)}
            except ValueError:
                raise PunctError(f"a field is not a number: {line.strip()!r}", path, n) from None
            row["epoch"], row["words_per_s"] = int(row["epoch"]), round(row["words_per_s"])
            rows.append(row)
    return rows


def write_done(exp_dir: Path, why: str, prog: dict[str, Any], reason: str | None = None) -> None:
    """``train_done.json``: training has ended (why, epochs, best epoch); RESULTS.md tells
    a finished run from one still going by it."""
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
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


#: the lock file that keeps a second training out of an experiment directory
LOCK_FILE = ".train.lock"


@contextlib.contextmanager
def one_training(exp_dir: Path, main: bool):
    """One training at a time in ``exp_dir``: a rerun started while the first still runs
    (a run.sh killed alone leaves its training going) would interleave their checkpoints.
    Rank 0 holds the lock for its data-parallel job."""
    if not main:
        yield
        return
    exp_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(exp_dir / LOCK_FILE, "a training"):
        yield


def write_run_files(exp_dir: Path, resolved: dict[str, Any], command: str | None, resumed: bool) -> None:
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


def new_progress() -> dict[str, Any]:
    """The progress record of a run before its first epoch (kept in checkpoint.pt)."""
    return {"epoch": 0, "batch": 0, "loss_sum": 0.0, "loss_words": 0, "words": 0, "seconds": 0.0,
            "best_ppl": float("inf"), "best_epoch": 0, "bad_epochs": 0, "history": []}


def load_warm_start(model: str, path: str) -> dict[str, Any]:
    """The checkpoint ``path`` that a run of ``model`` trains on from (init_from of a one-stage model)."""
    p = Path(path)
    if not p.is_file():
        raise PunctError("init_from: no such checkpoint", p)
    ck0 = ckpt.load(p)
    stage1 = (ck0.get("model_args") or {}).get("stage1") or {}
    if ck0.get("model") != model and stage1.get("model") == model:
        ck0 = stage_one_of(ck0)  # a shipped two-stage model (models/default.pt): its text stage trains on
    if ck0.get("model") != model:
        raise PunctError(f"init_from is a {ck0.get('model')} model; a {model} run can only train on from a "
                         f"{model} model", p)
    return ck0


def stage_one_of(ck: dict[str, Any]) -> dict[str, Any]:
    """The stage-one checkpoint inside two-stage checkpoint ``ck`` (punct.models.twostage): its
    weights (as float32: an exported file may hold float16), model, vocabulary, config, tuned
    bias and case spellings and lexicon, as the stage-one run's best.pt held them."""
    spec = ck["model_args"]["stage1"]
    sd = {k[len("stage1."):]: (v.float() if v.is_floating_point() else v)
          for k, v in ck["state_dict"].items() if k.startswith("stage1.")}
    out = {"model": spec["model"], "model_args": dict(spec["model_args"]), "state_dict": sd,
           "vocab": ck.get("vocab") or [], "inputs": {"kind": "words"}, "labels": ck.get("labels"),
           "train_config": ck.get("stage1_train_config") or {}, "epoch": spec.get("epoch"),
           "mixed_spellings": ck.get("mixed_spellings") or {}, "case_lexicon": ck.get("case_lexicon") or {}}
    if ck.get("stage1_decision_bias"):
        out["decision_bias"] = ck["stage1_decision_bias"]
    return out


def warm_progress(ck0: dict[str, Any], path: Path) -> dict[str, Any]:
    """A warm start's progress: it goes on from the epochs of the run that made ``ck0``
    (its train_log.tsv rows up to that model's epoch, when the file is beside it), so
    epoch numbers, max_epochs and the training time count the whole way to the model."""
    epoch = int(ck0.get("epoch") or 0)
    tsv = path.parent / "train_log.tsv"
    history = [row for row in read_train_log(tsv) if row["epoch"] <= epoch] if tsv.is_file() else []
    return dict(new_progress(), epoch=epoch, best_epoch=epoch, history=history,
                warm_start={"from": str(path), "epoch": epoch})
