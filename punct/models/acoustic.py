"""Acoustic sentence-boundary models of Che, Luo, Yang and Meinel, "Sentence boundary
detection based on parallel lexical and acoustic models" (Interspeech 2016).

Both decide whether a sentence ends after word t from how it was spoken, not
from the words: they are trained and validated on sentence boundaries
(``target_map``: COMMA counts as no boundary, QUESTION as PERIOD) and output
PERIOD or O. Their posterior P_a = 1 - P(O) is the acoustic input of the joint
decision (punct.models.joint), which takes the mark type from a lexical model.

``che_pause`` (the "Pause" model): the pause p after the word, in seconds, mapped
to a boundary probability with no trained parameter,

    P_a = (1 - e^(-4p)) / (1 + e^(-4p))          (= tanh(2p): 0.5 at p = 0.275 s)

It reads raw seconds (``normalize_features: false``), from the ``pause_after``
column of the ``pause`` features (punct.prosody.pause).

``che_ppe`` (the "PPE" network): pause, pitch and energy of an 8-word context,
the boundary after the 4th word: for each of the words t-3 .. t+4 its
``pause_after``, ``pitch_mean`` and ``energy_mean`` (24 values, z-normalized by
the featurizer), plus the missing-evidence flag of word t: 25 inputs, a
feed-forward network. Che et al. give the 8-word context and the 25 features;
which 25 is our choice (the three columns named above per word, plus the flag),
so the network is theirs in shape, not a copy. It needs ``prosody`` features
(pitch and energy from audio, punct.bin.prosody_feats): LJ Speech has them;
the Earnings corpora come without audio, so PPE is trained and scored on LJ
Speech only.

Missing acoustic evidence (``feat_missing``: the word or the pause after it is
untimed, or it is silent): P_a = 0 for that word, so the acoustic model alone
puts no boundary there and the joint decision falls back to the lexical model
(punct.models.joint). Context words without evidence enter PPE as zeros.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from punct.text.labels import LABEL_TO_ID, O, PERIOD
from punct.models import register

#: the logits of the marks a boundary model never predicts (far below any real score)
_NEVER = -30.0
#: P_a is kept inside [_EPS, 1 - _EPS] so its logits stay finite
_EPS = 1e-6
#: a boundary model is trained on sentence ends: label -> the label it is trained as
SENTENCE_TARGETS = (O, O, PERIOD, PERIOD)


def pause_probability(pause: torch.Tensor, scale: float = 4.0) -> torch.Tensor:
    """Che et al.'s pause model: (1 - e^(-scale p)) / (1 + e^(-scale p)) for pauses p >= 0 (s)."""
    e = torch.exp(-scale * pause.clamp(min=0.0))
    return (1.0 - e) / (1.0 + e)


def boundary_logits(p_boundary: torch.Tensor) -> torch.Tensor:
    """``[B,T]`` sentence-boundary probabilities -> logits ``[B,T,4]`` whose softmax gives
    P(PERIOD) = p, P(O) = 1 - p (COMMA and QUESTION never win)."""
    p = p_boundary.clamp(_EPS, 1.0 - _EPS)
    out = p.new_full((*p.shape, len(SENTENCE_TARGETS)), _NEVER)
    out[..., LABEL_TO_ID[O]] = torch.log1p(-p)
    out[..., LABEL_TO_ID[PERIOD]] = torch.log(p)
    return out


def boundary_logits_from_score(z: torch.Tensor, missing: torch.Tensor | None = None) -> torch.Tensor:
    """Like ``boundary_logits`` for p = sigmoid(z), computed stably (log-sigmoid); p = 0
    where ``missing``."""
    out = z.new_full((*z.shape, len(SENTENCE_TARGETS)), _NEVER)
    lp = torch.nn.functional.logsigmoid(z)
    lq = torch.nn.functional.logsigmoid(-z)
    if missing is not None:
        lp = lp.masked_fill(missing, float(torch.log(torch.tensor(_EPS))))
        lq = lq.masked_fill(missing, 0.0)
    out[..., LABEL_TO_ID[O]] = lq
    out[..., LABEL_TO_ID[PERIOD]] = lp
    return out


