"""Linear-chain CRF over word n-gram features (Lafferty et al. 2001; the CRF
punctuation baselines of Lu and Ng 2010 and Ueffing et al. 2013 use such
lexical features). A baseline; no IWSLT2011 number in the papers compared here.

    phi_t  = hashed indicator features of the words around slot t:
             w_{t+o} for o in -2..2, the bigrams (w_{t-1} w_t), (w_t w_{t+1}),
             (w_{t+1} w_{t+2}) and the trigrams (w_{t-1} w_t w_{t+1}),
             (w_t w_{t+1} w_{t+2}) (each feature hashed with its template into
             ``buckets`` rows; ``<s>`` before a row, ``</s>`` after it)
    psi_t(y) = sum_f W[f, y] + b[y]                                  emission
    p(y_1..y_T | w) ∝ exp(sum_t psi_t(y_t) + sum_t A[y_{t-1}, y_t] + start[y_1] + end[y_T])

Trained by SGD through the shared engine (its ``training_loss`` is the
negative log-likelihood of the observed labels; words without a target, such
as the carried-over tail of a slice, are marginalised); ``forward`` returns
the log posterior marginals of every slot (forward-backward), so decoding
picks the most probable mark per slot and validation perplexity is defined
as for the other models.

Why not CRFsuite: python-crfsuite installs from PyPI, but a model in it is a
file of its own trained by L-BFGS outside the engine; this one shares the
batching, checkpoints, resume, decoding windows and data-parallel training
of every other model, with the same feature set.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from punct.text.labels import LABELS
from punct.models import EOS_ID, PAD_ID, register

#: feature templates: offsets of the words they join
TEMPLATES: tuple[tuple[int, ...], ...] = (
    (-2,), (-1,), (0,), (1,), (2,),
    (-1, 0), (0, 1), (1, 2),
    (-1, 0, 1), (0, 1, 2),
)
_PRIMES = (1000003, 998244353, 1000000007)


@register("crf")
class LinearChainCRF(nn.Module):
    """Linear-chain CRF over hashed word n-gram features, trained by log-likelihood."""

    @dataclass
    class Config:
        #: hash buckets of the feature weights (collisions are rare below ~1/4 load)
        buckets: int = 1 << 21

    def __init__(self, vocab_size: int, buckets: int = 1 << 21):
        super().__init__()
        L = len(LABELS)
        self.buckets = buckets
        self.weights = nn.Embedding(buckets, L)
        self.bias = nn.Parameter(torch.zeros(L))
        self.trans = nn.Parameter(torch.zeros(L, L))
        self.start = nn.Parameter(torch.zeros(L))
        self.end = nn.Parameter(torch.zeros(L))
        nn.init.zeros_(self.weights.weight)

    def features(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Feature rows ``[B,T,len(TEMPLATES)]``."""
        x = ids.masked_fill(~mask, EOS_ID)
        x = F.pad(F.pad(x, (2, 0), value=PAD_ID), (0, 2), value=EOS_ID)  # <s> <s> row </s> </s>
        T = ids.shape[1]
        feats = []
        for k, offs in enumerate(TEMPLATES):
            h = torch.full_like(ids, k + 1)
            for j, o in enumerate(offs):
                h = (h * _PRIMES[j % 3] + x[:, 2 + o : 2 + o + T] + 1) % 4294967291
            feats.append(h % self.buckets)
        return torch.stack(feats, -1)

    def emissions(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.weights(self.features(ids, mask)).sum(2) + self.bias

    def _alpha(self, em: torch.Tensor, mask: torch.Tensor, allowed: torch.Tensor | None) -> torch.Tensor:
        """Log forward scores ``[B,T,L]`` (``allowed [B,T,L]`` restricts the labels)."""
        neg = torch.finfo(em.dtype).min / 4
        if allowed is not None:
            em = em.masked_fill(~allowed, neg)
        alphas = [self.start + em[:, 0]]
        for t in range(1, em.shape[1]):
            a = torch.logsumexp(alphas[-1].unsqueeze(2) + self.trans, 1) + em[:, t]
            alphas.append(torch.where(mask[:, t : t + 1], a, alphas[-1]))
        return torch.stack(alphas, 1)

    def _log_z(self, alpha: torch.Tensor) -> torch.Tensor:
        return torch.logsumexp(alpha[:, -1] + self.end, 1)

    def training_loss(self, y: torch.Tensor, ids: torch.Tensor, mask: torch.Tensor, feats=None) -> torch.Tensor:
        """Summed negative log-likelihood of the observed labels (y = -100: unobserved)."""
        em = self.emissions(ids, mask)
        L = em.shape[-1]
        observed = y >= 0
        allowed = torch.ones_like(em, dtype=torch.bool)
        allowed[observed] = F.one_hot(y[observed], L).bool()
        rows = observed.any(1)
        nll = self._log_z(self._alpha(em, mask, None)) - self._log_z(self._alpha(em, mask, allowed))
        return nll[rows].sum()

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None) -> torch.Tensor:
        """ids ``[B,T]``, mask ``[B,T]`` -> log posterior marginals ``[B,T,len(LABELS)]``."""
        em = self.emissions(ids, mask)
        alpha = self._alpha(em, mask, None)
        B, T, L = em.shape
        betas = [self.end.expand(B, L)]
        for t in range(T - 2, -1, -1):
            b = torch.logsumexp(self.trans + (em[:, t + 1] + betas[-1]).unsqueeze(1), 2)
            betas.append(torch.where(mask[:, t + 1 : t + 2], b, betas[-1]))
        beta = torch.stack(betas[::-1], 1)
        return torch.log_softmax(alpha + beta, -1)
