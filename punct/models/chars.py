"""Character-level punctuation models after Gale and Parthasarathy (2017),
"Experiments in character-level neural network models for punctuation"
(Interspeech 2017). No comparable published F1 on IWSLT2011 test2011 (the
paper evaluates on its own data).

Input (punct.engine.inputs.CharInputs): the characters of the words, each
word followed by one space: the slot where its mark goes. A network computes
a state for every character; the mark after word t is read from the state at
the space after word t (``word_ends``), *plus a delay* of n characters for
the unidirectional models, so that they have read the first n characters
after the slot (the start of the next word) before deciding it. The output
is word-level ``[B,T,4]``, scored and decoded exactly like the word models.

My reading of the paper's five families, as implemented:

``char_delay_lstm``
    embedding -> stacked unidirectional LSTM; output at character i + delay
    is the tag of character i (the paper's "delayed" LSTM; delay n).
``char_ngram_lstm``
    the input at each character is the sum of the embeddings of all
    character n-grams (n = 1..max_n) ending at it, hashed into ``buckets``
    rows; then the delayed LSTM.
``char_cnn_highway``
    embedding -> convolutions of several widths centred on each character
    (concatenated, ReLU) -> one highway layer
    (y = g * ReLU(W x) + (1 - g) * x, g = sigmoid(W_g x)) -> delayed LSTM.
``char_dilated_cnn``
    embedding -> residual blocks of non-causal dilated convolutions with a
    gated activation, z = tanh(W_f * x) . sigmoid(W_g * x), x <- x + W_r z,
    dilations doubling per block (1, 2, 4, ...); no recurrence.
``char_bilstm``
    embedding -> stacked bidirectional LSTM (no delay needed).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from punct.text.labels import LABELS
from punct.models import register
from punct.models.layers import BiRNN, gather_positions


class _CharTagger(nn.Module):
    """Shared: character states -> word-level logits at the space after each word (+ delay)."""

    input_kind = "chars"
    delay = 0

    def char_states(self, chars: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, chars: torch.Tensor, char_mask: torch.Tensor, word_ends: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        """chars ``[B,C]``, char_mask ``[B,C]``, word_ends ``[B,T]``, mask ``[B,T]`` -> logits ``[B,T,4]``."""
        d = self.delay
        lengths = char_mask.sum(1)
        if d:
            chars = F.pad(chars, (0, d))  # padding characters after the last word: the delay reads them
            lengths = lengths + d
        h = self.char_states(chars, lengths)  # [B,C+d,F]
        return self.out(self.drop(gather_positions(h, word_ends + d)))


class _DelayedLSTM(_CharTagger):
    def _init_lstm(self, input_size: int, hidden_size: int, num_layers: int, dropout: float, delay: int,
                   bidirectional: bool = False) -> None:
        self.delay = delay
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            dropout=dropout if num_layers > 1 else 0.0, bidirectional=bidirectional)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_size * (2 if bidirectional else 1), len(LABELS))


@register("char_delay_lstm")
class CharDelayLSTM(_DelayedLSTM):
    """Unidirectional character LSTM whose decision at a slot waits ``delay`` characters."""

    @dataclass
    class Config:
        embedding_dim: int = 32
        hidden_size: int = 256
        num_layers: int = 2
        #: characters read past the slot before its tag is output
        delay: int = 8
        dropout: float = 0.2

    def __init__(self, vocab_size: int, embedding_dim: int = 32, hidden_size: int = 256, num_layers: int = 2,
                 delay: int = 8, dropout: float = 0.2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self._init_lstm(embedding_dim, hidden_size, num_layers, dropout, delay)

    def char_states(self, chars, lengths):
        return self.lstm(self.drop(self.embedding(chars)))[0]


@register("char_bilstm")
class CharBiLSTM(_CharTagger):
    """Bidirectional character LSTM read at the space after each word."""

    @dataclass
    class Config:
        embedding_dim: int = 32
        #: units per direction
        hidden_size: int = 256
        num_layers: int = 2
        dropout: float = 0.2

    def __init__(self, vocab_size: int, embedding_dim: int = 32, hidden_size: int = 256, num_layers: int = 2,
                 dropout: float = 0.2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.lstm = BiRNN("lstm", embedding_dim, hidden_size, num_layers, dropout)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden_size, len(LABELS))

    def char_states(self, chars, lengths):
        return self.lstm(self.drop(self.embedding(chars)), lengths)


@register("char_ngram_lstm")
class CharNgramLSTM(_DelayedLSTM):
    """Delay LSTM over the summed embeddings of the hashed 1..max_n-grams ending at each character."""

    @dataclass
    class Config:
        #: n-grams of 1..max_n characters ending at each character
        max_n: int = 4
        #: hash buckets of the n-gram embedding
        buckets: int = 65536
        embedding_dim: int = 64
        hidden_size: int = 256
        num_layers: int = 2
        delay: int = 8
        dropout: float = 0.2

    _MULT = 1000003  # odd multiplier of the rolling n-gram hash

    def __init__(self, vocab_size: int, max_n: int = 4, buckets: int = 65536, embedding_dim: int = 64,
                 hidden_size: int = 256, num_layers: int = 2, delay: int = 8, dropout: float = 0.2):
        super().__init__()
        self.max_n, self.buckets = max_n, buckets
        self.embedding = nn.Embedding(buckets * max_n, embedding_dim)
        self._init_lstm(embedding_dim, hidden_size, num_layers, dropout, delay)

    def ngram_ids(self, chars: torch.Tensor) -> torch.Tensor:
        """``[B,C,max_n]`` embedding rows: hashed n-gram ending at each character, one table slice per n."""
        out = []
        h = torch.zeros_like(chars)
        for n in range(1, self.max_n + 1):
            prev = F.pad(chars, (n - 1, 0))[:, : chars.shape[1]]  # the character n-1 positions back
            h = (h * self._MULT + prev + 1) % 2147483647
            out.append(h % self.buckets + (n - 1) * self.buckets)
        return torch.stack(out, -1)

    def char_states(self, chars, lengths):
        x = self.embedding(self.ngram_ids(chars)).sum(2)
        return self.lstm(self.drop(x))[0]


@register("char_cnn_highway")
class CharCNNHighway(_DelayedLSTM):
    """Delay LSTM over character convolutions of several widths and a highway layer."""

    @dataclass
    class Config:
        embedding_dim: int = 32
        #: convolution widths (odd: centred on the character) and filters of each
        widths: list = field(default_factory=lambda: [3, 5, 7])
        filters: int = 128
        hidden_size: int = 256
        num_layers: int = 1
        delay: int = 8
        dropout: float = 0.2

    def __init__(self, vocab_size: int, embedding_dim: int = 32, widths: list | None = None, filters: int = 128,
                 hidden_size: int = 256, num_layers: int = 1, delay: int = 8, dropout: float = 0.2):
        super().__init__()
        widths = list(widths or [3, 5, 7])
        if any(w % 2 == 0 for w in widths):
            raise ValueError("convolution widths must be odd")
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(embedding_dim, filters, w, padding=w // 2) for w in widths)
        F_ = filters * len(widths)
        self.hw_transform = nn.Linear(F_, F_)
        self.hw_gate = nn.Linear(F_, F_)
        self._init_lstm(F_, hidden_size, num_layers, dropout, delay)

    def char_states(self, chars, lengths):
        e = self.drop(self.embedding(chars)).transpose(1, 2)  # [B,E,C]
        x = torch.cat([F.relu(c(e)) for c in self.convs], 1).transpose(1, 2)  # [B,C,F]
        g = torch.sigmoid(self.hw_gate(x))
        x = g * F.relu(self.hw_transform(x)) + (1 - g) * x
        return self.lstm(self.drop(x))[0]


@register("char_dilated_cnn")
class CharDilatedCNN(_CharTagger):
    """Stack of dilated character convolutions with gated residual connections."""

    @dataclass
    class Config:
        embedding_dim: int = 32
        channels: int = 256
        #: residual blocks; block i has dilation 2**(i % cycle)
        blocks: int = 8
        cycle: int = 6
        width: int = 3
        dropout: float = 0.2

    def __init__(self, vocab_size: int, embedding_dim: int = 32, channels: int = 256, blocks: int = 8,
                 cycle: int = 6, width: int = 3, dropout: float = 0.2):
        super().__init__()
        if width % 2 == 0:
            raise ValueError("width must be odd")
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.inp = nn.Conv1d(embedding_dim, channels, 1)
        self.filt = nn.ModuleList()
        self.gate = nn.ModuleList()
        self.res = nn.ModuleList()
        for i in range(blocks):
            d = 2 ** (i % cycle)
            self.filt.append(nn.Conv1d(channels, channels, width, dilation=d, padding=d * (width // 2)))
            self.gate.append(nn.Conv1d(channels, channels, width, dilation=d, padding=d * (width // 2)))
            self.res.append(nn.Conv1d(channels, channels, 1))
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(channels, len(LABELS))

    def char_states(self, chars, lengths):
        keep = (torch.arange(chars.shape[1])[None, :] < lengths[:, None]).unsqueeze(1).float()  # [B,1,C]
        x = self.inp(self.drop(self.embedding(chars)).transpose(1, 2)) * keep
        for f, g, r in zip(self.filt, self.gate, self.res):
            z = torch.tanh(f(x)) * torch.sigmoid(g(x))
            x = (x + r(self.drop(z))) * keep  # padding stays zero, so it never leaks into a row
        return x.transpose(1, 2)
