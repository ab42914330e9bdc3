"""The training config: one dataclass for every model (the model's own
arguments are ``model_args``, checked against the model's Config dataclass)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TrainConfig:
    #: registered model name (punct.models.MODEL_MODULES)
    model: str = "tbrnn"
    #: the model's constructor arguments (its Config dataclass; unknown key = error)
    model_args: dict[str, Any] = field(default_factory=dict)
    #: adagrad | adam | sgd
    optimizer: str = "adagrad"
    lr: float = 0.02
    #: max L2 norm of the whole gradient (0: no clipping)
    clip_norm: float = 2.0
    #: slices per mini-batch
    batch_size: int = 128
    #: words per training slice (the model may add an end token)
    slice_length: int = 200
    #: keep the carried-over unfinished sentence in the loss of the first slice too
    tail_in_loss: bool = True
    #: a sentence longer than a slice: skip | cut
    long_sentences: str = "skip"
    #: vocabulary: words seen at least this often in training data
    min_count: int = 2
    #: vocabulary: at most this many words (0: no limit)
    max_vocab: int = 0
    max_epochs: int = 50
    #: stop after this many epochs without a better validation perplexity
    patience: int = 5
    #: torch intra-op threads
    threads: int = 2
    seed: int = 1
    #: write checkpoint.pt at least this often (and after every epoch); 0 = every batch
    checkpoint_minutes: float = 10.0
    #: slices per batch when computing validation perplexity/F1
    valid_batch_size: int = 128

    def check(self) -> None:
        if self.optimizer not in ("adagrad", "adam", "sgd"):
            raise ValueError(f"optimizer must be adagrad, adam or sgd, got {self.optimizer!r}")
        if self.long_sentences not in ("skip", "cut"):
            raise ValueError(f"long_sentences must be skip or cut, got {self.long_sentences!r}")
        for name in ("batch_size", "slice_length", "min_count", "max_epochs", "threads", "valid_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")

    def __post_init__(self) -> None:
        self.check()
