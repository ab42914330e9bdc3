"""Model registry: ``build_model(name, cfg, vocab_size)`` for every model family.

A model is a module under ``punct/models/`` that defines an ``nn.Module`` whose
constructor arguments are its config (plus ``vocab_size``), with a nested
``Config`` dataclass listing those arguments and their defaults, decorated with
``@register("name")``. Adding a model = that module + one line in MODEL_MODULES
+ a YAML file under ``conf/``.

Importing this package does not import torch: model modules are imported the
first time their name is asked for.

A word model's ``forward(ids, mask, feats=None)`` takes word ids ``[B,T]`` (the
words only, no end token: a model that wants ``</s>`` appends it itself), a
bool mask ``[B,T]`` (True on words, padding at the end) and optional per-word
features ``[B,T,F]``, and returns logits ``[B,T,len(LABELS)]`` where position
t is the mark AFTER word t.

A model that reads something else than word ids says so with a class
attribute ``input_kind`` (``vectors``, ``chars``, ``wordpieces``; default
``words``); its ``forward`` takes the keyword arguments that featurizer builds
(punct.engine.inputs) and returns the same word-level logits, so training,
decoding, scoring and checkpoints are shared. ``vocab_size`` is then the
featurizer's ``input_size`` (characters, word pieces, vector dimension). Two
optional hooks: ``training_loss(y, **inputs)`` (summed loss over words with a
target, y = -100 elsewhere) replaces cross-entropy, and ``trainer = "fit"`` with
``fit(streams)`` marks a model estimated by counting (punct.engine.train).

Acoustic and fusion models (``input_kind = "words+feats"``) also take
``feats [B,T,F]`` and ``feat_missing [B,T]`` (punct.engine.inputs.FeatureInputs)
and get ``feature_names`` in their arguments; ``target_map`` trains a model on
mapped labels (the sentence-boundary models of punct.models.acoustic); a
second stage (punct.models.twostage) has ``stage1_models`` and is built on the
checkpoint of the training config's ``init_from``.
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable, Mapping

#: Special tokens: every vocabulary starts with these, in this order, so models
#: can rely on the ids without seeing the vocabulary.
PAD, UNK, EOS = "<pad>", "<unk>", "</s>"
PAD_ID, UNK_ID, EOS_ID = 0, 1, 2
SPECIALS: tuple[str, ...] = (PAD, UNK, EOS)

#: model name -> module that registers it (imported lazily).
MODEL_MODULES: dict[str, str] = {
    "tbrnn": "punct.models.tbrnn",
    "tbrnn_pre": "punct.models.tbrnn",
    "tlstm": "punct.models.tlstm",
    "drnn_lwma": "punct.models.drnn_lwma",
    "drnn_lwma_pre": "punct.models.drnn_lwma",
    "lmc": "punct.models.lmc",
    "transformer_tagger": "punct.models.transformer",
    "char_delay_lstm": "punct.models.chars",
    "char_ngram_lstm": "punct.models.chars",
    "char_cnn_highway": "punct.models.chars",
    "char_dilated_cnn": "punct.models.chars",
    "char_bilstm": "punct.models.chars",
    "hidden_event_lm": "punct.models.ngram",
    "crf": "punct.models.crf",
    "tlstm_p": "punct.models.tlstm",
    "ta_brnn": "punct.models.twostage",
    "ta_lstm": "punct.models.twostage",
    "ta_drnn": "punct.models.twostage",
    "ta_transformer": "punct.models.twostage",
    "che_pause": "punct.models.acoustic",
    "che_ppe": "punct.models.acoustic",
}

#: model name -> class; filled by @register when a model module is imported.
MODELS: dict[str, type] = {}


def register(name: str) -> Callable[[type], type]:
    """Class decorator: make a model class buildable as ``name``."""

    def deco(cls: type) -> type:
        if name in MODELS and MODELS[name] is not cls:
            raise ValueError(f"model {name!r} registered twice")
        if not dataclasses.is_dataclass(getattr(cls, "Config", None)):
            raise TypeError(f"model class {cls.__name__} needs a nested Config dataclass")
        MODELS[name] = cls
        return cls

    return deco


def model_names() -> list[str]:
    """Every registered model name, including those of modules not imported yet."""
    return sorted(set(MODEL_MODULES) | set(MODELS))


def get_model_class(name: str) -> type:
    """The class registered as ``name`` (imports its module on first use)."""
    from punct.errors import PunctError

    if name not in MODELS and name in MODEL_MODULES:
        importlib.import_module(MODEL_MODULES[name])
    if name not in MODELS:
        raise PunctError(f"unknown model {name!r} (known: {', '.join(model_names())})")
    return MODELS[name]


def model_config(name: str, cfg: Mapping[str, Any] | None, where: str = "model_args") -> Any:
    """Check ``cfg`` against the model's Config dataclass (unknown key = error) and fill defaults."""
    from punct.config import from_dict

    return from_dict(get_model_class(name).Config, dict(cfg or {}), where)


def resolved_model_args(name: str, cfg: Mapping[str, Any] | None) -> dict[str, Any]:
    """The model's full argument dict (defaults filled in), as saved in checkpoints."""
    return dataclasses.asdict(model_config(name, cfg))


def build_model(name: str, cfg: Mapping[str, Any] | None, vocab_size: int):
    """Build model ``name`` with arguments ``cfg`` (a dict, checked) for ``vocab_size`` word ids."""
    args = resolved_model_args(name, cfg)
    return get_model_class(name)(vocab_size=vocab_size, **args)
