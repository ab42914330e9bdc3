"""A training run carried across machines in one small file (``--state``, kept in git).

A run whose model saves only its trained part (a tagger with ``adapter: lora``) can keep
that part and its resume record in a file of a few MB, ``models/accurate/tagger.pt``: the
machine and its ``exp/`` may be gone at the next session, the file is in the repository.
The file is a punct checkpoint (punct.engine.checkpoint; a model ``punct restore`` reads
as it is) with the run's ``progress`` (schedule position, words seen, validation history),
its RNG state and the hash of its config; the optimizer's moments too when the whole file
stays under ``STATE_MAX_BYTES``. A file that would not fit keeps, in this order of
preference, compact moments (``compact_optimizer``: the large matrices' second moments as
row means, the rest as bfloat16), then float16 weights; failing both, the moments are
dropped and the resumed run re-warms its rate over ``rewarm_steps`` steps (the schedule
itself goes on where it was).

The data order is a function of the seed and the epoch (punct.engine.sgd.epoch_batches):
the record's epoch and batch say which slices come next, so a resume neither repeats nor
skips any. ``STATE_JSON`` beside the file is the same record in readable form.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path
from typing import Any

import torch

from punct.config import to_dict
from punct.engine import checkpoint as ckpt
from punct.errors import PunctError
from punct.fsutil import atomic_write

log = logging.getLogger(__name__)

#: the most a state file may weigh: each commit of it adds at most this much to the history
STATE_MAX_BYTES = 8_000_000
#: the readable record written beside a state file FILE: FILE with this suffix
STATE_JSON = ".json"
#: config keys that do not change what is learnt (a resume on another machine may differ)
_NOT_HASHED = ("threads", "checkpoint_minutes", "valid_batch_size", "precision")
#: keys added to the config after state files were written: hashed only when set away from
#: this default, so that those files keep their hash and resume
_HASHED_WHEN_SET = {"distill_mark_weights": False, "warm_accumulator_steps": 0, "warm_accumulator_batches": 32}


def config_hash(train_config: dict[str, Any]) -> str:
    """A short digest of the resolved config that decides what a run learns."""
    keep = {k: v for k, v in train_config.items()
            if k not in _NOT_HASHED and not (k in _HASHED_WHEN_SET and v == _HASHED_WHEN_SET[k])}
    blob = json.dumps(keep, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def readable_record(ck: dict[str, Any]) -> dict[str, Any]:
    """What a person reads of a state file: where its run stands and how it got there."""
    prog = ck["progress"]
    return {"config_hash": ck.get("config_hash"), "command": ck.get("resume_command"),
            "epoch": prog["epoch"], "batch": prog["batch"], "step": prog.get("step", 0),
            "words_seen": prog.get("words_seen", 0), "train_seconds": round(prog.get("seconds_total", 0.0), 1),
            "seed": (ck.get("train_config") or {}).get("seed"),
            "data_order": "epoch E: the first epoch_slices slices of numpy default_rng([seed, E]).permutation, "
                          "in batches of batch_size; 'batch' is the next one",
            "optimizer_moments": "full" if "optimizer" in ck else "compact" if "optimizer_compact" in ck else False,
            "weights": _weights_dtype(ck["state_dict"]), "trained_parameters": _numel(ck["state_dict"]),
            "validation": prog.get("valid_curve", []), "history": prog.get("history", []),
            **{k: ck[k] for k in SHIPPED_KEYS if k in ck}}


def _numel(sd: dict[str, Any]) -> int:
    return sum(v.numel() for v in sd.values() if isinstance(v, torch.Tensor))


def _weights_dtype(sd: dict[str, Any]) -> str:
    kinds = {str(v.dtype).replace("torch.", "") for v in sd.values() if isinstance(v, torch.Tensor) and v.is_floating_point()}
    return "/".join(sorted(kinds)) or "none"


#: second moments of matrices with at least this many rows (embeddings, output layers over a
#: vocabulary) are kept as their row means in a compact state: row-wise Adagrad's approximation
COMPACT_MIN_ROWS = 10_000
_SECOND_MOMENTS = ("sum", "exp_avg_sq")


def compact_optimizer(sd: dict[str, Any]) -> dict[str, Any]:
    """Optimizer state dict ``sd`` made small: each large matrix's second moment as its row
    means (float32), every other floating moment as bfloat16; ``expand_optimizer`` undoes it
    to a state dict of the full shapes."""
    state = {}
    for idx, st in sd["state"].items():
        out = {}
        for k, v in st.items():
            if not isinstance(v, torch.Tensor) or not v.is_floating_point() or v.dim() == 0:
                out[k] = v
            elif k in _SECOND_MOMENTS and v.dim() == 2 and v.shape[0] >= COMPACT_MIN_ROWS:
                out[k] = {"row_means": v.float().mean(dim=1), "columns": int(v.shape[1])}
            else:
                out[k] = v.to(torch.bfloat16)
        state[idx] = out
    return {"state": state, "param_groups": sd["param_groups"]}


def expand_optimizer(sd: dict[str, Any]) -> dict[str, Any]:
    """The optimizer state dict that ``compact_optimizer`` made ``sd`` from, at full shape in
    float32 (each matrix's rows share their mean second moment)."""
    state = {}
    for idx, st in sd["state"].items():
        out = {}
        for k, v in st.items():
            if isinstance(v, dict) and "row_means" in v:
                out[k] = v["row_means"].float()[:, None].expand(-1, v["columns"]).contiguous()
            elif isinstance(v, torch.Tensor) and v.dtype == torch.bfloat16:
                out[k] = v.float()
            else:
                out[k] = v
        state[idx] = out
    return {"state": state, "param_groups": sd["param_groups"]}


def _half_weights(payload: dict[str, Any]) -> dict[str, Any]:
    sd = {k: (v.half() if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v)
          for k, v in payload["state_dict"].items()}
    return dict(payload, state_dict=sd)


#: keys of a state file that the training does not write but a tool may (punct.bin.set_bias):
#: a resume keeps them
SHIPPED_KEYS = ("decision_bias", "decision_bias_from")


def write_state(path: str | Path, payload: dict[str, Any], optimizer: dict[str, Any] | None) -> bool:
    """Write the state file ``path`` and its readable record, atomically: the first of full
    moments, compact moments (float32, then float16 weights) and no moments (float32, then
    float16 weights) that stays under STATE_MAX_BYTES. Returns whether moments went in."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = dict(payload, config_hash=config_hash(payload["train_config"]))
    if path.is_file():  # what a tool wrote into the file since (punct set-bias) stays in it
        kept_keys = {k: v for k, v in ckpt.load(path).items() if k in SHIPPED_KEYS}
        payload = dict(kept_keys, **payload)
    forms = []
    if optimizer is not None:
        compact = {"optimizer_compact": compact_optimizer(optimizer)}
        forms += [(dict(payload, optimizer=optimizer), "full"), (dict(payload, **compact), "compact"),
                  (dict(_half_weights(payload), **compact), "compact, float16 weights")]
    forms += [(payload, ""), (_half_weights(payload), "float16 weights")]
    for chosen, how in forms:
        blob = _serialized(chosen)
        if len(blob) <= STATE_MAX_BYTES:
            break
    else:
        raise PunctError(f"the trained part is {len(blob) / 1e6:.1f} MB, over the {STATE_MAX_BYTES / 1e6:.0f} MB a "
                         "state file may hold (a model with adapter: lora saves only what it trains)", path)
    with atomic_write(path, "wb", encoding=None) as f:  # the bytes measured, as punct.engine.checkpoint.save writes them
        f.write(blob)
    write_record(path, chosen)
    kept = "optimizer" in chosen or "optimizer_compact" in chosen
    log.info("state %s: %.1f MB, epoch %d batch %d, %d words seen%s", path, path.stat().st_size / 1e6,
             payload["progress"]["epoch"] + 1, payload["progress"]["batch"], payload["progress"].get("words_seen", 0),
             f" (optimizer moments: {how})" if kept else
             f" (optimizer moments left out{', ' + how if how else ''}: a resume re-warms)")
    return kept


def write_record(path: str | Path, ck: dict[str, Any]) -> None:
    """Write the readable record beside the state file ``path`` from its contents ``ck``: with
    every state the training writes, and after a tool (punct set-bias) changed a SHIPPED_KEYS entry."""
    path = Path(path)
    with atomic_write(path.with_suffix(path.suffix + STATE_JSON)) as f:
        json.dump(readable_record(ck), f, indent=1, default=_json_default)
        f.write("\n")


def _json_default(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return str(x)


def _serialized(payload: dict[str, Any]) -> bytes:
    """The bytes ``punct.engine.checkpoint.save`` would write for ``payload``."""
    import io

    buf = io.BytesIO()
    torch.save(dict(payload, format=ckpt.FORMAT), buf)
    return buf.getvalue()


def read_state(path: str | Path, cfg, model_args: dict[str, Any], ck: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """The state file ``path`` (``ck``, when it is read already) as a checkpoint to resume
    (punct.engine.start), after checking that it is one and that this config is the one it
    was trained with."""
    path = Path(path)
    ck = ckpt.load(path) if ck is None else ck
    if "progress" not in ck:
        raise PunctError("not a training state file (no progress record; a best.pt?)", path)
    now = config_hash(dict(to_dict(cfg), model_args=model_args))
    if ck.get("config_hash") != now:
        from punct.engine.expdir import check_resume

        check_resume(ck["train_config"], cfg, model_args, path)  # names the key when it can
        raise PunctError(f"cannot resume: the config's hash is {now}, the state's {ck.get('config_hash')} "
                         "(the config changed; start another state file)", path)
    return ck


def newer(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether progress record ``a`` is further along than ``b``."""
    return (a["epoch"], a["batch"]) > (b["epoch"], b["batch"])
