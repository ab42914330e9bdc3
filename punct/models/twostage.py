"""Two-stage models (Tilk and Alumäe 2015, 2016): a lexical model trained on a large
text corpus, then a second stage trained on pause-annotated speech.

Stage one is a finished lexical model (T-BRNN for TA-BRNN, T-LSTM for TA-LSTM, DRNN-LWMA
for ``ta_drnn``),
named by the training config's ``init_from`` (punct.engine.start). Stage two
keeps it (fixed with ``freeze: true``), drops its output layer and reads its
hidden state h1_t (the input of its softmax: T-BRNN's late-fusion output, T-LSTM's
LSTM state), optionally with the word's acoustic features a_t (the pause after
word t, where the mark decided at t goes):

    x_t = [h1_t ; a_t ; missing_t]        (without features: x_t = h1_t)
    s_t = GRU(x_t, s_{t-1})               one new unidirectional recurrent layer
    y_t = softmax(W_y s_t + b_y)          the mark after word t

With ``bidirectional`` the new layer also runs right to left (s_t = [GRU→ ; GRU←]), so the
mark after word t sees the pauses and durations of the words after it too: a short pause
followed by a long one a word later is more likely a boundary there than here.

as in punctuator2's ``GRUstage2`` (github.com/ottokart/punctuator2): TA-BRNN-p,
TA-LSTM-p with features ``[pause]``; TA-BRNN, TA-LSTM without (the stage-two
layer adapts the text model to speech transcripts without acoustic input).

Words without acoustic evidence (``feat_missing``: no times, an unmeasurable
pause; punct.prosody.features.missing_words) take the stage-one decision: with
``fallback`` their logits are stage one's own (its dropped output layer is kept,
fixed, for this only), so they never depend on made-up pause values, and a call
without any word times is punctuated exactly as the text model would.

``ta_transformer`` is the same second stage over a fine-tuned transformer tagger
(punct.models.transformer; conf/ta_mpnet_p.yaml over the MPNet tagger): h1_t is the
tagger's state of the last piece of word t, the input of its output layer, and its
inputs are word pieces with the words' features (``wordpieces+feats``). Each second stage
passes its stage one's inputs through to stage one's ``hidden_states`` as they are, and
caches the fixed stage one's states keyed by the row of its input (``stage1_key``: word
ids, or word pieces). A stage one with a case head keeps it: ``return_case=True`` gives
its case logits unchanged beside the second stage's marks (the pauses change the marks only).

The checkpoint is self-contained: ``model_args["stage1"]`` holds the stage-one
model's name and arguments (and where it came from), the state dict holds its
weights under ``stage1.``, the vocabulary is its vocabulary, and the checkpoint
keeps its training config as ``stage1_train_config``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from punct.text.labels import LABELS
from punct.models import build_model, register
from punct.models.layers import BiRNN, acoustic_inputs


class TwoStage(nn.Module):
    """The second stage over a stage-one lexical model (see the module docstring)."""

    input_kind = "words+feats"
    #: registered model names this second stage can be built on (punct.engine.start checks)
    stage1_models: tuple[str, ...] = ()

    @dataclass
    class Config:
        #: units of the new recurrent layer (punctuator2's stage two: the stage-one size)
        hidden_size: int = 256
        #: the new recurrent layer: gru (Tilk and Alumäe 2016) or lstm
        cell: str = "gru"
        #: dropout on the stage-two input and output (the papers used none)
        dropout: float = 0.0
        #: words without acoustic evidence take the stage-one decision
        fallback: bool = True
        #: the new layer reads both ways (the papers' is unidirectional; see the module docstring)
        bidirectional: bool = False
        #: the feature columns, in input order (set by the engine from the featurizer; [] = text only)
        feature_names: list = field(default_factory=list)
        #: the stage-one model: {"model": name, "model_args": {...}, "source": path} (set by the engine)
        stage1: dict = field(default_factory=dict)

    def __init__(self, vocab_size: int, hidden_size: int = 256, cell: str = "gru", dropout: float = 0.0,
                 fallback: bool = True, feature_names: list | tuple = (), stage1: dict | None = None,
                 bidirectional: bool = False):
        super().__init__()
        if not stage1 or "model" not in stage1:
            raise ValueError(f"{type(self).__name__} needs its stage-one model (init_from in the training config)")
        if stage1["model"] not in self.stage1_models:
            raise ValueError(f"{type(self).__name__} builds on {' or '.join(self.stage1_models)}, not {stage1['model']}")
        if cell not in ("gru", "lstm"):
            raise ValueError(f"cell must be gru or lstm, got {cell!r}")
        stage1_args = dict(stage1.get("model_args") or {})
        # a full stage one's weights come from its checkpoint, not from a package; an adapter
        # stage one's file holds only its trained part, so its encoder is loaded as it trained
        if "pretrained" in stage1_args and not stage1_args.get("adapter"):
            stage1_args["pretrained"] = False
        self.stage1 = build_model(stage1["model"], stage1_args, vocab_size)
        self.feature_names = list(feature_names)
        self.fallback = fallback
        n_in = self.stage1.hidden_dim + (len(self.feature_names) + 1 if self.feature_names else 0)
        self.bidirectional = bool(bidirectional)
        if self.bidirectional:  # each row's backward pass starts at its own last word (no padding read)
            self.rnn = BiRNN(cell, n_in, hidden_size)
        else:
            self.rnn = (nn.GRU if cell == "gru" else nn.LSTM)(n_in, hidden_size, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_size * (2 if self.bidirectional else 1), len(LABELS))

    # -- stage one ------------------------------------------------------------
    #: stage one's log-odds correction when it trained with mark_weights (punct.text.labels.mark_offset,
    #: as decoding applies it): the fallback takes its decisions as stage one decodes alone
    stage1_offset: torch.Tensor | None = None

    def set_stage1_marks(self, stage1_train_config: dict | None, stage1_bias: dict | None = None,
                         own_bias: dict | None = None) -> None:
        """Take stage one's ``mark_weights`` (from its training config) out of its fallback logits,
        and give them stage one's decision bias (``stage1_bias``, net of this model's own
        ``own_bias``, which decoding adds to every word's logits): the fallback words are then
        labelled as stage one labels them alone."""
        import numpy as np

        from punct.text.labels import bias_offset, mark_offset

        own = bias_offset(own_bias)
        parts = [x for x in (mark_offset((stage1_train_config or {}).get("mark_weights")), bias_offset(stage1_bias),
                             None if own is None else -own) if x is not None]
        self.stage1_offset = torch.from_numpy(np.sum(parts, axis=0, dtype=np.float32)) if parts else None

    def load_stage1(self, state_dict: dict) -> None:
        """Copy a stage-one checkpoint's weights into ``stage1``."""
        self.stage1.load_state_dict(state_dict)

    def freeze_stage1(self) -> None:
        """Keep stage one fixed: no gradients, always in eval mode (no dropout)."""
        for p in self.stage1.parameters():
            p.requires_grad_(False)
        self.stage1.eval()

    @property
    def stage1_frozen(self) -> bool:
        return not any(p.requires_grad for p in self.stage1.parameters())

    def cache_stage1(self, max_mb: float) -> None:
        """Remember the fixed stage one's hidden states of every row seen, up to MAX_MB
        (training: the same slices come back every epoch, so later epochs run stage two only).
        A row's states depend on its input alone (each row is read within its own length), so
        a row's stage-one input (``stage1_key``: word ids, or word pieces) is its key. Only for
        a frozen stage one; ``cache_stage1(0)`` turns it off."""
        if max_mb and not self.stage1_frozen:
            raise ValueError("cache_stage1 needs a frozen stage one (freeze_stage1)")
        self._h1_cache: dict[bytes, torch.Tensor] | None = {} if max_mb else None
        self._h1_cache_left = int(max_mb * 2**20)
        self.h1_cache_hits = self.h1_cache_misses = 0

    #: the stage-one input and its mask whose row keys the cache of stage-one states
    stage1_key: tuple[str, str] = ("ids", "mask")

    @property
    def stage1_case(self) -> bool:
        """Whether stage one has a case head (its case logits pass through: ``return_case``)."""
        return getattr(self.stage1, "case_out", None) is not None

    @property
    def case_head(self) -> bool:
        """A case head to the outside (punct.engine.soft_labels, restore): stage one's, passed through."""
        return self.stage1_case

    def _run_stage1(self, s1: dict[str, torch.Tensor]) -> torch.Tensor:
        """Stage one's states ``[B,T,H]``, with its case logits after them ``[B,T,H+C]`` when it has a case head."""
        if not self.stage1_case:
            return self.stage1.hidden_states(**s1)
        return torch.cat(self.stage1.hidden_states(**s1, return_case=True), -1)

    def _stage1_states(self, s1: dict[str, torch.Tensor]) -> torch.Tensor:
        """``_run_stage1`` of the stage-one inputs ``s1`` (keyword arguments of its
        ``hidden_states``; ``mask`` among them), through the cache when it is on."""
        if not self.stage1_frozen:
            return self._run_stage1(s1)
        cache = getattr(self, "_h1_cache", None)
        if cache is None:
            with torch.no_grad():
                return self._run_stage1(s1)
        key_in, key_mask = (s1[k] for k in self.stage1_key)
        key_lengths = key_mask.sum(1).tolist()
        lengths = s1["mask"].sum(1).tolist()
        keys = [key_in[b, :n].numpy().tobytes() for b, n in enumerate(key_lengths)]
        if all(k in cache for k in keys):
            self.h1_cache_hits += len(keys)
            width = next(iter(cache[k] for k in keys)).shape[-1] if keys else self.stage1.hidden_dim
            h1 = torch.zeros(*s1["mask"].shape, width)
            for b, (k, n) in enumerate(zip(keys, lengths)):
                h1[b, :n] = cache[k]
            return h1
        with torch.no_grad():
            h1 = self._run_stage1(s1)
        self.h1_cache_misses += len(keys)
        for b, (k, n) in enumerate(zip(keys, lengths)):
            size = n * h1.shape[-1] * h1.element_size()
            if k not in cache and size <= self._h1_cache_left:
                cache[k] = h1[b, :n].clone()
                self._h1_cache_left -= size
        return h1

    def train(self, mode: bool = True) -> "TwoStage":
        super().train(mode)
        if self.stage1_frozen:
            self.stage1.eval()
        return self

    # -- forward --------------------------------------------------------------
    def forward(self, ids: torch.Tensor, mask: torch.Tensor, feats: torch.Tensor | None = None,
                feat_missing: torch.Tensor | None = None, return_case: bool = False):
        """ids, mask ``[B,T]`` (+ feats ``[B,T,F]``, feat_missing ``[B,T]``) -> logits ``[B,T,len(LABELS)]``."""
        return self._stage2({"ids": ids, "mask": mask}, mask, feats, feat_missing, return_case)

    def _stage2(self, s1: dict[str, torch.Tensor], mask: torch.Tensor, feats: torch.Tensor | None,
                feat_missing: torch.Tensor | None, return_case: bool):
        """The second stage over stage one's states of ``s1`` (its keyword inputs) -> logits
        ``[B,T,len(LABELS)]``; with ``return_case``, also stage one's case logits (fixed)."""
        if return_case and not self.stage1_case:
            raise ValueError("this model has no case head (its stage one has none)")
        states = self._stage1_states(s1)
        h1 = states[..., : self.stage1.hidden_dim]
        x = h1
        if self.feature_names:
            if feats is None:
                raise ValueError(f"{type(self).__name__} reads features {self.feature_names}: feats missing")
            x = torch.cat([h1, acoustic_inputs(feats, feat_missing)], -1)
        if self.bidirectional:
            s = self.rnn(self.drop(x), mask.sum(1))
        else:
            s = self.rnn(self.drop(x))[0]  # unidirectional: padding after a row never reaches it
        logits = self.out(self.drop(s))
        if self.feature_names and self.fallback and feat_missing is not None:
            lexical = self.stage1.out(h1)  # stage one's own decision (its output layer, fixed)
            if self.stage1_offset is not None:
                lexical = lexical + self.stage1_offset.to(lexical.dtype)
            logits = torch.where(feat_missing.unsqueeze(-1), lexical, logits)
        if return_case:
            return logits, states[..., self.stage1.hidden_dim :]
        return logits


