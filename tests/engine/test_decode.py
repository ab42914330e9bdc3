import torch

from punct.engine.decode import predict_streams, punctuated_text
from punct.engine.infer import accept_count
from punct.text.labels import label_id
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
