"""The two-stage joint decision of Che, Luo, Yang and Meinel (Interspeech 2016): a
lexical and an acoustic model, trained apart, decide sentence boundaries together.

Inputs, per word t (the slot after it): P_l, the lexical model's sentence-end
posterior (P(PERIOD) + P(QUESTION)); P_a, the acoustic model's (1 - P(O) of
punct.models.acoustic); and whether the word lacks acoustic evidence.

Stage 1, hard boundaries (where both models agree enough):

    1 - P_l < hard_weight * P_a + hard_offset   and   P_a > min_acoustic

with Che et al.'s values hard_weight 0.25, hard_offset 0.7, min_acoustic 0.05.
A word without acoustic evidence falls back to the lexical decision: a hard
boundary when P_l > 0.5.

Stage 2, soft boundaries inside each segment between hard boundaries: the
lexical posterior is adjusted by the length the sentence would have, d words
since the last boundary, against the expected sentence length L (words per
sentence of the training data), with weight λ (Che et al.: 3):

    odds'(t) = odds(P_l(t)) * (d / L)^λ,   a soft boundary where P' > soft_threshold

scanning left to right (d restarts after each boundary). Che et al.'s equation 2
makes the lexical posterior depend on the segment length relative to the
expected one with λ = 3; its exact form was not at hand when this was written,
so this is our reading of it: a prior on sentence length multiplied into the
posterior odds (λ = 0 leaves P_l as it is; a sentence as long as the average
is left alone, a shorter one is held back, a longer one pushed to end).

Mark types come from the lexical model: a boundary gets the more probable of
PERIOD and QUESTION, every other word the more probable of O and COMMA (so a
sentence end the joint decision rejects becomes a comma or nothing).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from punct.text.labels import COMMA, LABEL_TO_ID, LABELS, O, PERIOD, QUESTION

_O, _C, _P, _Q = (LABEL_TO_ID[x] for x in (O, COMMA, PERIOD, QUESTION))


@dataclass
class JointConfig:
    """conf/joint.yaml: the decision's parameters and the grid the tuner searches."""

    #: stage 1: 1 - P_l < hard_weight * P_a + hard_offset (Che et al.: 0.25)
    hard_weight: float = 0.25
    #: (Che et al.: 0.7)
    hard_offset: float = 0.7
    #: stage 1 also needs P_a > min_acoustic (Che et al.: 0.05)
    min_acoustic: float = 0.05
    #: stage 2: weight of the length adjustment (Che et al.: 3)
    length_lambda: float = 3.0
    #: stage 2: expected sentence length in words (0: not yet estimated; the tuner
    #: estimates it on the training data)
    expected_length: float = 0.0
    #: stage 2: a soft boundary where the adjusted posterior exceeds this
    soft_threshold: float = 0.5
    #: what the tuner maximizes on the dev set: overall (F1 of all marks) or sentence (sentence-end F1)
    objective: str = "overall"
    #: the values the tuner tries (keys: the parameters above)
    grid: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.objective not in ("overall", "sentence"):
            raise ValueError(f"objective must be overall or sentence, got {self.objective!r}")
        if self.expected_length < 0 or self.length_lambda < 0:
            raise ValueError("expected_length and length_lambda must be >= 0")
        if not 0.0 <= self.soft_threshold <= 1.0:
            raise ValueError("soft_threshold must be in [0, 1]")
        tunable = {"hard_weight", "hard_offset", "min_acoustic", "length_lambda", "soft_threshold"}
        unknown = sorted(set(self.grid) - tunable)
        if unknown:
            raise ValueError(f"grid keys must be among {sorted(tunable)}, got {unknown}")


def sentence_posterior(probs: np.ndarray) -> np.ndarray:
    """P(PERIOD) + P(QUESTION) of posteriors [n, len(LABELS)]."""
    probs = np.asarray(probs, dtype=np.float64)
    return probs[:, _P] + probs[:, _Q]


def acoustic_posterior(probs: np.ndarray) -> np.ndarray:
    """1 - P(O): the boundary probability of an acoustic model's posteriors [n, len(LABELS)]."""
    return 1.0 - np.asarray(probs, dtype=np.float64)[:, _O]


