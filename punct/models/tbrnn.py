"""T-BRNN: bidirectional RNN with attention and late fusion (Tilk & Alumäe,
Interspeech 2016), as in their reference implementation punctuator2
(github.com/ottokart/punctuator2, ``models.GRU``). Published: overall F1 63.1
on IWSLT2011 test2011 (Tilk and Alumäe 2016, Table 2); T-BRNN-pre (below) 64.4.

    x   = words + </s>                                  (the model appends </s>)
    e_i = We[x_i]                                       one embedding, both directions
    h_i = [GRU_f(e)_i ; GRU_b(e)_i]                     i = 0..N        (2H)
    s_t = GRU(h_{t+1}, s_{t-1})                         t = 0..N-1      (H)
    a_tj = softmax_j(w_a . tanh(W_a h_j + b_a + U_a q_t)), c_t = sum_j a_tj h_j
    l_t = W_fc c_t;  f_t = l_t * sigmoid(W_ff l_t + W_fh s_t + b_f) + s_t
    y_t = softmax(W_y f_t + b_y)                        mark after word t

The output GRU reads h_{t+1}: punctuator2 predicts the mark *before* x_{t+1},
which is the mark after word t, so output t of ``forward`` belongs to word t
(the end token supplies h_N for the last word). The attention query q_t is
the output GRU's *previous* state s_{t-1} (s_{-1} = 0), as in punctuator2's
``output_recurrence`` (``attention_query: prev``); ``current`` uses s_t.
The attention never feeds back into the recurrence, so both GRUs run as
fused nn.GRU calls and the attention is computed for all t at once, in
blocks (see punct.models.layers.additive_scores) to bound memory.
Initialisation follows punctuator2: Glorot-uniform weights, zero biases,
zero late-fusion and output weights.

``case_head`` (punct's addition, for a true-cased default): a second linear layer on the
per-word state f_t and the word's own embedding e_t predicts the word's case class
(punct.text.labels.CASES; zero-initialised like ``out``); ``forward(..., return_case=True)`` adds its logits ``[B,T,len(CASES)]``, and
the engine adds ``case_weight`` times its cross-entropy (or its distillation loss) to the
marks' (punct.engine.loss.loss_sum_of).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from punct.text.labels import CASES, LABELS
from punct.models import EOS_ID, PAD_ID, register
from punct.models.layers import (BiGRU, StatesWithCaseHead, additive_scores, append_token, lengths_mask, masked_softmax,
                                 xavier_embedding_)


@register("tbrnn")
class TBRNN(StatesWithCaseHead, nn.Module):
    """Tilk and Alumäe's (2016) bidirectional GRU with attention and late fusion (equations in the module docstring)."""

    @dataclass
    class Config:
        #: word embedding size (punctuator2: n_emb = n_hidden without pretrained embeddings)
        embedding_dim: int = 256
        #: GRU units per direction and of the output GRU (paper: 256)
        hidden_size: int = 256
        #: attention projection size; punctuator2 uses 2 * hidden_size (0 = that)
        attention_dim: int = 0
        #: attention query: "prev" (s_{t-1}, punctuator2) or "current" (s_t)
        attention_query: str = "prev"
        #: floats per attention block (memory bound of the [B,T,T,A] tanh; speed only)
        attention_block: int = 1 << 20
        #: dropout on the embeddings, the bidirectional states and the softmax input
        #: (0 = none: punctuator2 has none; an addition of punct's, not the paper's)
        dropout: float = 0.0
        #: predict each word's case class too, from f_t (punct.text.labels.CASES; punct's addition)
        case_head: bool = False
        #: weight of the case loss beside the punctuation loss
        case_weight: float = 0.5

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 256,
        hidden_size: int = 256,
        attention_dim: int = 0,
        attention_query: str = "prev",
        attention_block: int = 1 << 20,
        dropout: float = 0.0,
        case_head: bool = False,
        case_weight: float = 0.5,
    ):
        super().__init__()
        if attention_query not in ("prev", "current"):
            raise ValueError(f"attention_query must be 'prev' or 'current', got {attention_query!r}")
        H = hidden_size
        A = attention_dim or 2 * H
        self.hidden_size = H
        self.attention_query = attention_query
        self.attention_block = attention_block
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.drop = nn.Dropout(dropout)
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=PAD_ID)
        self.bigru = BiGRU(embedding_dim, H)
        self.gru = nn.GRU(2 * H, H, batch_first=True)
        self.att_context = nn.Linear(2 * H, A)  # W_a, b_a
        self.att_query = nn.Linear(H, A, bias=False)  # U_a
        self.att_vector = nn.Parameter(torch.empty(A))  # w_a
        self.fuse_context = nn.Linear(2 * H, H, bias=False)  # W_fc
        self.fuse_gate_context = nn.Linear(H, H, bias=False)  # W_ff
        self.fuse_gate_state = nn.Linear(H, H)  # W_fh, b_f
        self.out = nn.Linear(H, len(LABELS))
        self.case_head = case_head
        self.case_weight = case_weight
        self.case_out = nn.Linear(H + embedding_dim, len(CASES)) if case_head else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        xavier_embedding_(self.embedding)
        for rnn in (self.bigru.rnn, self.gru):
            for name, p in rnn.named_parameters():
                if name.startswith("weight"):
                    for chunk in p.data.chunk(3, 0):  # r, z, n gates: Glorot each, as punctuator2
                        nn.init.xavier_uniform_(chunk)
                else:
                    nn.init.zeros_(p)
        nn.init.xavier_uniform_(self.att_context.weight)
        nn.init.zeros_(self.att_context.bias)
        nn.init.xavier_uniform_(self.att_query.weight)
        bound = (6.0 / (self.att_vector.numel() + 1)) ** 0.5
        nn.init.uniform_(self.att_vector, -bound, bound)
        for lin in (self.fuse_context, self.fuse_gate_context, self.fuse_gate_state, self.out, self.case_out):
            if lin is None:
                continue
            nn.init.zeros_(lin.weight)
            if lin.bias is not None:
                nn.init.zeros_(lin.bias)

    @property
    def hidden_dim(self) -> int:
        """Size of ``hidden_states`` (what a second stage reads)."""
        return self.hidden_size

    def _states(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(the late-fusion output f_t ``[B,T,H]``, punctuator2's ``last_hidden_states``; the
        words' embeddings ``[B,T,E]``): what ``forward`` and ``hidden_states`` read."""
        lengths = mask.sum(1)
        ids = ids.masked_fill(~mask, PAD_ID)
        x = append_token(ids, lengths, EOS_ID, PAD_ID)  # [B,T+1]
        ctx_len = lengths + 1
        emb = self.drop(self.embedding(x))
        h = self.drop(self.bigru(emb, ctx_len))  # [B,T+1,2H]
        s = self.gru(h[:, 1:])[0]  # [B,T,H]: s_t has read h_1..h_{t+1}
        if self.attention_query == "prev":
            q = torch.nn.functional.pad(s[:, :-1], (0, 0, 1, 0))  # s_{t-1}, s_{-1} = 0
        else:
            q = s
        scores = additive_scores(self.att_context(h), self.att_query(q), self.att_vector, self.attention_block)
        alpha = masked_softmax(scores, lengths_mask(ctx_len, h.shape[1]))  # [B,T,T+1]
        c = torch.bmm(alpha, h)  # [B,T,2H]
        lfc = self.fuse_context(c)
        gate = torch.sigmoid(self.fuse_gate_context(lfc) + self.fuse_gate_state(s))
        return lfc * gate + s, emb[:, :-1]


@register("tbrnn_pre")
class TBRNNPre(TBRNN):
    """T-BRNN-pre (Tilk and Alumäe 2016, Table 2: overall F1 64.4 on IWSLT2011
    test2011): T-BRNN whose word embedding starts from pretrained GloVe vectors
    (the config sets ``pretrained_embeddings: glove-6b-50d``, which the engine
    copies in, punct.models.pretrained); hence 50-d embeddings by default. The
    network is T-BRNN's; only the name differs, so results are listed apart."""

    @dataclass
    class Config(TBRNN.Config):
        #: the size of the GloVe 6B vectors
        embedding_dim: int = 50

    def __init__(self, vocab_size: int, embedding_dim: int = 50, **kw):
        super().__init__(vocab_size, embedding_dim=embedding_dim, **kw)
