"""How sure a score is: bootstrap confidence intervals and paired comparisons.

A test set such as IWSLT2011 ``test2011`` has 1,683 reference marks, so the
overall F1 of one system moves by a point or more when other talks of the same
kind are drawn; whether a model is "within 2 F1 points" of a published number,
or better than another model, is a question about that spread.

The slots are cut into blocks of consecutive words (``block_words``, default
100, about seven sentences of TED text) inside each scored stretch (an
utterance, or the whole stream when the two sides' utterances differ), so that
resampling keeps the dependence between neighbouring slots (a missed period
and the comma that replaced it). Each block keeps its own 4x4 confusion matrix
(O COMMA PERIOD QUESTION, rows reference, columns hypothesis); a bootstrap
replicate draws as many blocks as there are, with replacement, and adds their
matrices up. Every metric of punct.scoring.score follows from a confusion matrix, so
the replicates are scored exactly as the full set is.

- ``bootstrap_intervals``: percentile intervals (Efron and Tibshirani 1993) of
  per-class and overall F1 and of SER.
- ``paired_bootstrap``: two hypotheses over the same slots resampled with the
  same blocks (Koehn 2004's paired bootstrap resampling): the interval of the
  difference in overall F1 and a two-sided p-value, twice the share of
  replicates in which the difference does not have the sign of the observed
  one (capped at 1).

Never imports torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from punct.errors import PunctError
from punct.text.labels import LABELS, MARK_LABELS, O
from punct.scoring.score import SlotStream

#: slots per block
BLOCK_WORDS = 100
#: bootstrap replicates
RESAMPLES = 1000
#: coverage of the intervals
LEVEL = 0.95

_INDEX = {lab: i for i, lab in enumerate(LABELS)}
_MARKS = [_INDEX[m] for m in MARK_LABELS]
_O = _INDEX[O]


def block_confusions(streams: Sequence[SlotStream], block_words: int = BLOCK_WORDS) -> np.ndarray:
    """Confusion matrices ``[blocks, len(LABELS), len(LABELS)]`` of consecutive ``block_words`` slots.

    Each stream is cut on its own; its last block may be shorter. A stream
    without slots gives no block.
    """
    if block_words < 1:
        raise PunctError(f"block size must be at least 1 word, got {block_words}")
    mats = []
    for st in streams:
        if len(st.ref) != len(st.hyp):
            raise PunctError(f"{len(st.ref)} reference labels but {len(st.hyp)} hypothesis labels"
                             + (f" in {st.utt!r}" if st.utt else ""))
        try:
            r = np.fromiter((_INDEX[x] for x in st.ref), dtype=np.int64, count=len(st.ref))
            h = np.fromiter((_INDEX[x] for x in st.hyp), dtype=np.int64, count=len(st.hyp))
        except KeyError as e:
            raise PunctError(f"unknown label {e.args[0]!r} (expected one of {' '.join(LABELS)})") from None
        n = len(r)
        if n == 0:
            continue
        nb = -(-n // block_words)
        m = np.zeros((nb, len(LABELS), len(LABELS)), dtype=np.int64)
        np.add.at(m, (np.arange(n) // block_words, r, h), 1)
        mats.append(m)
    if not mats:
        return np.zeros((0, len(LABELS), len(LABELS)), dtype=np.int64)
    return np.concatenate(mats)


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(tp + fn > 0, 100.0 * 2 * tp / np.maximum(den, 1), np.nan)
    return f1


def metrics(conf: np.ndarray) -> dict[str, np.ndarray]:
    """Scores of confusion matrices ``[..., L, L]`` (percent; NaN where undefined, as None in punct.scoring.score).

    Keys: ``COMMA``, ``PERIOD``, ``QUESTION`` (each class's F1), ``overall`` (micro F1 over the
    marks), ``ser`` (slot error rate).
    """
    conf = np.asarray(conf)
    out: dict[str, np.ndarray] = {}
    tps = fps = fns = 0
    for lab, i in zip(MARK_LABELS, _MARKS):
        tp = conf[..., i, i]
        fp = conf[..., :, i].sum(-1) - tp
        fn = conf[..., i, :].sum(-1) - tp
        out[lab] = _f1(tp, fp, fn)
        tps, fps, fns = tps + tp, fps + fp, fns + fn
    out["overall"] = _f1(tps, fps, fns)
    ref_marks = conf[..., _MARKS, :].sum((-1, -2))
    wrong_marks = ref_marks - conf[..., _MARKS, _MARKS].sum(-1) + conf[..., _O, _MARKS].sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ser"] = np.where(ref_marks > 0, 100.0 * wrong_marks / np.maximum(ref_marks, 1), np.nan)
    return out


def _draws(blocks: int, resamples: int, seed: int) -> np.ndarray:
    """How often each block is drawn in each replicate: ``[resamples, blocks]``."""
    if resamples < 1:
        raise PunctError(f"the bootstrap needs at least 1 resample, got {resamples}")
    if blocks < 2:
        raise PunctError(f"the bootstrap needs at least 2 blocks of slots, got {blocks}: "
                         "the data is too short for the block size")
    rng = np.random.default_rng(seed)
    return rng.multinomial(blocks, np.full(blocks, 1.0 / blocks), size=resamples)


def _resampled(blocks: np.ndarray, draws: np.ndarray) -> np.ndarray:
    b, L, _ = blocks.shape
    return (draws @ blocks.reshape(b, L * L)).reshape(len(draws), L, L)


def _interval(values: np.ndarray, level: float) -> tuple[float | None, float | None]:
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return None, None
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(v, [a, 1.0 - a])
    return float(lo), float(hi)


@dataclass
class _Resampling:
    """How a bootstrap was drawn."""

    blocks: int
    block_words: int
    resamples: int
    level: float
    seed: int

    def _settings(self) -> dict:
        return {"level": self.level, "resamples": self.resamples, "blocks": self.blocks,
                "block_words": self.block_words, "seed": self.seed}


@dataclass
class Intervals(_Resampling):
    """Bootstrap percentile intervals of one hypothesis' scores."""

    point: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]

    def to_dict(self) -> dict:
        return {**self._settings(),
                "metrics": {k: {"value": self.point[k], "low": self.low[k], "high": self.high[k]} for k in self.point}}

    def format(self) -> str:
        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.1f}"

        parts = [f"{k if k != 'ser' else 'SER'} {f(self.point[k])} [{f(self.low[k])}, {f(self.high[k])}]"
                 for k in ("overall", *MARK_LABELS, "ser")]
        return (f"{100 * self.level:g}% intervals (bootstrap, {self.resamples} resamples of {self.blocks} blocks of "
                f"{self.block_words} words): " + "; ".join(parts) + "\n")


