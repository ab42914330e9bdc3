"""DRNN-LWMA: deep recurrent network with layer-wise multi-head attention
(S. Kim, "Deep recurrent neural networks with layer-wise multi-head attentions
for punctuation restoration", ICASSP 2019). Published overall F1 on IWSLT2011
test2011: DRNN-LWMA 67.2, DRNN-LWMA-pre (pretrained embeddings) 68.6.

My reading of the paper, as implemented here:

    x   = words + </s>                                   (the model appends </s>)
    h^0 = E x                                            word embedding
    h^l = BiGRU_l(h^{l-1}),  l = 1..L                    stacked bidirectional GRUs, [B,N+1,2H] each
    s_t = GRU(h^L_{t+1}, s_{t-1})                        unidirectional "query" GRU over the top layer
    c^l_t = MultiHead_l(q = s_t, K = V = h^l)            one multi-head attention per layer
          = [head_1; ...; head_M] W^l_o,
      head_m = softmax((s_t W^l_qm)(h^l W^l_km)^T / sqrt(d)) (h^l W^l_vm)   scaled dot product
    y_t = softmax(W_y [s_t; c^1_t; ...; c^L_t] + b_y)    mark after word t

- Every BiGRU layer is attended to separately ("layer-wise"): lower layers hold
  more lexical, upper layers more contextual information, and the classifier
  gets all of them, concatenated with the query state.
- The query of every layer's attention is the state of the unidirectional
  GRU that reads the top layer, as T-BRNN's output GRU does; it reads
  h^L_{t+1} so output t belongs to word t with the same convention as T-BRNN
  (the paper builds on T-BRNN's data preparation and slot convention).
- The author's patent on the model (US 11,521,071, claims 1, 6 and 7) has the
  same dataflow: a GRU turns the bidirectional layers' output states into one
  final state per word, an attention per layer reads that layer's states, and
  one fully connected softmax layer takes the final states with the attention
  outputs. The attention contexts do not feed back into the GRU (as they would
  in a decoder that attends with s_{t-1}).
- Dropout (0.5 in the paper) on the embeddings, between the layers and before
  the softmax. Adam. The paper's best setting: 4 layers, 3 heads, 256 units;
  d (the per-head size) is not pinned by what I recall of the paper; here
  ``head_dim`` defaults to 2H / heads (rounded down), so each layer's
  attention output has about the size of its states.
- -pre: the word embedding starts from pretrained vectors (GloVe 6B 50-d here;
  the engine copies them in: ``pretrained_embeddings`` in the config).

punct's additions, for a student of the general default: ``hidden_states`` is the softmax's
input [s_t; c^1_t; ...; c^L_t] (what a second stage reads, punct.models.twostage), and
``case_head`` adds a linear layer on that state and the word's own embedding that predicts
the word's case class (punct.text.labels.CASES), as T-BRNN's case head does.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from punct.text.labels import CASES, LABELS
from punct.models import EOS_ID, PAD_ID, register
from punct.models.layers import BiRNN, StatesWithCaseHead, append_token, lengths_mask, xavier_embedding_

EMBEDDING_INITS = ("normal", "xavier")


def _check_embedding_init(name: str) -> None:
    if name not in EMBEDDING_INITS:
        raise ValueError(f"embedding_init must be {' or '.join(EMBEDDING_INITS)}, got {name!r}")


class MultiHeadAttention(nn.Module):
    """Scaled dot-product multi-head attention of queries ``[B,T,Q]`` over memory ``[B,N,K]``."""

    def __init__(self, query_size: int, memory_size: int, heads: int, head_dim: int, dropout: float = 0.0):
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        self.q = nn.Linear(query_size, heads * head_dim, bias=False)
        self.k = nn.Linear(memory_size, heads * head_dim, bias=False)
        self.v = nn.Linear(memory_size, heads * head_dim, bias=False)
        self.o = nn.Linear(heads * head_dim, heads * head_dim)
        self.dropout = dropout

    def forward(self, query: torch.Tensor, memory: torch.Tensor, memory_mask: torch.Tensor) -> torch.Tensor:
        B, T, _ = query.shape
        N = memory.shape[1]

        def split(x, L):
            return x.view(B, L, self.heads, self.head_dim).transpose(1, 2)  # [B,h,L,d]

        q, k, v = split(self.q(query), T), split(self.k(memory), N), split(self.v(memory), N)
        # Scaled dot product written out: at these sizes (50 queries, 51 keys, heads of 170) torch's
        # fused CPU kernel (F.scaled_dot_product_attention) took 36-42 ms for the forward and backward
        # of one layer's attention at batch 32 in bf16, the two products 14-16 ms; same result to 1e-6.
        scores = (q @ k.transpose(-1, -2)) * (self.head_dim ** -0.5)  # [B,h,T,N]
        scores = scores.masked_fill(~memory_mask[:, None, None, :], float("-inf"))
        weights = F.dropout(torch.softmax(scores, -1), self.dropout, self.training)
        c = weights @ v  # [B,h,T,d]
        return self.o(c.transpose(1, 2).reshape(B, T, self.heads * self.head_dim))


@register("drnn_lwma")
class DRNNLWMA(StatesWithCaseHead, nn.Module):
    """Kim's (2019) stacked bidirectional GRUs with a multi-head attention over every layer."""

    @dataclass
    class Config:
        embedding_dim: int = 256
        #: GRU units per direction, and of the query GRU (paper: 256)
        hidden_size: int = 256
        #: stacked BiGRU layers (paper's best: 4)
        num_layers: int = 4
        #: attention heads per layer (paper's best: 3)
        num_heads: int = 3
        #: size of one head (0: 2 * hidden_size // num_heads)
        head_dim: int = 0
        #: dropout on embeddings, between layers and before the softmax (paper: 0.5)
        dropout: float = 0.5
        #: dropout on the attention weights
        attention_dropout: float = 0.0
        #: the word embedding's random start: ``normal`` (torch's N(0, 1): a 256-d row of norm 16,
        #: which Adam's steps of about the rate barely move, so a rare word stays a large random
        #: input) or ``xavier`` (uniform within +-sqrt(6 / (words + dim)), T-BRNN's and
        #: punctuator2's start: near zero until training moves it). With pretrained vectors it
        #: applies to the words they lack.
        embedding_init: str = "normal"
        #: predict each word's case class too (punct.text.labels.CASES; punct's addition)
        case_head: bool = False
        #: weight of the case loss beside the punctuation loss
        case_weight: float = 0.5

        def __post_init__(self):
            _check_embedding_init(self.embedding_init)

    def __init__(self, vocab_size: int, embedding_dim: int = 256, hidden_size: int = 256, num_layers: int = 4,
                 num_heads: int = 3, head_dim: int = 0, dropout: float = 0.5, attention_dropout: float = 0.0,
                 embedding_init: str = "normal", case_head: bool = False, case_weight: float = 0.5):
        super().__init__()
        if num_layers < 1 or num_heads < 1:
            raise ValueError("num_layers and num_heads must be >= 1")
        H = hidden_size
        d = head_dim or max(1, 2 * H // num_heads)
        _check_embedding_init(embedding_init)
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=PAD_ID)
        if embedding_init == "xavier":
            xavier_embedding_(self.embedding)
        self.layers = nn.ModuleList(BiRNN("gru", embedding_dim if l == 0 else 2 * H, H) for l in range(num_layers))
        self.query_rnn = nn.GRU(2 * H, H, batch_first=True)
        self.attention = nn.ModuleList(MultiHeadAttention(H, 2 * H, num_heads, d, attention_dropout)
                                       for _ in range(num_layers))
        self.drop = nn.Dropout(dropout)
        self._hidden_dim = H + num_layers * num_heads * d
        self.out = nn.Linear(self._hidden_dim, len(LABELS))
        self.case_head = case_head
        self.case_weight = case_weight
        self.case_out = nn.Linear(self._hidden_dim + embedding_dim, len(CASES)) if case_head else None
        if self.case_out is not None:  # zero start, as T-BRNN's: every word lower-case until trained
            nn.init.zeros_(self.case_out.weight)
            nn.init.zeros_(self.case_out.bias)

    @property
    def hidden_dim(self) -> int:
        """Size of ``hidden_states`` (what a second stage reads)."""
        return self._hidden_dim

    def _states(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(the softmax's input ``[B,T,hidden_dim]``, the words' embeddings ``[B,T,E]``)."""
        lengths = mask.sum(1)
        x = append_token(ids.masked_fill(~mask, PAD_ID), lengths, EOS_ID, PAD_ID)  # [B,T+1]
        ctx_len = lengths + 1
        mem_mask = lengths_mask(ctx_len, x.shape[1])
        emb = self.drop(self.embedding(x))
        h = emb
        states = []
        for i, layer in enumerate(self.layers):
            h = layer(h if i == 0 else self.drop(h), ctx_len)
            states.append(h)
        s = self.query_rnn(h[:, 1:])[0]  # [B,T,H]: s_t has read h^L_1..h^L_{t+1}
        contexts = [att(s, hl, mem_mask) for att, hl in zip(self.attention, states)]
        return torch.cat([s] + contexts, dim=-1), emb[:, :-1]


@register("drnn_lwma_pre")
class DRNNLWMAPre(DRNNLWMA):
    """DRNN-LWMA-pre: DRNN-LWMA whose embedding starts from pretrained vectors
    (``pretrained_embeddings: glove-6b-50d`` in the config); 50-d by default."""

    @dataclass
    class Config(DRNNLWMA.Config):
        #: the size of the GloVe 6B vectors
        embedding_dim: int = 50

    def __init__(self, vocab_size: int, embedding_dim: int = 50, **kw):
        super().__init__(vocab_size, embedding_dim=embedding_dim, **kw)
