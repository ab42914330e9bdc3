"""punct.scoring.significance: block confusions, metrics, bootstrap intervals, paired comparisons."""
import random

import numpy as np
import pytest

from punct.errors import PunctError
from punct.text.labels import LABELS, MARK_LABELS, O
from punct.scoring.score import SlotStream, aligned_slots, score_labels, score_streams
from punct.scoring.significance import block_confusions, bootstrap_intervals, metrics, paired_bootstrap
from punct.text.words import Utterance, Word

MARKS = list(MARK_LABELS)


def _labels(n, rng, p_mark=0.2):
    return [rng.choice(MARKS) if rng.random() < p_mark else O for _ in range(n)]


def _noisy(ref, rng, flip):
    """A hypothesis that replaces each label by a random one with probability ``flip``."""
    return [rng.choice(LABELS) if rng.random() < flip else r for r in ref]


def _streams(n_utts=6, n=700, flip=0.2, seed=0):
    rng = random.Random(seed)
    out = []
    for u in range(n_utts):
        ref = _labels(n, rng)
        out.append(SlotStream(f"u{u}", ref, _noisy(ref, rng, flip), [f"w{k}" for k in range(n)]))
    return out


def test_block_confusions_add_up_to_the_report_and_cut_inside_each_stream():
    streams = _streams(n_utts=3, n=250)
    blocks = block_confusions(streams, block_words=100)
    assert blocks.shape == (9, len(LABELS), len(LABELS))  # 100 + 100 + 50 slots per stream
    assert blocks[2].sum() == 50 and blocks[3].sum() == 100
    report = score_streams(streams)
    total = blocks.sum(0)
    assert total.tolist() == [[report.confusion[r][h] for h in LABELS] for r in LABELS]


def test_metrics_match_score_report():
    rng = random.Random(3)
    ref = _labels(3000, rng)
    hyp = _noisy(ref, rng, 0.3)
    report = score_labels(ref, hyp)
    m = metrics(block_confusions([SlotStream(None, ref, hyp, [])], 3000).sum(0))
    assert float(m["overall"]) == pytest.approx(report.overall.f1)
    assert float(m["ser"]) == pytest.approx(report.ser)
    for lab in MARK_LABELS:
        assert float(m[lab]) == pytest.approx(report.per_class[lab].f1)


def test_metrics_are_nan_where_the_report_has_none():
    conf = np.zeros((len(LABELS), len(LABELS)), dtype=np.int64)
    conf[LABELS.index(O), LABELS.index(O)] = 10
    m = metrics(conf)
    assert np.isnan(m["overall"]) and np.isnan(m["ser"])


def test_intervals_hold_the_point_and_shrink_with_more_data():
    small = bootstrap_intervals(_streams(n_utts=2, n=500), resamples=500, seed=1)
    large = bootstrap_intervals(_streams(n_utts=20, n=500), resamples=500, seed=1)
    for iv in (small, large):
        assert iv.low["overall"] < iv.point["overall"] < iv.high["overall"]
        assert iv.low["ser"] < iv.point["ser"] < iv.high["ser"]
    width = lambda iv: iv.high["overall"] - iv.low["overall"]  # noqa: E731
    assert width(large) < 0.6 * width(small)  # ten times the data: about a third of the width
    again = bootstrap_intervals(_streams(n_utts=2, n=500), resamples=500, seed=1)
    assert again.to_dict() == small.to_dict()  # the seed fixes the resamples


def test_a_perfect_hypothesis_has_a_zero_width_interval():
    streams = [SlotStream(s.utt, s.ref, list(s.ref), s.words) for s in _streams(n_utts=2, n=300)]
    iv = bootstrap_intervals(streams, resamples=200)
    assert iv.low["overall"] == iv.high["overall"] == 100.0
    assert iv.low["ser"] == iv.high["ser"] == 0.0


def _other(streams, flip, seed):
    """Another hypothesis over the same slots, each label replaced at random with probability ``flip``."""
    rng = random.Random(seed)
    return [SlotStream(s.utt, s.ref, _noisy(s.ref, rng, flip), s.words) for s in streams]


def test_paired_bootstrap_finds_a_real_difference_and_no_difference_against_itself():
    good = _streams(flip=0.1, seed=5)
    c = paired_bootstrap(good, _other(good, 0.3, 9), resamples=500)
    assert c.delta["overall"] > 10 and c.low["overall"] > 0 and c.p_value["overall"] < 0.01
    assert c.delta["ser"] < 0 and c.high["ser"] < 0
    same = paired_bootstrap(good, good, resamples=200)
    assert same.delta["overall"] == 0 and same.p_value["overall"] == 1.0
    assert same.low["overall"] == same.high["overall"] == 0.0


def test_paired_bootstrap_p_value_is_large_for_two_equally_good_systems():
    base = _streams(flip=0.2, seed=11)
    c = paired_bootstrap(base, _other(base, 0.2, 12), resamples=500)
    assert c.low["overall"] < 0 < c.high["overall"] or c.p_value["overall"] > 0.05


def test_paired_bootstrap_needs_the_same_words():
    a = _streams(n_utts=2, n=300)
    b = [SlotStream(a[0].utt, a[0].ref, a[0].hyp, a[0].words),
         SlotStream(a[1].utt, a[1].ref[:-1], a[1].hyp[:-1], a[1].words[:-1])]
    with pytest.raises(PunctError, match="utterance 'u1': 300 words in hypothesis A but 299 in B"):
        paired_bootstrap(a, b)


@pytest.mark.parametrize("kwargs, message", [
    ({"block_words": 0}, "block size must be at least 1"),
    ({"resamples": 0}, "at least 1 resample"),
    ({"level": 1.5}, "between 0 and 1"),
])
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(PunctError, match=message):
        bootstrap_intervals(_streams(n_utts=1, n=300), **kwargs)


def test_too_little_data_for_the_blocks_is_refused():
    with pytest.raises(PunctError, match="at least 2 blocks"):
        bootstrap_intervals(_streams(n_utts=1, n=80), block_words=100)


def test_aligned_slots_of_asr_words_are_the_hypothesis_words():
    ref = [Utterance("u1", [Word("so", label="COMMA"), Word("we", label=O), Word("grew", label="PERIOD")])]
    hyp = [Utterance("u1", [Word("so", label=O), Word("we", label=O), Word("grow", label=O), Word("up", label="PERIOD")])]
    streams, transfer = aligned_slots(ref, hyp)
    assert [s.hyp for s in streams] == [[O, O, O, "PERIOD"]]
    assert streams[0].ref[0] == "COMMA" and len(streams[0].ref) == 4
    assert transfer.hyp_words == 4
