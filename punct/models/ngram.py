"""Hidden-event n-gram language model (Stolcke and Shriberg 1996; Stolcke et al.
1998): punctuation marks are tokens of a word n-gram model, and decoding
infers the hidden mark (or none) in every slot between words. The baseline of
the lexical punctuation papers; no IWSLT2011 number of its own in them.

Training (``fit``, one pass, no SGD): every training utterance becomes the
token stream ``<s> w_1 [e_1] w_2 [e_2] ... w_N [e_N] </s>`` where e_i is a
mark token (``,`` ``.`` ``?``) when word i's label is not O, and nothing
otherwise. N-grams up to ``order`` (2 or 3) are counted and smoothed with
interpolated Kneser-Ney (Chen and Goodman 1999; one discount per order,
D = n1 / (n1 + 2 n2) from the count-of-counts, continuation counts for the
lower orders, a uniform distribution under the unigrams):

    p(w|h) = max(c(h w) - D, 0) / c(h) + D N1+(h .) / c(h) p(w|h')    (c(h) > 0)
    p(w|h) = p(w|h')                                                 (c(h) = 0)

Decoding (``forward``): with e_i in {O, COMMA, PERIOD, QUESTION} the joint
log-probability of words and marks is a sum of slot scores that depend on
(e_{i-1}, e_i) only (for order 3: the mark token's probability given the two
tokens before it, then the next word's given the two tokens before it), so
the slots form a first-order chain; the forward-backward algorithm gives the
posterior of every slot's mark, which ``forward`` returns as log-probabilities
``[B,T,4]`` (the mark maximising it is the minimum-error choice per slot;
the end of a row is followed by ``</s>``).

The counts live in buffers of the state dict (n-gram keys packed into int64),
so the model saves and loads like every other one; lookups are vectorized with
numpy (sorted keys, searchsorted).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from punct.text.labels import LABELS
from punct.models import EOS_ID, PAD_ID, register

BOS_ID = PAD_ID  # <pad> never occurs in a stream: it stands for <s>


class _Counts:
    """Numpy views of the buffers of one order: n-gram keys/counts, context keys/totals/types."""

    def __init__(self, keys, counts, ctx_keys, ctx_total, ctx_types, discount):
        self.keys, self.counts = keys, counts
        self.ctx_keys, self.ctx_total, self.ctx_types = ctx_keys, ctx_total, ctx_types
        self.discount = discount


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    if len(keys) == 0:
        return np.zeros(query.shape, np.float64)
    i = np.searchsorted(keys, query).clip(max=len(keys) - 1)
    return np.where(keys[i] == query, values[i], 0.0)


@register("hidden_event_lm")
class HiddenEventLM(nn.Module):
    """Marks as hidden events of a Kneser-Ney word n-gram model, decoded by Viterbi."""

    trainer = "fit"

    @dataclass
    class Config:
        #: n-gram order (2 or 3)
        order: int = 3

    def __init__(self, vocab_size: int, order: int = 3):
        super().__init__()
        if order not in (2, 3):
            raise ValueError("order must be 2 or 3")
        self.order = order
        self.n_words = vocab_size
        self.n_tokens = vocab_size + len(LABELS) - 1  # words + one token per mark
        self.bits = max(1, int(np.ceil(np.log2(self.n_tokens + 1))))
        if self.bits * order > 62:
            raise ValueError("vocabulary too large to pack n-gram keys into 64 bits")
        self.register_buffer("unigram", torch.zeros(self.n_tokens, dtype=torch.float64))
        self.register_buffer("discounts", torch.zeros(order, dtype=torch.float64))
        for k in range(2, order + 1):
            for name, dt in (("keys", torch.int64), ("counts", torch.float64), ("ctx_keys", torch.int64),
                             ("ctx_total", torch.float64), ("ctx_types", torch.float64)):
                self.register_buffer(f"o{k}_{name}", torch.zeros(0, dtype=dt))
        self.register_buffer("uni_types", torch.zeros((), dtype=torch.float64))

    # --- state dict with data-dependent shapes ---------------------------------
    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        for name in list(self._buffers):
            if prefix + name in state_dict:
                self._buffers[name] = torch.empty_like(state_dict[prefix + name])
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    # --- estimation ------------------------------------------------------------
    def mark_token(self, label_id: int) -> int:
        return self.n_words + label_id - 1

    def token_stream(self, ids: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """``<s>``*(order-1) words with their mark tokens ``</s>`` as one int64 array."""
        out = np.empty(len(ids) * 2, np.int64)
        out[0::2] = ids
        out[1::2] = np.where(labels > 0, self.n_words + labels - 1, -1)
        out = out[out >= 0]
        return np.concatenate([np.full(self.order - 1, BOS_ID, np.int64), out, [EOS_ID]])

    def _pack(self, grams: np.ndarray) -> np.ndarray:
        key = np.zeros(grams.shape[:-1], np.int64)
        for j in range(grams.shape[-1]):
            key = (key << self.bits) | grams[..., j]
        return key

    def fit(self, streams) -> None:
        """Count and smooth; ``streams``: (word ids, label ids) numpy pairs, one per utterance."""
        n = self.order
        toks = [self.token_stream(np.asarray(w, np.int64), np.asarray(y, np.int64)) for w, y in streams]
        grams_n = np.concatenate([np.stack([t[j : len(t) - n + 1 + j] for j in range(n)], 1) for t in toks])
        uniq, counts = np.unique(self._pack(grams_n), return_counts=True)
        table: dict[int, tuple[np.ndarray, np.ndarray]] = {n: (uniq, counts.astype(np.float64))}
        # lower orders: continuation counts = number of distinct left extensions
        for k in range(n - 1, 0, -1):
            hi_keys = table[k + 1][0]
            low = hi_keys & ((1 << (self.bits * k)) - 1)  # drop the first token
            u, c = np.unique(low, return_counts=True)
            table[k] = (u, c.astype(np.float64))
        discounts = np.zeros(n, np.float64)
        for k in range(1, n + 1):
            c = table[k][1]
            n1, n2 = float((c == 1).sum()), float((c == 2).sum())
            discounts[k - 1] = n1 / (n1 + 2 * n2) if n1 + n2 > 0 else 0.5
        uni = np.zeros(self.n_tokens, np.float64)
        uni[table[1][0]] = table[1][1]
        self.unigram = torch.from_numpy(uni)
        self.uni_types = torch.tensor(float((uni > 0).sum()), dtype=torch.float64)
        self.discounts = torch.from_numpy(discounts)
        for k in range(2, n + 1):
            keys, cnt = table[k]
            ctx = keys >> self.bits
            cu, first = np.unique(ctx, return_index=True)
            total = np.add.reduceat(cnt, first)
            types = np.diff(np.append(first, len(ctx))).astype(np.float64)
            setattr(self, f"o{k}_keys", torch.from_numpy(keys))
            setattr(self, f"o{k}_counts", torch.from_numpy(cnt))
            setattr(self, f"o{k}_ctx_keys", torch.from_numpy(cu))
            setattr(self, f"o{k}_ctx_total", torch.from_numpy(total))
            setattr(self, f"o{k}_ctx_types", torch.from_numpy(types))

    # --- probabilities -------------------------------------------------------------
    def _tables(self) -> dict[int, _Counts]:
        d = self.discounts.numpy()
        return {k: _Counts(*(getattr(self, f"o{k}_{x}").numpy() for x in ("keys", "counts", "ctx_keys", "ctx_total",
                                                                            "ctx_types")), d[k - 1])
                for k in range(2, self.order + 1)}

    def logprob(self, grams: np.ndarray, tables: dict[int, _Counts] | None = None) -> np.ndarray:
        """log p(last token | the others) for int64 ``grams [..., order]``."""
        tables = tables or self._tables()
        n = self.order
        uni = self.unigram.numpy()
        total = uni.sum()
        d1 = float(self.discounts[0])
        w = grams[..., -1]
        if total > 0:
            p = np.maximum(uni[w] - d1, 0) / total + d1 * float(self.uni_types) / total / self.n_tokens
        else:
            p = np.full(w.shape, 1.0 / self.n_tokens)
        for k in range(2, n + 1):
            t = tables[k]
            g = grams[..., n - k :]
            c_hw = _lookup(t.keys, t.counts, self._pack(g))
            hk = self._pack(g[..., :-1])
            c_h = _lookup(t.ctx_keys, t.ctx_total, hk)
            n_h = _lookup(t.ctx_keys, t.ctx_types, hk)
            seen = c_h > 0
            safe = np.where(seen, c_h, 1.0)
            p = np.where(seen, np.maximum(c_hw - t.discount, 0) / safe + t.discount * n_h / safe * p, p)
        return np.log(np.maximum(p, 1e-300))

    def slot_scores(self, words: np.ndarray, tables=None) -> np.ndarray:
        """``[T,4,4]`` scores of slot i for (e_{i-1}, e_i), words followed by </s>."""
        T = len(words)
        L = len(LABELS)
        nxt = np.append(words[1:], EOS_ID)  # w_{i+1}
        prev = np.concatenate([[BOS_ID], words[:-1]])  # w_{i-1}
        mark = np.array([0] + [self.mark_token(j) for j in range(1, L)], np.int64)  # token of e (unused for O)
        a = np.arange(L)
        # x(a): the token before w_i: the mark e_{i-1} = a, or w_{i-1} when a = O
        x = np.where(a[None, :] > 0, mark[None, :], prev[:, None])  # [T,4]
        x[0, :] = BOS_ID  # nothing before the first word but <s>
        xa = np.broadcast_to(x[:, :, None], (T, L, L))  # [T,a,b]
        wi = np.broadcast_to(words[:, None, None], (T, L, L))
        wn = np.broadcast_to(nxt[:, None, None], (T, L, L))
        mb = np.broadcast_to(mark[None, None, :], (T, L, L))
        has = np.broadcast_to((a > 0)[None, None, :], (T, L, L))
        if self.order == 3:
            g_mark = np.stack([xa, wi, mb], -1)
            g_next = np.where(has[..., None], np.stack([wi, mb, wn], -1), np.stack([xa, wi, wn], -1))
        else:
            g_mark = np.stack([wi, mb], -1)
            g_next = np.where(has[..., None], np.stack([mb, wn], -1), np.stack([wi, wn], -1))
        s = self.logprob(g_next, tables)
        s = s + np.where(has, self.logprob(g_mark, tables), 0.0)
        return s

    def posteriors(self, words: np.ndarray, tables=None) -> np.ndarray:
        """Log posterior ``[T,4]`` of every slot's mark (forward-backward over the slot chain)."""
        return _forward_backward(self.slot_scores(words, tables))

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None) -> torch.Tensor:
        """ids ``[B,T]``, mask ``[B,T]`` -> log posteriors ``[B,T,4]`` (zeros on padding)."""
        B, T = ids.shape
        out = torch.zeros(B, T, len(LABELS), dtype=torch.float32)
        tables = self._tables()
        lengths = mask.sum(1).tolist()
        ids_np = ids.numpy()
        for b in range(B):
            n = int(lengths[b])
            if n:
                out[b, :n] = torch.from_numpy(_forward_backward(self.slot_scores(ids_np[b, :n].astype(np.int64),
                                                                                  tables)).astype(np.float32))
        return out


def _lse(x: np.ndarray, axis: int) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))).squeeze(axis)


def _forward_backward(s: np.ndarray) -> np.ndarray:
    """Slot scores ``[T,S,S]`` (previous state, state; the first slot's previous state
    is state 0) -> log marginals ``[T,S]``."""
    T, S, _ = s.shape
    alpha = np.empty((T, S))
    beta = np.zeros((T, S))
    alpha[0] = s[0, 0]
    for t in range(1, T):
        alpha[t] = _lse(alpha[t - 1][:, None] + s[t], 0)
    for t in range(T - 2, -1, -1):
        beta[t] = _lse(s[t + 1] + beta[t + 1][None, :], 1)
    z = _lse(alpha[-1], 0)
    return alpha + beta - z
