"""The validation of every epoch and the choice of the best one: perplexity and mark F1 on
the validation slices, or F1 on the validation utterances decoded whole as a test set is
(``valid_decode: whole``); with several ranks each scores its share and the counts are
gathered."""
from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any, Callable

import torch
import torch.nn.functional as F

from punct.engine.batching import Slices, batch_inputs, epoch_order
from punct.engine.config import ValidationConfig, TrainConfig
from punct.engine.inputs import WordInputs
from punct.engine.loss import autocast, device_of, map_targets
from punct.engine.parallel import gather
from punct.text.labels import LABELS, label_id

log = logging.getLogger(__name__)


#: each mark's F1 (None: neither predicted nor in the reference) and counts in the latest
#: ``mark_f1``: the progress record keeps them beside the overall F1 (punct.engine.train)
LAST_BY_MARK: dict[str, dict[str, Any]] = {}


def mark_f1(ref: list[str], hyp: list[str]) -> float:
    """Overall F1 (percent) of the marks, as punct.scoring.score counts it; each mark's F1 and its
    predicted/reference counts go to the log (a rare mark that is never predicted shows)
    and to LAST_BY_MARK."""
    from punct.scoring.score import score_labels

    report = score_labels(ref, hyp)
    LAST_BY_MARK.clear()
    LAST_BY_MARK.update({m: {"f1": None if c.f1 is None else round(float(c.f1), 2), "predicted": c.tp + c.fp,
                             "reference": c.tp + c.fn} for m, c in report.per_class.items()})
    log.info("validation F1 by mark: %s", ", ".join(
        f"{m} {'-' if c.f1 is None else format(c.f1, '.1f')} ({c.tp + c.fp} predicted, {c.tp + c.fn} in the reference)"
        for m, c in report.per_class.items()))
    return float(report.overall.f1)


@torch.no_grad()
def evaluate(model: torch.nn.Module, slices: Slices, batch_size: int, inputs=None, limit: int = 0,
             rank: int = 0, world: int = 1, precision: str = "fp32") -> tuple[float, float]:
    """(perplexity, overall mark F1 in percent) of ``model`` on the loss words of ``slices``
    (the first ``limit`` slices if > 0); ``inputs`` is the featurizer (default: word ids).
    With ``world`` > 1 every rank scores its share of the batches and the counts are gathered.
    The model's ``punct_logit_offset`` (punct.text.labels.mark_offset), if any, is added to
    the logits, as decoding adds it."""
    inputs = inputs if inputs is not None else _IdsOnly()
    offset = getattr(model, "punct_logit_offset", None)
    dev = device_of(model)
    model.eval()
    nll, n = 0.0, 0
    ref: list[str] = []
    hyp: list[str] = []
    n_slices = min(len(slices), limit) if limit > 0 else len(slices)
    batches = epoch_order(n_slices, batch_size, 0, 0, shuffle=False)
    for idx in batches[rank::world]:
        kw, mask, y = batch_inputs(inputs, slices, idx, dev)
        y = map_targets(model, y)
        with autocast(precision, dev):
            logits = model(**kw)
        logits = logits.float()
        if offset is not None:
            logits = logits + torch.from_numpy(offset[: logits.shape[-1]]).to(logits.device)
        keep = y != -100
        nll += float(F.cross_entropy(logits[keep], y[keep], reduction="sum"))
        n += int(keep.sum())
        ref.extend(LABELS[i] for i in y[keep].tolist())
        hyp.extend(LABELS[i] for i in logits[keep].argmax(-1).tolist())
    model.train()
    if world > 1:
        parts = gather(world, (nll, n, ref, hyp))
        nll, n = sum(p[0] for p in parts), sum(p[1] for p in parts)
        ref = [x for p in parts for x in p[2]]
        hyp = [x for p in parts for x in p[3]]
    ppl = math.exp(nll / n) if n else float("nan")
    return ppl, mark_f1(ref, hyp)


class WholeValidation:
    """The validation utterances, whole, for ``valid_decode: whole``: their word ids, reference
    label ids and per-word features (None for a model without), decoded as a test set is."""

    def __init__(self, valid_dir: str | Path, inputs, window: int, batch_size: int) -> None:
        from punct.data.datadir import load_utterances
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
        from punct.engine.infer import run_streams

        mine = list(range(rank, len(self.streams), world))
        preds, _ = run_streams(model, [self.streams[i] for i in mine], self.window, self.batch_size, self.inputs,
                               None if self.feats is None else [self.feats[i] for i in mine])
        model.train()
        ref_ids = [x for i in mine for x in self.refs[i]]
        ref = [LABELS[i] for i in map_targets(model, torch.tensor(ref_ids, dtype=torch.long)).tolist()]
        hyp = [LABELS[i] for p in preds for i in p]
        if world > 1:
            parts = gather(world, (ref, hyp))
            ref = [x for p in parts for x in p[0]]
            hyp = [x for p in parts for x in p[1]]
        return mark_f1(ref, hyp)


def validator(cfg: TrainConfig, model: torch.nn.Module, valid_sl: Slices, inputs, whole: WholeValidation | None,
              rank: int = 0, world: int = 1) -> Callable[[], tuple[float, float]]:
    """The validation of every epoch: () -> (perplexity on the slices, overall mark F1 on the
    slices or, with ``whole``, on the utterances decoded whole); leaves the model in train mode."""
    from punct.text.labels import mark_offset

    # a model trained with mark_weights is validated as it will decode: with their odds taken out
    # (read by evaluate and by run_batch, which decodes the whole utterances)
    model.punct_logit_offset = mark_offset(cfg.mark_weights)

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


def improves(cfg: ValidationConfig, prog: dict[str, Any], ppl: float, f1: float) -> bool:
    """Whether an epoch of validation perplexity ``ppl`` and F1 ``f1`` is the best model so far
    by ``select_by`` (last: every epoch is; ties keep the earlier epoch)."""
    if cfg.select_by == "last":
        return True
    if cfg.select_by == "f1":
        return f1 > prog.get("best_f1", -math.inf)
    return ppl < prog["best_ppl"]
