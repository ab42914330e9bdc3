"""punct.engine.inputs: the featurizer a model class reads (its input kind), built from the
training texts or read back from a checkpoint; a kind that does not fit is one line (the
featurizers themselves: test_lexical_inputs.py and test_feature_inputs.py)."""
from __future__ import annotations

import pytest

from punct.engine.inputs import (INPUT_KINDS, CharInputs, FeatureInputs, WordInputs, build_inputs, input_kind,
                                 inputs_from_checkpoint)
from punct.errors import PunctError
from punct.models import get_model_class


class Cfg:
    model = "tbrnn"
    min_count = 1
    max_vocab = 0
    features: list = []


def test_a_model_class_names_what_it_reads_and_words_by_default():
    assert input_kind(get_model_class("tbrnn")) == "words"
    assert input_kind(get_model_class("ta_brnn")) == "words+feats"
    assert input_kind(type("Plain", (), {})) == "words"
    assert INPUT_KINDS["words+feats"] is FeatureInputs


def test_the_featurizer_is_built_from_the_training_texts_and_read_back(tmp_path):
    f = build_inputs(get_model_class("tbrnn"), [["so", "we", "grew"], ["we", "grew"]], Cfg, {})
    assert isinstance(f, WordInputs) and {"so", "we", "grew"} <= set(f.vocab.words)
    back = inputs_from_checkpoint({"inputs": f.state(), "vocab": f.vocab.to_list()})
    assert isinstance(back, WordInputs) and back.vocab.words == f.vocab.words
    chars = CharInputs.build([["ab"]], Cfg, {})
    assert isinstance(inputs_from_checkpoint({"inputs": chars.state()}), CharInputs)


def test_per_word_features_for_a_model_that_reads_none_are_refused():
    class WithFeatures(Cfg):
        features = ["pause"]

    with pytest.raises(PunctError, match="model tbrnn reads words, not per-word features: remove 'features'"):
        build_inputs(get_model_class("tbrnn"), [["so"]], WithFeatures, {})


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="has unknown input_kind 'smells'"):
        build_inputs(type("Nose", (), {"input_kind": "smells"}), [["so"]], Cfg, {})
    with pytest.raises(PunctError, match="checkpoint has unknown input kind 'smells'"):
        inputs_from_checkpoint({"inputs": {"kind": "smells"}})
