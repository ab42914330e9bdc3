"""punct.engine.infer, the one inference path: windows at their edges (input shorter than a
window, exactly one window, overlap at the accepted boundary, empty input), lazy feeding equal
to whole streams, posteriors only where asked and equal to the whole batch's, the
combination of an ensemble's posteriors, and parallel segments (workers > 1: the same labels
as one thread for a model whose labels do not depend on the window, and at the edges)."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
import torch

from punct.engine.infer import (SEGMENT_WINDOWS, Batch, accept_count, default_workers, iter_decode, run_batch,
                                run_streams, segments, sentence_end_label, weighted_mean)
from punct.errors import PunctError
from punct.text.labels import LABELS, PERIOD, QUESTION, label_id

O, P = label_id("O"), label_id(PERIOD)


class Scripted(torch.nn.Module):
    """Predicts PERIOD after every token whose id is in ``ends`` (O elsewhere) and records the
    windows it is given, so the tests see where windows start and end."""

    def __init__(self, ends=frozenset()):
        super().__init__()
        self.ends = set(ends)
        self.windows: list[list[int]] = []

    def forward(self, ids, mask):
        out = torch.zeros(*ids.shape, len(LABELS))
        for r in range(ids.shape[0]):
            n = int(mask[r].sum())
            self.windows.append(ids[r, :n].tolist())
            for t in range(n):
                out[r, t, P if int(ids[r, t]) in self.ends else O] = 3.0
        return out


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Tiny batches run on one torch thread (tests/conftest.py)."""


def decode_all(model, streams, window, batch_size=4):
    got = [[] for _ in streams]
    for acc in iter_decode(model, [iter(s) for s in streams], window, batch_size):
        got[acc.stream] += acc.labels
    return got


def test_input_shorter_than_a_window_is_one_window_taken_whole():
    m = Scripted()
    assert decode_all(m, [[5, 6, 7]], window=10) == [[O, O, O]]
    assert m.windows == [[5, 6, 7]]


def test_exactly_one_window_is_taken_whole():
    m = Scripted()
    assert decode_all(m, [list(range(3, 13))], window=10) == [[O] * 10]
    assert m.windows == [list(range(3, 13))]  # the window reaches the end: no second window


def test_one_token_more_than_a_window_overlaps_at_the_last_sentence_end():
    m = Scripted(ends={8})
    stream = list(range(3, 14))  # 11 tokens, window 10: a period after token 8 (the 6th)
    labels = decode_all(m, [stream], window=10)[0]
    assert m.windows == [stream[:10], stream[6:]]  # the next window starts after the accepted end
    assert labels == [O] * 5 + [P] + [O] * 5 and len(labels) == len(stream)


def test_no_sentence_end_leaves_the_last_token_to_the_next_window():
    m = Scripted()
    stream = list(range(3, 15))
    decode_all(m, [stream], window=5)
    assert m.windows[0] == stream[:5] and m.windows[1][0] == stream[4]  # the last token lacked right context
    assert accept_count([O] * 5, at_end=False) == 4


def test_an_early_end_still_accepts_half_a_window():
    m = Scripted(ends={3})
    stream = list(range(3, 23))
    decode_all(m, [stream], window=10)
    assert m.windows[1][0] == stream[5]  # not stream[1]: at least half the window is accepted


def test_empty_input_and_empty_streams():
    m = Scripted()
    assert list(iter_decode(m, [], window=4)) == []
    assert decode_all(m, [[], [4, 5], []], window=4) == [[], [O, O], []]
    assert m.windows == [[4, 5]]
    labels, post = run_streams(m, [[], [4]], window=4, probs=True)
    assert labels == [[], [O]] and post[0].shape == (0, len(LABELS)) and post[1].shape == (1, len(LABELS))


def test_bad_window_and_batch_size_are_refused():
    with pytest.raises(ValueError):
        list(iter_decode(Scripted(), [[3]], window=1))
    with pytest.raises(ValueError):
        list(iter_decode(Scripted(), [[3]], window=4, batch_size=0))


@pytest.fixture(scope="module")
def tbrnn():
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(0)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8, "case_head": True})
    model = build_model("tbrnn", args, 40)
    with torch.no_grad():  # zero-initialised output layers predict O everywhere: shake them
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.7)
    return model.eval()


