"""T-LSTM: the unidirectional LSTM punctuation model of Tilk and Alumäe (2015),
"LSTM for punctuation restoration in speech transcripts" (Interspeech 2015),
its first, text-only stage. Published: overall F1 50.8 on IWSLT2011 test2011,
as reported by Tilk and Alumäe (2016, Table 2).

    x   = words + </s>                           (the model appends </s>)
    e_i = W_p x_i                                projection layer (an embedding)
    h_i = LSTM(e_i, h_{i-1})                     one unidirectional LSTM layer
    y_t = softmax(W_y h_{t+1} + b_y)             mark after word t

The network reads the words left to right; at step i it has read the history
x_0..x_i and predicts the mark *before* x_i, i.e. the mark after word t is
decided at step t+1, having read word t+1 and everything before it (but
nothing further). The end token gives the last word its step.

Sizes: the paper used 100 projection units and 100 LSTM units for Estonian.
The IWSLT configuration (conf/tlstm.yaml) uses 256 and 256: the same width as
T-BRNN's recurrent layers on the same 2.1M-word data (27K-word vocabulary), so
the comparison of the two papers' models is about the architecture (one
direction, no attention) rather than about size; 100/100 is an override away.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from punct.text.labels import LABELS
from punct.models import EOS_ID, PAD_ID, register
from punct.models.layers import acoustic_inputs, append_token


@register("tlstm")
class TLSTM(nn.Module):
    """Tilk and Alumäe's (2015) unidirectional LSTM over the words (stage one, text only)."""

    @dataclass
    class Config:
        #: projection layer size (paper: 100 for Estonian)
        embedding_dim: int = 256
        #: LSTM units (paper: 100 for Estonian)
        hidden_size: int = 256
        #: dropout on the projection and on the LSTM output (the paper used none)
        dropout: float = 0.0
        #: the projection layer's activation: linear (an embedding) or tanh (as the reference
        #: implementation ottokart/punctuator, which applies tanh to the projected word)
        projection: str = "linear"

    def __init__(self, vocab_size: int, embedding_dim: int = 256, hidden_size: int = 256, dropout: float = 0.0,
                 projection: str = "linear"):
        super().__init__()
        if projection not in ("linear", "tanh"):
            raise ValueError(f"projection must be linear or tanh, got {projection!r}")
        self.projection = projection
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=PAD_ID)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_size, len(LABELS))

    @property
    def hidden_dim(self) -> int:
        """Size of ``hidden_states`` (what a second stage reads)."""
        return self.lstm.hidden_size

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None) -> torch.Tensor:
        """ids ``[B,T]``, mask ``[B,T]`` -> logits ``[B,T,len(LABELS)]``."""
        return self.out(self.drop(self.hidden_states(ids, mask)))

    def project(self, x: torch.Tensor) -> torch.Tensor:
        """The projection layer: the words' embeddings, through tanh if so configured."""
        e = self.embedding(x)
        return torch.tanh(e) if self.projection == "tanh" else e

    def hidden_states(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """h_{t+1} ``[B,T,H]``, the LSTM state that decides the mark after word t (the
        input of ``out``): what a two-stage model reads."""
        lengths = mask.sum(1)
        x = append_token(ids.masked_fill(~mask, PAD_ID), lengths, EOS_ID, PAD_ID)  # [B,T+1]
        h = self.lstm(self.drop(self.project(x)))[0]  # causal: padding after a row never reaches it
        return h[:, 1:]  # h_{t+1}: has read word t+1


@register("tlstm_p")
class TLSTMPause(TLSTM):
    """T-LSTM-p: T-LSTM with the pause as a second input, in one stage, trained on
    pause-annotated speech only (the single-stage baseline of Tilk and Alumäe 2015's
    two-stage models, punct.models.twostage).

    At step i the LSTM reads word x_i and the features of word i-1 (the pause
    *between* x_{i-1} and x_i, which is the pause after word i-1, where the mark
    decided at that step goes); step 0 reads zeros, the end token reads the last
    word's. A word without acoustic evidence (``feat_missing``) reads zeros and a
    missing flag of 1 (punct.models.layers.acoustic_inputs): its mark is decided
    from the words alone, whatever its feature row held.
    """

    input_kind = "words+feats"

    @dataclass
    class Config(TLSTM.Config):
        #: the feature columns, in input order (set by the engine from the featurizer)
        feature_names: list = field(default_factory=list)

    def __init__(self, vocab_size: int, embedding_dim: int = 256, hidden_size: int = 256, dropout: float = 0.0,
                 feature_names: list | tuple = (), projection: str = "linear"):
        super().__init__(vocab_size, embedding_dim, hidden_size, dropout, projection)
        if not feature_names:
            raise ValueError("tlstm_p reads per-word features: set features (e.g. [pause]) in its config")
        self.feature_names = list(feature_names)
        self.lstm = nn.LSTM(embedding_dim + len(self.feature_names) + 1, hidden_size, batch_first=True)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                feat_missing: torch.Tensor | None = None) -> torch.Tensor:
        """ids, mask ``[B,T]``, feats ``[B,T,F]``, feat_missing ``[B,T]`` -> logits ``[B,T,len(LABELS)]``."""
        return self.out(self.drop(self.hidden_states(ids, mask, feats, feat_missing)))

    def hidden_states(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                      feat_missing: torch.Tensor | None = None) -> torch.Tensor:
        if feats is None:
            raise ValueError("tlstm_p needs feats [B,T,F]")
        lengths = mask.sum(1)
        x = append_token(ids.masked_fill(~mask, PAD_ID), lengths, EOS_ID, PAD_ID)  # [B,T+1]
        a = acoustic_inputs(feats, feat_missing)  # [B,T,F+1]
        a = torch.nn.functional.pad(a, (0, 0, 1, 0))  # step i reads word i-1's features
        h = self.lstm(torch.cat([self.drop(self.project(x)), a], -1))[0]
        return h[:, 1:]