def _nan_to_none(x: np.ndarray | float) -> float | None:
    x = float(x)
    return None if np.isnan(x) else x


def bootstrap_intervals(streams: Sequence[SlotStream], block_words: int = BLOCK_WORDS, resamples: int = RESAMPLES,
                        level: float = LEVEL, seed: int = 1) -> Intervals:
    """Percentile intervals of F1 (per class, overall) and SER over block resamples."""
    if not 0.0 < level < 1.0:
        raise PunctError(f"the interval level must be between 0 and 1, got {level}")
    blocks = block_confusions(streams, block_words)
    point = {k: _nan_to_none(v) for k, v in metrics(blocks.sum(0)).items()}
    reps = metrics(_resampled(blocks, _draws(len(blocks), resamples, seed)))
    low, high = {}, {}
    for k, v in reps.items():
        low[k], high[k] = _interval(v, level)
    return Intervals(blocks=len(blocks), block_words=block_words, resamples=resamples, level=level, seed=seed,
                     point=point, low=low, high=high)


@dataclass
class Comparison(_Resampling):
    """Hypothesis A against hypothesis B on the same slots: overall F1 and SER, and their differences."""

    a: dict[str, float | None]
    b: dict[str, float | None]
    delta: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]
    p_value: dict[str, float | None]

    def to_dict(self) -> dict:
        return {**self._settings(),
                "metrics": {k: {"a": self.a[k], "b": self.b[k], "delta": self.delta[k], "low": self.low[k],
                                "high": self.high[k], "p_value": self.p_value[k]} for k in self.delta}}

    def format(self, name_a: str = "A", name_b: str = "B") -> str:
        def f(x: float | None, sign: bool = False) -> str:
            return "-" if x is None else (f"{x:+.2f}" if sign else f"{x:.2f}")

        lines = [f"paired bootstrap: {self.resamples} resamples of {self.blocks} blocks of {self.block_words} words, "
                 f"{100 * self.level:g}% intervals of A - B",
                 f"{'metric':<10}{'A':>8}{'B':>8}{'A - B':>8}  {'interval':<18}{'p':>7}"]
        for k in self.delta:
            iv = f"[{f(self.low[k], True)}, {f(self.high[k], True)}]"
            p = "-" if self.p_value[k] is None else f"{self.p_value[k]:.3f}"
            lines.append(f"{'SER' if k == 'ser' else k:<10}{f(self.a[k]):>8}{f(self.b[k]):>8}"
                         f"{f(self.delta[k], True):>8}  {iv:<18}{p:>7}")
        lines.append(f"A: {name_a}")
        lines.append(f"B: {name_b}")
        return "\n".join(lines) + "\n"


def _same_slots(a: Sequence[SlotStream], b: Sequence[SlotStream]) -> None:
    if len(a) != len(b):
        raise PunctError(f"the two hypotheses are scored in {len(a)} and {len(b)} stretches: "
                         "a paired comparison needs them over the same words")
    for sa, sb in zip(a, b):
        where = f"utterance {sa.utt!r}" if sa.utt is not None else "the word stream"
        if sa.utt != sb.utt or len(sa.hyp) != len(sb.hyp):
            raise PunctError(f"{where}: {len(sa.hyp)} words in hypothesis A but {len(sb.hyp)} in B: "
                             "a paired comparison needs them over the same words")
        if sa.ref != sb.ref:
            k = next(i for i, (x, y) in enumerate(zip(sa.ref, sb.ref)) if x != y)
            raise PunctError(f"{where}, word {k}: the reference marks carried onto A and B differ: "
                             "a paired comparison needs them over the same words")