def hard_boundaries(p_lex: np.ndarray, p_ac: np.ndarray, missing: np.ndarray | None, cfg: JointConfig,
                    lexical_end: np.ndarray | None = None) -> np.ndarray:
    """Stage 1: bool [n], the confirmed boundaries (see the module docstring). Where
    ``missing`` (no acoustic evidence) the lexical decision stands: ``lexical_end``
    (the lexical model's best label is a sentence end), by default P_l > 0.5."""
    p_lex = np.asarray(p_lex, dtype=np.float64)
    p_ac = np.asarray(p_ac, dtype=np.float64)
    hard = (1.0 - p_lex < cfg.hard_weight * p_ac + cfg.hard_offset) & (p_ac > cfg.min_acoustic)
    if missing is not None:
        lexical = p_lex > 0.5 if lexical_end is None else np.asarray(lexical_end, dtype=bool)
        hard = np.where(np.asarray(missing, dtype=bool), lexical, hard)
    return hard


def length_adjusted(p: float, d: int, expected: float, lam: float) -> float:
    """The lexical posterior ``p`` of a sentence of ``d`` words, adjusted by the length
    prior (d / expected)^lam on the odds (see the module docstring)."""
    if lam == 0 or expected <= 0:
        return p
    r = (d / expected) ** lam
    den = p * r + (1.0 - p)
    return p * r / den if den > 0 else 1.0


def soft_boundaries(p_lex: np.ndarray, hard: np.ndarray, cfg: JointConfig) -> np.ndarray:
    """Stage 2: bool [n], the boundaries found inside the segments between ``hard`` ones
    (the hard ones are not included)."""
    if cfg.expected_length <= 0:
        raise ValueError("stage 2 needs expected_length (words per sentence of the training data)")
    p_lex = np.asarray(p_lex, dtype=np.float64)
    soft = np.zeros(len(p_lex), dtype=bool)
    last = -1  # index of the last boundary word
    for t in range(len(p_lex)):
        if hard[t]:
            last = t
            continue
        if length_adjusted(float(p_lex[t]), t - last, cfg.expected_length, cfg.length_lambda) > cfg.soft_threshold:
            soft[t] = True
            last = t
    return soft


def joint_labels(lex_probs: np.ndarray, ac_probs: np.ndarray, missing: np.ndarray | None, cfg: JointConfig,
                 stage: int = 2) -> list[str]:
    """The labels of one stream: boundaries by the joint decision (stage 1: hard only;
    stage 2: hard + soft), mark types by the lexical posteriors [n, len(LABELS)]."""
    if stage not in (1, 2):
        raise ValueError(f"stage must be 1 or 2, got {stage}")
    lex = np.asarray(lex_probs, dtype=np.float64)
    if lex.ndim != 2 or lex.shape[1] != len(LABELS) or len(ac_probs) != len(lex):
        raise ValueError(f"posteriors of shapes {lex.shape} and {np.shape(ac_probs)} do not match")
    p_lex = sentence_posterior(lex)
    best = lex.argmax(1)
    hard = hard_boundaries(p_lex, acoustic_posterior(ac_probs), missing, cfg, lexical_end=(best == _P) | (best == _Q))
    bound = hard | soft_boundaries(p_lex, hard, cfg) if stage == 2 else hard
    ends = np.where(lex[:, _Q] > lex[:, _P], _Q, _P)
    inner = np.where(lex[:, _C] > lex[:, _O], _C, _O)
    return [LABELS[i] for i in np.where(bound, ends, inner)]


def expected_sentence_length(label_streams: Sequence[Sequence[str]]) -> float:
    """Words per sentence of labelled streams: all words / sentence ends (PERIOD, QUESTION)."""
    words = sum(len(s) for s in label_streams)
    ends = sum(1 for s in label_streams for x in s if x in (PERIOD, QUESTION))
    if not ends:
        raise ValueError("no sentence ends in the training labels")
    return words / ends