@register("ta_brnn")
class TABRNN(TwoStage):
    """TA-BRNN(-p): the second stage over a T-BRNN (Tilk and Alumäe 2016)."""

    stage1_models = ("tbrnn", "tbrnn_pre")

    @dataclass
    class Config(TwoStage.Config):
        pass


@register("ta_drnn")
class TADRNN(TwoStage):
    """The second stage over a DRNN-LWMA (Kim 2019; punct.models.drnn_lwma): its softmax input
    [s_t; c^1_t; ...; c^L_t] with the word's pause features, as TA-BRNN-p reads T-BRNN's
    late-fusion state (the deeper student of the general default, conf/student_drnn.yaml)."""

    stage1_models = ("drnn_lwma", "drnn_lwma_pre")

    @dataclass
    class Config(TwoStage.Config):
        pass


@register("ta_lstm")
class TALSTM(TwoStage):
    """TA-LSTM(-p): the second stage over a T-LSTM (Tilk and Alumäe 2015)."""

    stage1_models = ("tlstm",)

    @dataclass
    class Config(TwoStage.Config):
        pass


@register("ta_transformer")
class TATransformer(TwoStage):
    """The second stage over a fine-tuned transformer tagger (punct.models.transformer): stage
    one's state of each word's last piece (the input of its output layer) and the word's
    pause features, as TA-BRNN-p reads T-BRNN's; the accurate tier with pauses. Stage one's
    case head, if it has one, is passed through (``return_case``): the second stage changes
    only the marks. The stage-one cache is keyed by each row's word pieces."""

    input_kind = "wordpieces+feats"
    stage1_models = ("transformer_tagger",)
    stage1_key = ("pieces", "piece_mask")

    @dataclass
    class Config(TwoStage.Config):
        pass

    def forward(self, pieces: torch.Tensor, piece_mask: torch.Tensor, word_last: torch.Tensor, mask: torch.Tensor,
                feats: torch.Tensor | None = None, feat_missing: torch.Tensor | None = None,
                cases: torch.Tensor | None = None, return_case: bool = False):
        """The transformer's inputs (punct.engine.inputs.PieceFeatureInputs) -> logits
        ``[B,T,len(LABELS)]`` (and stage one's case logits with ``return_case``); ``cases``
        (case targets of training slices) is not read: stage one is fixed."""
        s1 = {"pieces": pieces, "piece_mask": piece_mask, "word_last": word_last, "mask": mask}
        return self._stage2(s1, mask, feats, feat_missing, return_case)
