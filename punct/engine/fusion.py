"""The joint decision of a lexical and an acoustic model on data directories
(punct.models.joint holds the decision itself): posteriors of both models, the
decision per utterance, and the grid search of its parameters on a dev set.

``joint_decode(lexical, acoustic, data_dir, cfg, stage)`` -> utterances with labels;
``tune(lexical, acoustic, dev_dir, train_dir, cfg)`` -> (chosen config, grid rows).
"""
from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from punct.errors import PunctError
from punct.models.joint import JointConfig, expected_sentence_length, joint_labels
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

#: the stage-1 and stage-2 parameters the grid search tunes, in that order
STAGE1_KEYS = ("hard_weight", "hard_offset", "min_acoustic")
STAGE2_KEYS = ("length_lambda", "soft_threshold")


@dataclass
class Posteriors:
    """What the joint decision reads for one data directory."""

    utts: list[Utterance]
    lexical: list[np.ndarray]  # [n, len(LABELS)] per utterance
    acoustic: list[np.ndarray]  # [n, len(LABELS)] per utterance
    missing: list[np.ndarray] | None  # bool [n] per utterance: no acoustic evidence
    seconds: float = 0.0


def posteriors_of(lexical: str | Path, acoustic: str | Path, data_dir: str | Path) -> Posteriors:
    """Both models' posteriors for every word of ``data_dir`` (each decoded as punct.engine.decode does)."""
    from punct.engine.decode import posteriors

    t0 = time.monotonic()
    utts, lex, _ = posteriors(lexical, data_dir)
    _, ac, missing = posteriors(acoustic, data_dir, utts=utts)
    if missing is None:
        log.warning("%s reads no acoustic features: nothing is flagged missing", acoustic)
    return Posteriors(utts, lex, ac, missing, time.monotonic() - t0)


def decide(post: Posteriors, cfg: JointConfig, stage: int) -> list[Utterance]:
    """The utterances of ``post`` with the labels of the joint decision."""
    out = []
    for i, u in enumerate(post.utts):
        miss = None if post.missing is None else post.missing[i]
        labels = joint_labels(post.lexical[i], post.acoustic[i], miss, cfg, stage)
        words = [Word(text=w.text, label=lab, start=w.start, end=w.end) for w, lab in zip(u.words, labels)]
        out.append(Utterance(id=u.id, words=words, speaker=u.speaker))
    return out


def joint_decode(lexical: str | Path, acoustic: str | Path, data_dir: str | Path, cfg: JointConfig, stage: int,
                 stats: dict | None = None) -> list[Utterance]:
    """Punctuate ``data_dir`` by the joint decision (stage 1 or 2) of the two models."""
    if stage == 2 and cfg.expected_length <= 0:
        raise PunctError("stage 2 needs expected_length: tune the config first (punct.bin.joint_tune) or set it")
    post = posteriors_of(lexical, acoustic, data_dir)
    t0 = time.monotonic()
    hyp = decide(post, cfg, stage)
    n = sum(len(u) for u in hyp)
    dt = post.seconds + time.monotonic() - t0
    if stats is not None:
        missing = 0 if post.missing is None else int(sum(m.sum() for m in post.missing))
        stats.update(words=n, seconds=round(dt, 3), words_per_s=round(n / max(dt, 1e-9), 1), model=f"joint{stage}",
                     lexical=str(lexical), acoustic=str(acoustic), stage=stage, words_without_acoustics=missing)
    return hyp


def _score(ref: list[str], hyp_utts: list[Utterance], objective: str) -> tuple[float, float, float]:
    """(objective value, overall F1, sentence-end F1) in percent (0 when undefined)."""
    from punct.scoring.score import score_labels

    r = score_labels(ref, [w.label for u in hyp_utts for w in u.words])
    overall = r.overall.f1 or 0.0
    sent = r.sentence.f1 or 0.0
    return (overall if objective == "overall" else sent), overall, sent


def _grid(cfg: JointConfig, keys: tuple[str, ...]) -> list[dict[str, float]]:
    values = [list(cfg.grid.get(k) or [getattr(cfg, k)]) for k in keys]
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def tune(lexical: str | Path, acoustic: str | Path, dev_dir: str | Path, train_dir: str | Path,
         cfg: JointConfig) -> tuple[JointConfig, list[dict[str, Any]]]:
    """Choose the decision's parameters on ``dev_dir`` (which must have labels): the
    expected sentence length from ``train_dir``'s labels, then the stage-1 parameters
    (``cfg.grid``, each key defaulting to its configured value) by the stage-1 result,
    then the stage-2 ones by the stage-2 result. Returns the chosen config and one
    row per tried setting (stage, parameters, objective, overall F1, sentence F1)."""
    from punct.data.datadir import load_utterances
    from punct.data.tables import read_table

    if not (Path(dev_dir) / "labels").is_file():
        raise PunctError("the tuning set needs reference labels", Path(dev_dir) / "labels")
    expected = expected_sentence_length([v for _, v, _ in read_table(Path(train_dir) / "labels")])
    log.info("expected sentence length on %s: %.2f words", train_dir, expected)
    cfg = replace(cfg, expected_length=round(expected, 3))
    ref = [lab for u in load_utterances(dev_dir) for lab in u.labels]
    post = posteriors_of(lexical, acoustic, dev_dir)
    if sum(len(u) for u in post.utts) != len(ref):
        raise PunctError("the tuning set's labels and text differ in length", dev_dir)
    rows: list[dict[str, Any]] = []

    def search(stage: int, keys: tuple[str, ...], base: JointConfig) -> JointConfig:
        best, best_val = base, -1.0
        for params in _grid(base, keys):
            c = replace(base, **params)
            val, overall, sent = _score(ref, decide(post, c, stage), c.objective)
            rows.append(dict(stage=stage, **{k: getattr(c, k) for k in STAGE1_KEYS + STAGE2_KEYS},
                             objective=round(val, 3), overall_f1=round(overall, 3), sentence_f1=round(sent, 3)))
            if val > best_val:
                best, best_val = c, val
        log.info("stage %d: best %s %.2f with %s", stage, base.objective, best_val,
                 " ".join(f"{k}={getattr(best, k)}" for k in keys))
        return best

    # the configured values themselves (conf/joint.yaml: Che et al.'s), for comparison
    for stage in (1, 2):
        val, overall, sent = _score(ref, decide(post, cfg, stage), cfg.objective)
        rows.append(dict(stage=stage, **{k: getattr(cfg, k) for k in STAGE1_KEYS + STAGE2_KEYS},
                         objective=round(val, 3), overall_f1=round(overall, 3), sentence_f1=round(sent, 3),
                         configured=True))
        log.info("stage %d with the configured values: %s %.2f", stage, cfg.objective, val)
    chosen = search(1, STAGE1_KEYS, cfg)
    chosen = search(2, STAGE2_KEYS, chosen)
    return chosen, rows
