"""Input featurizers: how the words of a batch become a model's input tensors.

A model class names what it reads with ``input_kind`` (default ``words``); the engine builds
the featurizer of that kind here. Every featurizer encodes words as *one integer id per
word*, so slicing, batching, windowed decoding and the slice cache are the same for every
model; only ``tensors``, the keyword arguments of ``model.forward``, differs:

=========== ======================================= ==========================================
kind        one id per word means                   ``model(**inputs)`` receives
=========== ======================================= ==========================================
words       vocabulary id (``<unk>`` = 1)           ``ids [B,T]``, ``mask [B,T]``
vectors     row of a pretrained vector set (0 pad,  ``vectors [B,T,D]`` (fixed), ``mask``
            1 out-of-vocabulary default vector)
chars       word type (an open lexicon of spellings ``chars [B,C]``, ``char_mask [B,C]``,
            filled as words are encoded)            ``word_ends [B,T]`` (index of the space
                                                    after each word), ``mask``
wordpieces  word type (open lexicon, each type      ``pieces [B,S]``, ``piece_mask [B,S]``,
            tokenized once)                         ``word_last [B,T]`` (its last piece), ``mask``
words+feats vocabulary id, as ``words``; the        ``ids``, ``mask``, and with feature sets
            per-word features travel beside the     ``feats [B,T,F]`` (normalized, 0 where
            ids                                     missing) and ``feat_missing [B,T]``
wordpieces  word type, as ``wordpieces``; the       ``pieces``, ``piece_mask``, ``word_last``,
+feats      per-word features as ``words+feats``    ``mask``, ``feats``, ``feat_missing``
=========== ======================================= ==========================================

Logits are always ``[B,T,len(LABELS)]``, one row per word. ``state()`` (stored in checkpoints
under ``inputs``) rebuilds a featurizer. The word kinds are punct.engine.lexical_inputs, the
feature kinds punct.engine.feature_inputs; a new kind is a subclass of ``Inputs`` and one
line in INPUT_KINDS.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from punct.engine.feature_inputs import FeatureInputs, FeaturePart, PieceFeatureInputs
from punct.engine.lexical_inputs import CharInputs, Inputs, PieceInputs, VectorInputs, WordInputs, with_pretrained_words
from punct.engine.vocab import Vocabulary

__all__ = ["INPUT_KINDS", "CharInputs", "FeatureInputs", "Inputs", "PieceFeatureInputs", "PieceInputs", "VectorInputs",
           "WordInputs", "build_inputs", "input_kind", "inputs_from_checkpoint", "with_pretrained_words"]

INPUT_KINDS: dict[str, type] = {
    "words": WordInputs,
    "vectors": VectorInputs,
    "chars": CharInputs,
    "wordpieces": PieceInputs,
    "words+feats": FeatureInputs,
    "wordpieces+feats": PieceFeatureInputs,
}


def input_kind(model_cls: type) -> str:
    """What a model class reads (``words``, ``words+feats``, ``chars``, ``wordpieces``,
    ``vectors``): its ``input_kind``, ``words`` when it has none."""
    return getattr(model_cls, "input_kind", "words")


def build_inputs(model_cls: type, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any], data_dir=None,
                 vocab: Vocabulary | None = None):
    """The featurizer of ``model_cls``, built from the training texts (lists of words);
    ``words+feats`` and ``wordpieces+feats`` also read the training data directory
    ``data_dir`` and take what a stage-one model read as ``vocab`` (``words+feats``: its
    Vocabulary; ``wordpieces+feats``: its PieceInputs ``state()``) instead of building it."""
    from punct.errors import PunctError

    kind = input_kind(model_cls)
    if kind not in INPUT_KINDS:
        raise ValueError(f"model {model_cls.__name__} has unknown input_kind {kind!r}")
    if not issubclass(INPUT_KINDS[kind], FeaturePart):
        if getattr(cfg, "features", None):
            raise PunctError(f"model {cfg.model} reads {kind}, not per-word features: remove 'features' from its config")
        return INPUT_KINDS[kind].build(texts, cfg, model_args)
    if getattr(model_cls, "raw_features", False) and cfg.normalize_features:
        raise PunctError(f"model {cfg.model} reads feature values in their own units: set normalize_features: false")
    return INPUT_KINDS[kind].build(texts, cfg, model_args, data_dir=data_dir, vocab=vocab)


def inputs_from_checkpoint(ck: dict[str, Any]):
    """The featurizer stored in a checkpoint (checkpoints without ``inputs`` hold word ids)."""
    state = ck.get("inputs") or {"kind": "words"}
    kind = state.get("kind", "words")
    if kind not in INPUT_KINDS:
        from punct.errors import PunctError

        raise PunctError(f"checkpoint has unknown input kind {kind!r}")
    return INPUT_KINDS[kind].from_state(state, ck)
