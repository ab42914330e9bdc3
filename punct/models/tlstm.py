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

from dataclasses import dataclass

import torch
from torch import nn

from punct.labels import LABELS
from punct.models import EOS_ID, PAD_ID, register
from punct.models.layers import append_token


@register("tlstm")
class TLSTM(nn.Module):
    @dataclass
    class Config:
        #: projection layer size (paper: 100 for Estonian)
        embedding_dim: int = 256
        #: LSTM units (paper: 100 for Estonian)
        hidden_size: int = 256
        #: dropout on the projection and on the LSTM output (the paper used none)
        dropout: float = 0.0

    def __init__(self, vocab_size: int, embedding_dim: int = 256, hidden_size: int = 256, dropout: float = 0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=PAD_ID)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_size, len(LABELS))

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None) -> torch.Tensor:
        """ids ``[B,T]``, mask ``[B,T]`` -> logits ``[B,T,len(LABELS)]``."""
        lengths = mask.sum(1)
        x = append_token(ids.masked_fill(~mask, PAD_ID), lengths, EOS_ID, PAD_ID)  # [B,T+1]
        h = self.lstm(self.drop(self.embedding(x)))[0]  # causal: padding after a row never reaches it
        return self.out(self.drop(h[:, 1:]))  # h_{t+1}: has read word t+1
