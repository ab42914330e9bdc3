"""punct.engine.decode: windows that follow predicted sentence ends at a bounded cost, punctuated
text, the decoding window of a config, and the tuning of an ensemble's weights and of a
decision bias on a dev set (the overall F1 they maximize counted as the scorer does)."""
import numpy as np
import pytest
import torch

from punct.engine.decode import predict_streams, punctuated_text
from punct.engine.infer import accept_count
from punct.text.labels import LABELS, label_id
from punct.text.words import Utterance, Word

O, C, P, Q = (label_id(x) for x in ("O", "COMMA", "PERIOD", "QUESTION"))


def test_accept_count():
    assert accept_count([O, P, O, C, O], at_end=False) == 2  # up to the last sentence end
    assert accept_count([O, Q, P, O, O], at_end=False) == 3
    assert accept_count([O, O, O, O, P], at_end=False) == 4  # last word lacks right context
    assert accept_count([O, O, O, O], at_end=False) == 3
    assert accept_count([O, O, O, O], at_end=True) == 4
    # a sentence end early in the window: at least half the window is accepted
    assert accept_count([P, O, O, O, O, O, O, O], at_end=False) == 4
    assert accept_count([O, O, P, O, O, O, O, O], at_end=False) == 4
    assert accept_count([O, O, O, P, O, O, O, O], at_end=False) == 4
    assert accept_count([O, O, O, O, P, O, O, O], at_end=False) == 5


class EndsAtStart(torch.nn.Module):
    """Predicts PERIOD after the first word of every window only (as an untrained model may)."""

    def __init__(self):
        super().__init__()
        self.windows = 0

    def forward(self, ids, mask, feats=None):
        self.windows += ids.shape[0]
        logits = torch.zeros(*ids.shape, 4)
        logits[..., O] = 1.0
        logits[:, 0, P] = 2.0
        return logits


def test_decoding_cost_is_bounded_when_sentence_ends_come_early():
    model = EndsAtStart()
    out = predict_streams(model, [list(range(1000))], window=100, batch_size=8)
    assert len(out[0]) == 1000
    # windows advance by half a window (50 words): 19 windows, not one per word
    assert model.windows == 19


class PeriodAfter(torch.nn.Module):
    """Predicts PERIOD after word id 5, else O; records the first word of each window."""

    def __init__(self):
        super().__init__()
        self.starts = []

    def forward(self, ids, mask, feats=None):
        self.starts.extend(ids[:, 0].tolist())
        logits = torch.zeros(*ids.shape, 4)
        logits[..., O] = 1.0
        logits[..., P] = (ids == 5).float() * 2.0
        return logits


def test_windows_follow_predicted_sentence_ends():
    model = PeriodAfter()
    s1 = [10, 11, 5, 12, 13, 14, 15, 16, 5, 17]
    s2 = [20, 21]
    out = predict_streams(model, [s1, s2, []], window=4, batch_size=8)
    assert out[0] == [O, O, P, O, O, O, O, O, P, O]
    assert out[1] == [O, O] and out[2] == []
    # s1: [10 11 5 12] -> accept 3; [12 13 14 15] no end -> accept 3; [15 16 5 17] reaches the end
    assert sorted(model.starts) == sorted([10, 20, 12, 15])


def test_punctuated_text():
    u = Utterance("u", [Word("hi", "COMMA"), Word("you", "QUESTION"), Word("ok", "O")])
    assert punctuated_text(u) == "hi, you? ok"


def test_decode_window_defaults_to_the_training_slice_length():
    import pytest

    from punct.engine.config import TrainConfig
    from punct.engine.infer import decode_window_of

    assert decode_window_of({"slice_length": 50}) == 50
    assert decode_window_of({"slice_length": 50, "decode_window": 0}) == 50
    assert decode_window_of({"slice_length": 50, "decode_window": 200}) == 200  # punctuator2: 50 to train, 200 to decode
    assert decode_window_of({}) == 200
    with pytest.raises(ValueError, match="decode_window"):
        TrainConfig(decode_window=1)


def test_overall_f1_counts_as_the_scorer_does():
    import random

    from punct.engine.decode import overall_f1
    from punct.text.labels import label_id
    from punct.scoring.score import score_labels

    rng = random.Random(3)
    for _ in range(20):
        ref = [rng.choice(LABELS) for _ in range(200)]
        hyp = [rng.choice(LABELS) if rng.random() < 0.5 else r for r in ref]
        want = score_labels(ref, hyp).overall.f1 or 0.0
        assert abs(overall_f1([label_id(x) for x in ref], [label_id(x) for x in hyp]) - want) < 1e-9
    assert overall_f1([0, 0], [0, 0]) == 0.0


def test_weight_grid():
    from punct.engine.decode import weight_grid
    from punct.errors import PunctError

    g = weight_grid(3, 0.1)
    assert len(g) == 36 and all(abs(sum(w) - 1) < 1e-9 and min(w) > 0 for w in g)
    assert weight_grid(2, 0.5) == [(0.5, 0.5)]
    with pytest.raises(PunctError, match="cannot give 3 members"):
        weight_grid(3, 0.5)
    with pytest.raises(PunctError, match="cannot give 2 members"):
        weight_grid(2, 0.3)


def test_tuned_bias_recovers_marks_that_the_argmax_misses():
    from punct.engine.decode import overall_f1, tune_class_bias
    from punct.engine.infer import biased_labels, class_bias

    # every mark is there but under-predicted: P(mark) 0.4 against P(O) 0.6
    ref = np.array([0, 1, 0, 2, 0, 3, 0, 0])
    probs = np.full((len(ref), 4), 0.0)
    probs[:, 0] = 0.95
    probs[ref == 0, 1:] = 0.05 / 3
    for i, r in enumerate(ref):
        if r:
            probs[i] = 0.0
            probs[i, 0], probs[i, r] = 0.6, 0.4
    assert overall_f1(ref, probs.argmax(-1)) == 0.0
    bias, f1, base = tune_class_bias(probs, ref, step=0.1, limit=2.0)
    assert base == 0.0 and f1 == 100.0
    # each mark's bias lies between the two log-odds it must separate
    assert all(np.log(0.6 / 0.4) < b < np.log(0.95 / (0.05 / 3)) for b in bias), bias
    assert list(biased_labels(probs, class_bias(bias))) == list(ref)
    # a perfect argmax keeps no bias: a change must raise F1
    onehot = np.eye(4)[ref] * 0.9 + 0.025
    assert tune_class_bias(onehot, ref) == ([0.0, 0.0, 0.0], 100.0, 100.0)
    assert list(biased_labels(probs)) == list(probs.argmax(-1))
