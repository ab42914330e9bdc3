"""Layers shared by the model families: end-token insertion, a near-zero embedding
start, a length-aware bidirectional GRU, and memory-bounded additive (Bahdanau) attention."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def append_token(ids: torch.Tensor, lengths: torch.Tensor, token: int, pad: int) -> torch.Tensor:
    """``[B,T]`` ids -> ``[B,T+1]`` with ``token`` written right after each row's last word."""
    out = torch.nn.functional.pad(ids, (0, 1), value=pad)
    return out.scatter(1, lengths.long().unsqueeze(1), token)


def lengths_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """Bool ``[B,max_len]``: True at positions ``< lengths[b]``."""
    return torch.arange(max_len, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)


def xavier_embedding_(embedding: nn.Embedding) -> None:
    """Start ``embedding`` Xavier-uniform (near zero: within +-sqrt(6 / (words + dim))), its
    padding row zero: punctuator2's start, T-BRNN's and DRNN-LWMA's ``embedding_init: xavier``."""
    nn.init.xavier_uniform_(embedding.weight)
    if embedding.padding_idx is not None:
        with torch.no_grad():
            embedding.weight[embedding.padding_idx].zero_()


class BiGRU(nn.Module):
    """A bidirectional GRU that runs each row's backward pass from its own last
    position (packs only when the rows differ in length). Output ``[B,T,2H]``:
    forward states then backward states, zeros on padding."""

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.GRU(input_size, hidden_size, batch_first=True, bidirectional=True)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        T = x.shape[1]
        if bool((lengths == T).all()):
            return self.rnn(x)[0]
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        return pad_packed_sequence(out, batch_first=True, total_length=T)[0]