def test_lazy_feeding_equals_whole_streams_and_holds_a_window_at_most(tbrnn):
    rng = random.Random(1)
    streams = [[rng.randrange(3, 40) for _ in range(rng.randint(0, 300))] for _ in range(6)]
    whole, _ = run_streams(tbrnn, streams, window=17, batch_size=3)
    assert len({x for s in whole for x in s}) >= 3  # varied labels, so windows restart at varied places
    consumed = [0] * len(streams)
    given = [0] * len(streams)

    def feed(i):
        for x in streams[i]:
            consumed[i] += 1
            yield x

    got = [[] for _ in streams]
    for acc in iter_decode(tbrnn, [feed(i) for i in range(len(streams))], window=17, batch_size=3):
        assert consumed[acc.stream] - given[acc.stream] <= 17 + 1  # never more than a window of look-ahead
        given[acc.stream] += len(acc.labels)
        got[acc.stream] += acc.labels
    assert got == whole


def test_posteriors_of_the_asked_rows_equal_the_whole_batch_softmax(tbrnn):
    rng = np.random.default_rng(0)
    wins = [rng.integers(3, 40, n).tolist() for n in (12, 5, 9)]
    b = run_batch(tbrnn, wins, case=True)
    with torch.no_grad():
        ids = torch.zeros(3, 12, dtype=torch.long)
        mask = torch.zeros(3, 12, dtype=torch.bool)
        for r, w in enumerate(wins):
            ids[r, : len(w)], mask[r, : len(w)] = torch.tensor(w), True
        logits, case_logits = tbrnn(ids, mask, return_case=True)
    soft = torch.softmax(logits, -1).numpy()
    for r, w in enumerate(wins):
        assert b.labels[r] == logits[r, : len(w)].argmax(-1).tolist()
        np.testing.assert_array_equal(b.posteriors(r, 0, len(w)), soft[r, : len(w)])
        np.testing.assert_array_equal(b.posteriors(r, 2, 3)[0], soft[r, 2])
        assert b.cases(r, 0, len(w)) == case_logits[r, : len(w)].argmax(-1).tolist()
    both = b.posteriors(0, 0, 4, case=True)
    assert both.shape == (4, len(LABELS) + case_logits.shape[-1])
    np.testing.assert_allclose(both[:, len(LABELS):].sum(-1), 1.0, rtol=1e-5)


def test_a_model_trained_with_mark_weights_decodes_with_their_odds_taken_out(tbrnn, tmp_path):
    """load_model gives a model trained with mark_weights {QUESTION: 4} the offset -log 4 on the
    question logit: its posteriors are the raw ones with the question's odds divided by 4."""
    from punct.engine import checkpoint as ckpt
    from punct.text.labels import mark_offset
    from punct.engine.vocab import Vocabulary

    assert mark_offset(None) is None and mark_offset({"QUESTION": 1.0}) is None
    np.testing.assert_allclose(mark_offset({"QUESTION": 4.0}), [0, 0, 0, -np.log(4.0)], rtol=1e-6)
    vocab = Vocabulary.build([[f"w{i}" for i in range(37)]], min_count=1)
    base = {"model": "tbrnn", "model_args": {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8,
                                              "case_head": True},
            "vocab": vocab.to_list(), "labels": list(LABELS), "state_dict": tbrnn.state_dict()}
    plain, weighted = tmp_path / "plain.pt", tmp_path / "weighted.pt"
    ckpt.save(plain, dict(base, train_config={}))
    ckpt.save(weighted, dict(base, train_config={"mark_weights": {"QUESTION": 4.0}}))
    a, b = ckpt.load_model(plain)[0], ckpt.load_model(weighted)[0]
    assert a.punct_logit_offset is None and b.punct_logit_offset[3] < 0
    win = [np.random.default_rng(2).integers(3, 40, 15).tolist()]
    pa, pb = run_batch(a, win).posteriors(0, 0, 15), run_batch(b, win).posteriors(0, 0, 15)
    odds = pa[:, : len(LABELS)] / np.array([1.0, 1.0, 1.0, 4.0])
    np.testing.assert_allclose(pb[:, : len(LABELS)], odds / odds.sum(1, keepdims=True), atol=1e-6)


