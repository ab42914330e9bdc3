"""What one training step differentiates: the targets a model learns (``target_map``), the
forward pass at a precision, the summed loss of the words with a target, and word dropout.
The loss is the per-word cross-entropy or a model's own ``training_loss`` (a CRF's); under
distillation (punct.engine.soft_labels) each word's loss mixes in the teacher's posteriors;
a model with a case head adds its weighted case loss."""
from __future__ import annotations

import contextlib
import dataclasses
from typing import Callable

import numpy as np
import torch

from punct.engine.config import OptimizerConfig, TrainConfig
from punct.errors import PunctError
from punct.text.labels import label_id, mark_weight_vector
from punct.models import UNK_ID


def map_targets(model: torch.nn.Module, y: torch.Tensor) -> torch.Tensor:
    """``y`` with every label replaced by the model's ``target_map`` entry (-100 kept)."""
    tm = getattr(model, "target_map", None)
    if tm is None:
        return y
    table = torch.tensor([label_id(t) for t in tm], dtype=y.dtype, device=y.device)
    keep = y >= 0
    out = y.clone()
    out[keep] = table[y[keep]]
    return out


def autocast(precision: str, device: str = "cpu"):
    """The context of a forward pass at ``precision`` (TrainConfig.precision): bf16 runs the
    matrix products in bfloat16 (torch.autocast on ``device``'s type, the CPU or cuda), fp32
    changes nothing."""
    if precision == "bf16":
        return torch.autocast(device, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def device_of(model: torch.nn.Module) -> str:
    """The device type of ``model``'s weights (``cpu``, ``cuda``)."""
    p = next(model.parameters(), None)
    return "cpu" if p is None else p.device.type


@dataclasses.dataclass(frozen=True)
class Distill:
    """How a student learns from its teacher's posteriors (TrainConfig distill_*)."""

    weight: float
    temperature: float
    #: the label weights weigh the KL term too (TrainConfig.distill_mark_weights)
    weigh_kl: bool = False

    @classmethod
    def of(cls, cfg: TrainConfig) -> "Distill | None":
        return cls(cfg.distill_weight, cfg.distill_temperature, cfg.distill_mark_weights) if cfg.distill_from else None


def label_weights_of(cfg: OptimizerConfig) -> torch.Tensor | None:
    """The cross-entropy weight of each label id (TrainConfig.mark_weights; O and the marks it
    leaves out weigh 1), or None when every weight is 1."""
    w = mark_weight_vector(cfg.mark_weights)
    return None if w is None else torch.tensor(w)


def loss_sum_of(model: torch.nn.Module, inputs: dict[str, torch.Tensor], y: torch.Tensor,
                precision: str = "fp32", distill: Distill | None = None,
                label_weights: torch.Tensor | None = None) -> torch.Tensor:
    """Summed training loss of the words with a target (-100: none); the forward pass at
    ``precision``, the loss in fp32. A model with a case head (``case_head``) adds
    ``case_weight`` times its case loss where ``cases`` has targets. With ``distill`` and a
    teacher's posteriors in ``inputs["soft"]`` (punct.engine.batching), each loss mixes the
    reference's cross-entropy with the KL divergence from the teacher
    (punct.engine.soft_labels.distill_loss_sum); the case loss then covers every loss word
    when the teacher's posteriors have case columns. ``label_weights`` (label_weights_of)
    weighs each word's reference cross-entropy by its label."""
    from punct.engine.soft_labels import SoftLayout, distill_loss_sum

    inputs = dict(inputs)
    soft = inputs.pop("soft", None)
    if distill is None:
        soft = None
    # a case head that trains (case_weight); a second stage passes its fixed stage one's through
    case = bool(getattr(model, "case_head", False)) and hasattr(model, "case_weight")
    if label_weights is not None and hasattr(model, "training_loss"):
        raise PunctError(f"{type(model).__name__} trains with its own sequence loss: mark_weights cannot weigh it")
    dev = device_of(model)
    if soft is None and hasattr(model, "training_loss"):  # its own sequence loss (a CRF's)
        with autocast(precision, dev):
            return model.training_loss(y, **inputs).float()
    if soft is not None and hasattr(model, "training_loss"):
        raise PunctError(f"{type(model).__name__} trains with its own sequence loss: it cannot learn from soft targets")
    cases = inputs.get("cases")
    soft_case = soft is not None and soft.shape[-1] == SoftLayout(True).width
    with autocast(precision, dev):
        out = model(**inputs, return_case=True) if case and (cases is not None or soft_case) else model(**inputs)
    logits, case_logits = out if isinstance(out, tuple) else (out, None)
    n_marks = logits.shape[-1]
    w, t = (distill.weight, distill.temperature) if soft is not None else (0.0, 1.0)
    keep = y != -100
    marks_w = None if label_weights is None else label_weights[:n_marks].to(logits.device)
    loss = distill_loss_sum(logits.float(), y, None if soft is None else soft[..., :n_marks], keep, w, t, marks_w,
                            kl_weighted=soft is not None and distill.weigh_kl)
    if case_logits is not None:
        hard = cases if cases is not None else torch.full_like(y, -100)
        case_soft = soft[..., n_marks:] if soft_case else None
        if case_soft is not None or bool((hard >= 0).any()):
            loss = loss + model.case_weight * distill_loss_sum(case_logits.float(), hard, case_soft, keep,
                                                               w if case_soft is not None else 0.0, t)
    return loss


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