@register("che_pause")
class PauseModel(nn.Module):
    """Che et al.'s Pause model (see the module docstring); nothing to train."""

    input_kind = "words+feats"
    trainer = "fit"
    target_map = SENTENCE_TARGETS
    #: reads pauses in seconds: the featurizer must not normalize them
    raw_features = True

    @dataclass
    class Config:
        #: the feature column holding the pause after the word, in seconds
        pause_column: str = "pause_after"
        #: the 4 of (1 - e^(-4p)) / (1 + e^(-4p)) (Che et al. 2016)
        scale: float = 4.0
        #: the feature columns, in input order (set by the engine from the featurizer)
        feature_names: list = field(default_factory=list)

    def __init__(self, vocab_size: int, pause_column: str = "pause_after", scale: float = 4.0,
                 feature_names: list | tuple = ()):
        super().__init__()
        if pause_column not in feature_names:
            raise ValueError(f"che_pause reads the feature column {pause_column!r}; the features are {list(feature_names)}"
                             " (features: [pause], normalize_features: false)")
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.column = list(feature_names).index(pause_column)
        self.scale = scale

    def fit(self, streams) -> None:
        """Nothing to estimate: the mapping is fixed."""

    def boundary_probability(self, feats: torch.Tensor, feat_missing: torch.Tensor | None) -> torch.Tensor:
        pa = pause_probability(feats[..., self.column], self.scale)
        return pa if feat_missing is None else pa.masked_fill(feat_missing, 0.0)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                feat_missing: torch.Tensor | None = None) -> torch.Tensor:
        if feats is None:
            raise ValueError("che_pause needs feats [B,T,F]")
        return boundary_logits(self.boundary_probability(feats, feat_missing))


@register("che_ppe")
class PPEModel(nn.Module):
    """Che et al.'s PPE network over pause, pitch and energy (see the module docstring)."""

    input_kind = "words+feats"
    target_map = SENTENCE_TARGETS

    @dataclass
    class Config:
        #: the columns read from each context word
        columns: list = field(default_factory=lambda: ["pause_after", "pitch_mean", "energy_mean"])
        #: context words up to and including the boundary word (the boundary follows the 4th)
        words_before: int = 4
        #: context words after the boundary
        words_after: int = 4
        #: hidden layer sizes of the feed-forward network
        hidden: list = field(default_factory=lambda: [32])
        dropout: float = 0.1
        #: the feature columns, in input order (set by the engine from the featurizer)
        feature_names: list = field(default_factory=list)

    def __init__(self, vocab_size: int, columns: list | tuple = ("pause_after", "pitch_mean", "energy_mean"),
                 words_before: int = 4, words_after: int = 4, hidden: list | tuple = (32,), dropout: float = 0.1,
                 feature_names: list | tuple = ()):
        super().__init__()
        names = list(feature_names)
        absent = [c for c in columns if c not in names]
        if absent:
            raise ValueError(f"che_ppe reads {absent[0]!r}, which is not among the features {names} "
                             "(features: [pause, prosody])")
        if words_before < 1 or words_after < 0:
            raise ValueError("words_before must be >= 1 and words_after >= 0")
        self.index = [names.index(c) for c in columns]
        self.before, self.after = words_before, words_after
        n_in = (words_before + words_after) * len(self.index) + 1
        layers: list[nn.Module] = []
        for h in hidden:
            layers += [nn.Linear(n_in, int(h)), nn.ReLU(), nn.Dropout(dropout)]
            n_in = int(h)
        self.net = nn.Sequential(*layers)
        self.boundary = nn.Linear(n_in, 1)

    @property
    def n_inputs(self) -> int:
        return self.net[0].in_features if len(self.net) else self.boundary.in_features

    def context(self, feats: torch.Tensor, feat_missing: torch.Tensor | None) -> torch.Tensor:
        """``[B,T,n_inputs]``: the chosen columns of words t-before+1 .. t+after (zeros
        beyond the window and for words without evidence) and word t's missing flag."""
        B, T, _ = feats.shape
        f = feats[..., self.index]
        missing = feat_missing if feat_missing is not None else torch.zeros(B, T, dtype=torch.bool, device=feats.device)
        f = f.masked_fill(missing.unsqueeze(-1), 0.0)
        padded = torch.nn.functional.pad(f, (0, 0, self.before - 1, self.after))  # [B, T+7, C]
        win = padded.unfold(1, self.before + self.after, 1)  # [B, T, C, 8]
        win = win.transpose(2, 3).reshape(B, T, -1)  # word-major: w_{t-3} cols, ..., w_{t+4} cols
        return torch.cat([win, missing.unsqueeze(-1).to(f.dtype)], -1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                feat_missing: torch.Tensor | None = None) -> torch.Tensor:
        if feats is None:
            raise ValueError("che_ppe needs feats [B,T,F]")
        x = self.context(feats, feat_missing)
        return boundary_logits_from_score(self.boundary(self.net(x)).squeeze(-1), feat_missing)