def test_numpy_posteriors_of_a_graph_are_a_softmax():
    logits = np.random.default_rng(1).normal(size=(2, 6, len(LABELS))).astype(np.float32)
    b = Batch(logits, None, [6, 3], is_torch=False)
    assert b.labels[1] == logits[1, :3].argmax(-1).tolist()
    p = b.posteriors(0, 1, 4)
    e = np.exp(logits[0, 1:4] - logits[0, 1:4].max(-1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(-1, keepdims=True), rtol=1e-6)
    assert p.dtype == np.float32


def test_weighted_mean_and_the_end_of_input_mark():
    a = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    b = np.array([[0.4, 0.3, 0.2, 0.1]], np.float32)
    np.testing.assert_allclose(weighted_mean([a, b], [0.25, 0.75]), [[0.325, 0.275, 0.225, 0.175]])
    assert weighted_mean([a, b], [0.25, 0.75]).dtype == np.float64
    p = np.zeros(len(LABELS))
    p[label_id(QUESTION)], p[label_id(PERIOD)] = 0.2, 0.1
    assert sentence_end_label(p) == QUESTION
    bias = np.zeros(len(LABELS))
    bias[label_id(PERIOD)] = 1.0
    assert sentence_end_label(p, bias) == PERIOD


# ----------------------------------------------------------------------------- parallel segments

def test_segments_tile_the_stream_with_context_on_each_side():
    assert segments(0, 10, 4) == [(0, 0, 0, 0)]
    assert segments(5, 10, 4) == [(0, 5, 0, 5)]
    assert segments(SEGMENT_WINDOWS * 10 * 2 - 1, 10, 2) == [(0, 79, 0, 79)]  # too short for two
    segs = segments(1000, 10, 3)
    assert len(segs) == 3
    assert [a for _, _, a, _ in segs] == [0, 333, 666] and [b for _, _, _, b in segs] == [333, 666, 1000]
    for lo, hi, a, b in segs:
        assert lo == max(0, a - 5) and hi == min(1000, b + 5)
    assert default_workers() >= 1 and default_workers(threads=10**6) == 1


def decode_workers(model, streams, window, workers, batch_size=4):
    got = [[] for _ in streams]
    for acc in iter_decode(model, [iter(s) for s in streams], window, batch_size, workers=workers):
        got[acc.stream] += acc.labels
    return got


@pytest.mark.parametrize("workers", [2, 3, 5])
def test_a_window_independent_model_gets_the_same_labels_from_any_number_of_workers(workers):
    rng = random.Random(0)
    ends = {5, 9, 17}
    streams = [[rng.randrange(3, 30) for _ in range(n)] for n in (0, 1, 7, 10, 11, 300, 997)]
    one = Scripted(ends)
    many = Scripted(ends)
    want = decode_workers(one, streams, window=10, workers=1)
    assert decode_workers(many, streams, window=10, workers=workers) == want
    assert [len(x) for x in want] == [len(s) for s in streams]
    assert {tuple(w) for w in many.windows} != {tuple(w) for w in one.windows}  # the long streams were cut
    lab1, post1 = run_streams(one, streams, window=10, batch_size=3, probs=True)
    lab2, post2 = run_streams(many, streams, window=10, batch_size=3, probs=True, workers=workers)
    assert lab1 == lab2 == want
    for a, b in zip(post1, post2):
        np.testing.assert_array_equal(a, b)  # posteriors of the kept rows of each window


def test_edges_empty_input_one_word_and_short_streams():
    m = Scripted({4})
    assert list(iter_decode(m, [], window=4, workers=2)) == []
    assert decode_workers(m, [[], [4], []], window=4, workers=2) == [[], [P], []]
    assert decode_workers(m, [[4, 5, 4]], window=10, workers=2) == [[P, O, P]]
    assert m.windows[-1] == [4, 5, 4]  # shorter than a window: one window, as in one thread
    with pytest.raises(ValueError):
        list(iter_decode(m, [[3]], window=4, workers=0))


def test_a_window_dependent_model_keeps_one_threads_labels_before_the_first_cut():
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(0)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8})
    model = build_model("tbrnn", args, 40)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.7)
    model.eval()
    rng = random.Random(2)
    stream = [rng.randrange(3, 40) for _ in range(400)]
    one = decode_workers(model, [stream], window=16, workers=1)[0]
    two = decode_workers(model, [stream], window=16, workers=2)[0]
    assert len(set(one)) > 1 and len(two) == len(one)
    cut = segments(400, 16, 2)[1][2]
    assert two[: cut - 16] == one[: cut - 16]  # the first segment's windows are one thread's until its end


@pytest.mark.parametrize("bias, problem", [
    ([1.0, 2.0], "2 bias values for 3 marks (one each for COMMA, PERIOD, QUESTION)"),
    ([1.0, float("nan"), 0.0], "bias values must be finite numbers"),
    ({"COMMA": 1.0, "EXCLAMATION": 1.0}, "unknown mark(s) ['EXCLAMATION'] in the bias"),
    ({"COMMA": "high"}, "bias values must be finite numbers"),
])
def test_bad_bias_is_an_error_naming_its_source(bias, problem):
    from punct.engine.infer import class_bias

    with pytest.raises(PunctError, match=re.escape(problem)) as e:
        class_bias(bias, source="w.json", what="--bias")
    assert "w.json" in str(e.value) and "--bias: " in str(e.value)
    assert class_bias({"PERIOD": 0.5}).tolist() == [0.0, 0.0, 0.5, 0.0]