def paired_bootstrap(streams_a: Sequence[SlotStream], streams_b: Sequence[SlotStream],
                     block_words: int = BLOCK_WORDS, resamples: int = RESAMPLES, level: float = LEVEL,
                     seed: int = 1) -> Comparison:
    """Compare two hypotheses over the same slots with the same block resamples."""
    if not 0.0 < level < 1.0:
        raise PunctError(f"the interval level must be between 0 and 1, got {level}")
    _same_slots(streams_a, streams_b)
    ba = block_confusions(streams_a, block_words)
    bb = block_confusions(streams_b, block_words)
    draws = _draws(len(ba), resamples, seed)
    ma, mb = metrics(ba.sum(0)), metrics(bb.sum(0))
    ra, rb = metrics(_resampled(ba, draws)), metrics(_resampled(bb, draws))
    out: dict[str, dict] = {k: {} for k in ("a", "b", "delta", "low", "high", "p_value")}
    for k in ("overall", *MARK_LABELS, "ser"):
        d = float(ma[k] - mb[k])
        out["a"][k], out["b"][k] = _nan_to_none(ma[k]), _nan_to_none(mb[k])
        out["delta"][k] = _nan_to_none(d)
        diffs = ra[k] - rb[k]
        diffs = diffs[~np.isnan(diffs)]
        out["low"][k], out["high"][k] = _interval(diffs, level) if len(diffs) else (None, None)
        if np.isnan(d) or len(diffs) == 0:
            out["p_value"][k] = None
        elif d == 0:
            out["p_value"][k] = 1.0
        else:
            against = np.mean(diffs <= 0) if d > 0 else np.mean(diffs >= 0)
            out["p_value"][k] = float(min(1.0, 2.0 * against))
    return Comparison(**out, blocks=len(ba), block_words=block_words, resamples=resamples, level=level, seed=seed)


def _slot_categories(report: dict) -> np.ndarray | None:
    """Slots of a score report (punct.scoring.score's JSON) by what they do to overall F1 and SER:
    ``[right mark, substituted mark, deleted mark, inserted mark, right O]``; None when the report
    lacks the counts. Reads the per-class and boundary counts and Err, which every report has
    (older reports have no confusion matrix)."""
    try:
        classes = report["classes"]
        tp = sum(classes[m]["tp"] for m in MARK_LABELS)
        fp = sum(classes[m]["fp"] for m in MARK_LABELS)
        fn = sum(classes[m]["fn"] for m in MARK_LABELS)
        s = report["boundary"]["tp"] - tp  # a mark for a mark: boundary right, class wrong
        d, i = fn - s, fp - s
        wrong = s + d + i
        slots = (report.get("counts") or {}).get("slots")
        if slots is None:
            err = report.get("err")
            slots = round(100.0 * wrong / err) if err else None
    except (KeyError, TypeError):
        return None
    if slots is None or min(tp, s, d, i) < 0 or slots < tp + wrong:
        return None
    return np.array([tp, s, d, i, slots - tp - wrong], dtype=np.int64)


def report_intervals(report: dict, resamples: int = 2 * RESAMPLES, level: float = LEVEL,
                     seed: int = 1) -> dict[str, tuple[float, float]] | None:
    """Intervals of overall F1 and SER from a score report's counts alone, resampling its slots
    one by one (a multinomial over the slot categories of ``_slot_categories``).

    Without the slots themselves, neighbouring slots cannot be kept together; on IWSLT2011
    test2011 the two agree to 0.1 point (T-BRNN-pre: overall F1 61.2, [58.9, 63.3] with
    100-word blocks, [59.0, 63.3] slot by slot). None when the report lacks the counts."""
    cats = _slot_categories(report)
    if cats is None or cats[:4].sum() == 0:
        return None
    rng = np.random.default_rng(seed)
    n = int(cats.sum())
    draws = rng.multinomial(n, cats / n, size=resamples)
    # each category in a cell of a confusion matrix that has its effect on overall F1 and SER
    # (the classes of the marks are not known from these counts; overall F1 and SER do not need them)
    comma, period = _INDEX[MARK_LABELS[0]], _INDEX[MARK_LABELS[1]]
    conf = np.zeros((resamples, len(LABELS), len(LABELS)), dtype=np.int64)
    for k, cell in enumerate([(comma, comma), (comma, period), (comma, _O), (_O, comma), (_O, _O)]):
        conf[:, cell[0], cell[1]] = draws[:, k]
    reps = metrics(conf)
    out = {}
    for k in ("overall", "ser"):
        lo, hi = _interval(reps[k], level)
        if lo is not None:
            out[k] = (lo, hi)
    return out or None