class _AdditiveScores(torch.autograd.Function):
    """``E[b,t,j] = sum_a w[a] * tanh(P[b,j,a] + Q[b,t,a])`` computed in blocks of
    about ``block`` elements, so the ``[B,T,J,A]`` tensor never exists whole
    (not even for the backward pass, which recomputes it per block).

    tanh(x) = 2 sigmoid(2x) - 1 is used because torch's CPU sigmoid is about 3.5
    times faster than its tanh, and this elementwise op dominates T-BRNN's time:
    E = 2 (sigmoid(2P + 2Q) . w) - sum(w).
    """

    @staticmethod
    def _blocks(B: int, T: int, J: int, A: int, block: int):
        per_query = J * A
        if per_query * T * B <= block:
            yield slice(0, B), slice(0, T)
            return
        if per_query * T <= block:  # whole rows, several of them
            nb = max(1, block // (per_query * T))
            for b0 in range(0, B, nb):
                yield slice(b0, min(B, b0 + nb)), slice(0, T)
            return
        nt = max(1, block // per_query)  # one row at a time, several queries
        for b0 in range(B):
            for t0 in range(0, T, nt):
                yield slice(b0, b0 + 1), slice(t0, min(T, t0 + nt))

    @staticmethod
    def forward(ctx, P, Q, w, block: int):
        B, J, A = P.shape
        T = Q.shape[1]
        P2, Q2 = P * 2.0, Q * 2.0
        E = P.new_empty(B, T, J)
        for bs, ts in _AdditiveScores._blocks(B, T, J, A, block):
            Z = P2[bs].unsqueeze(1) + Q2[bs, ts].unsqueeze(2)  # [b,t,J,A]
            Z.sigmoid_()
            E[bs, ts] = torch.matmul(Z, w)
        E.mul_(2.0).sub_(w.sum())
        ctx.save_for_backward(P2, Q2, w)
        ctx.block = block
        return E

    @staticmethod
    def backward(ctx, G):
        P2, Q2, w = ctx.saved_tensors
        B, J, A = P2.shape
        T = Q2.shape[1]
        G = G.contiguous()
        dP = torch.zeros_like(P2)
        dQ = torch.zeros_like(Q2)
        gz = torch.zeros_like(w)
        w4 = w * 4.0
        for bs, ts in _AdditiveScores._blocks(B, T, J, A, ctx.block):
            Z = P2[bs].unsqueeze(1) + Q2[bs, ts].unsqueeze(2)
            Z.sigmoid_()
            g = G[bs, ts]  # [b,t,J]
            gz += torch.matmul(g.reshape(1, -1), Z.reshape(-1, A)).squeeze(0)
            # d tanh(x)/dx = 4 s (1 - s) = 4 (0.25 - (s - 0.5)^2), in place
            Z.sub_(0.5).square_().neg_().add_(0.25).mul_(w4).mul_(g.unsqueeze(-1))
            dQ[bs, ts] = Z.sum(2)
            dP[bs] += Z.sum(1)
        dw = gz.mul_(2.0).sub_(G.sum())
        return dP, dQ, dw, None


#: from this many ``[B,T,J,A]`` values on, the compiled kernel (punct.models.fastops) computes
#: the scores; below it the tensor version (small models never build the kernel)
EXT_MIN_VALUES = 1 << 24


class _AdditiveScoresExt(torch.autograd.Function):
    """``_AdditiveScores`` through the compiled kernel of punct.models.fastops."""

    @staticmethod
    def forward(ctx, P, Q, w, ext):
        ctx.save_for_backward(P, Q, w)
        ctx.ext = ext
        return ext.scores_forward(P, Q, w)

    @staticmethod
    def backward(ctx, G):
        P, Q, w = ctx.saved_tensors
        dP, dQ, dw = ctx.ext.scores_backward(P, Q, w, G.contiguous())
        return dP, dQ, dw, None


def additive_scores(P: torch.Tensor, Q: torch.Tensor, w: torch.Tensor, block: int = 1 << 20,
                    compiled: bool | None = None) -> torch.Tensor:
    """Scores ``[B,T,J]`` of additive attention: ``w . tanh(P[b,j] + Q[b,t])``.

    P ``[B,J,A]`` is the projected memory (bias included), Q ``[B,T,A]`` the
    projected queries. Large float32 or bf16 CPU inputs go to the compiled kernel
    (which scores in float32) when it is available (``compiled=None``: by size;
    True/False force the choice); the tensor version's peak extra memory is about
    ``2 * block`` floats.
    """
    P, Q, w = P.contiguous(), Q.contiguous(), w.contiguous()
    half = (torch.bfloat16, torch.float16)
    low = any(t.dtype in half for t in (P, Q, w))
    forced = compiled is True
    if compiled is None:
        compiled = (P.device.type == "cpu" and all(t.dtype in half + (torch.float32,) for t in (P, Q, w))
                    and P.shape[0] * Q.shape[1] * P.shape[1] * P.shape[2] >= EXT_MIN_VALUES)
    if compiled:
        from punct.models.fastops import additive_ext

        # inference uses a kernel built before, never waits a minute to build one (fastops)
        training = torch.is_grad_enabled() and any(t.requires_grad for t in (P, Q, w))
        ext = additive_ext(build=training or forced)
        if ext is not None:
            # bf16 inputs (precision: bf16 autocasts the projections) are scored in float32
            # by the kernel: bf16 elementwise tanh on CPU is slower than the float32 kernel,
            # and the softmax that follows runs in float32 under autocast anyway.
            if low:
                P, Q, w = P.float(), Q.float(), w.float()
            return _AdditiveScoresExt.apply(P, Q, w, ext)
    return _AdditiveScores.apply(P, Q, w, int(block))


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis of ``scores [B,T,J]``, ignoring ``mask[B,J] == False``."""
    scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
    return torch.softmax(scores, dim=-1)


def gather_positions(states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """``states [B,S,F]`` at ``positions [B,T]`` (long) -> ``[B,T,F]``."""
    return states.gather(1, positions.unsqueeze(-1).expand(-1, -1, states.shape[-1]))


def reverse_padded(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse every row of ``x [B,T,...]`` within its own length; padding stays at the end."""
    B, T = x.shape[:2]
    t = torch.arange(T, device=x.device).unsqueeze(0)
    L = lengths.to(x.device).long().unsqueeze(1)
    idx = torch.where(t < L, L - 1 - t, t)
    return x.gather(1, idx.view(B, T, *([1] * (x.dim() - 2))).expand_as(x))


class BiRNN(nn.Module):
    """Stacked bidirectional GRU or LSTM for rows of different lengths, without
    packing: the backward direction is a forward RNN over each row reversed
    within its length (padding stays at the end, where a forward RNN never
    reads it). On CPU torch's packed-sequence RNNs are several times slower
    than its padded ones (7x measured for a 2-layer BiLSTM); this gives the
    packed result at the padded speed. Output ``[B,T,2H]``, zeros on padding;
    dropout between layers."""

    def __init__(self, cell: str, input_size: int, hidden_size: int, num_layers: int = 1, dropout: float = 0.0):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cell]
        sizes = [input_size] + [2 * hidden_size] * (num_layers - 1)
        self.fwd = nn.ModuleList(rnn(s, hidden_size, batch_first=True) for s in sizes)
        self.bwd = nn.ModuleList(rnn(s, hidden_size, batch_first=True) for s in sizes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        keep = lengths_mask(lengths.to(x.device), x.shape[1]).unsqueeze(-1).to(x.dtype)
        for i, (f, b) in enumerate(zip(self.fwd, self.bwd)):
            if i:
                x = self.drop(x)
            x = torch.cat([f(x)[0], reverse_padded(b(reverse_padded(x, lengths))[0], lengths)], -1) * keep
        return x


class StatesWithCaseHead:
    """``forward`` and ``hidden_states`` of a word tagger whose ``_states(ids, mask)`` gives the
    input of its softmax ``out`` and the words' own embeddings, with an optional case head
    ``case_out`` (None without one) on both, and dropout ``drop``: T-BRNN and DRNN-LWMA share them."""

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                cases: torch.Tensor | None = None, return_case: bool = False):
        """ids ``[B,T]`` words (no end token), mask ``[B,T]`` -> logits ``[B,T,len(LABELS)]``;
        with ``return_case`` (a case head), also the case logits ``[B,T,len(CASES)]``.
        ``cases`` (training targets) is not read here."""
        if return_case:
            f, case_logits = self.hidden_states(ids, mask, return_case=True)
            return self.out(self.drop(f)), case_logits
        return self.out(self.drop(self.hidden_states(ids, mask)))

    def hidden_states(self, ids: torch.Tensor, mask: torch.Tensor, return_case: bool = False):
        """The input of the softmax layer ``out`` ``[B,T,hidden_dim]``: the lexical hidden state a
        two-stage model reads; with ``return_case`` (a case head), also the case logits (a second
        stage passes them on)."""
        if return_case and self.case_out is None:
            raise ValueError("this model has no case head")
        f, e = self._states(ids, mask)
        if not return_case:
            return f
        # f_t is made to decide the mark after word t (it leans on word t+1); the word's own
        # embedding beside it says what the word is, which its case mostly depends on
        return f, self.case_out(self.drop(torch.cat([f, e], -1)))


def acoustic_inputs(feats: torch.Tensor, missing: torch.Tensor | None) -> torch.Tensor:
    """Per-word acoustic input ``[B,T,F+1]``: ``feats [B,T,F]`` with the rows of words
    that lack acoustic evidence (``missing [B,T]`` True) set to 0, and the missing flag
    (0/1) as the last column; so whatever values such rows held never reach a model."""
    if missing is None:
        missing = torch.zeros(feats.shape[:2], dtype=torch.bool, device=feats.device)
    f = feats.masked_fill(missing.unsqueeze(-1), 0.0)
    return torch.cat([f, missing.unsqueeze(-1).to(f.dtype)], -1)
