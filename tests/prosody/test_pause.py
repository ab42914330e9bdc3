"""punct.prosody.pause: the pause features of timed words by hand, their caps, the segments of a
recording chained, finite and bounded on random input."""
import random

import numpy as np
import pytest

from punct.prosody.pause import PAUSE_CAP, PAUSE_FEATURES, pause_features
from punct.text.words import Utterance, Word


def col(feats, name):
    return feats[:, PAUSE_FEATURES.index(name)].tolist()


def test_hand_computed_example():
    u = Utterance("u", [
        Word("a", start=0.0, end=0.5),
        Word("b", start=0.7, end=1.0),   # 0.2 s after a
        Word("c", start=0.9, end=1.5),   # overlaps b: pause 0
        Word("d"),                       # no times
        Word("e", start=4.0, end=4.25, speaker="X"),
    ])
    f = pause_features([u])["u"]
    assert f.shape == (5, len(PAUSE_FEATURES)) and f.dtype == np.float32
    approx = lambda xs: pytest.approx(xs, abs=1e-6)  # noqa: E731
    assert col(f, "pause_before") == approx([PAUSE_CAP, 0.2, 0.0, 0.0, 0.0])
    assert col(f, "pause_after") == approx([0.2, 0.0, 0.0, 0.0, PAUSE_CAP])
    assert col(f, "duration") == approx([0.5, 0.3, 0.6, 0.0, 0.25])
    assert col(f, "edge_before") == [1, 0, 0, 0, 0]
    assert col(f, "edge_after") == [0, 0, 0, 0, 1]
    assert col(f, "segment_before") == [1, 0, 0, 0, 0]
    assert col(f, "segment_after") == [0, 0, 0, 0, 1]
    assert col(f, "untimed") == [0, 0, 0, 1, 0]
    assert col(f, "pause_before_unknown") == [0, 0, 0, 1, 1]
    assert col(f, "pause_after_unknown") == [0, 0, 1, 1, 0]
    assert col(f, "speaker_change_before") == [0, 0, 0, 0, 1]
    assert col(f, "speaker_change_after") == [0, 0, 0, 1, 0]
    assert col(f, "duration_per_letter") == approx([0.5, 0.3, 0.6, 0.0, 0.25])  # one letter each


def test_duration_per_letter_counts_letters_and_digits_only():
    u = Utterance("u", [Word("revenue", start=0.0, end=0.7), Word("q3's", start=0.8, end=1.1),
                        Word("--", start=1.2, end=1.4), Word("mhm", start=1.5, end=3.9)])
    f = pause_features([u])["u"]
    # 7 letters; q, 3 and s (the apostrophe is not one); none (at least 1); capped at 2 s first
    assert col(f, "duration_per_letter") == pytest.approx([0.1, 0.1, 0.2, 2.0 / 3], abs=1e-6)


def test_caps():
    u = Utterance("u", [Word("a", start=0.0, end=3.0), Word("b", start=10.0, end=10.1)])
    f = pause_features([u], cap=1.5, duration_cap=1.0)["u"]
    assert col(f, "pause_after")[0] == 1.5 and col(f, "pause_before")[0] == 1.5
    assert col(f, "duration") == pytest.approx([1.0, 0.1])


def test_segments_of_a_recording_are_chained():
    s2 = Utterance("r-2", [Word("c", start=5.0, end=5.5), Word("d", start=5.5, end=6.0)], recording="r", speaker="B")
    s1 = Utterance("r-1", [Word("a", start=1.0, end=2.0), Word("b", start=2.0, end=4.25)], recording="r", speaker="A")
    other = Utterance("q-1", [Word("x", start=0.0, end=1.0)], recording="q")
    f = pause_features([s2, other, s1])
    assert set(f) == {"r-1", "r-2", "q-1"}
    assert col(f["r-1"], "pause_after") == pytest.approx([0.0, 0.75])
    assert col(f["r-2"], "pause_before") == pytest.approx([0.75, 0.0])
    assert col(f["r-1"], "segment_after") == [0, 1] and col(f["r-1"], "edge_after") == [0, 0]
    assert col(f["r-2"], "segment_before") == [1, 0] and col(f["r-2"], "edge_before") == [0, 0]
    assert col(f["r-1"], "speaker_change_after") == [0, 1]
    assert col(f["r-1"], "edge_before") == [1, 0] and col(f["r-2"], "edge_after") == [0, 1]
    assert col(f["q-1"], "edge_before") == [1] and col(f["q-1"], "edge_after") == [1]


def test_random_input_is_finite_and_bounded():
    rng = random.Random(3)
    utts = []
    for i in range(20):
        words = []
        for _ in range(rng.randint(0, 30)):
            s = rng.uniform(0, 100) if rng.random() > 0.2 else None
            e = (s + rng.uniform(-0.5, 5)) if s is not None and rng.random() > 0.1 else None
            words.append(Word("w", start=s, end=e, speaker=rng.choice([None, "a", "b"])))
        utts.append(Utterance(f"u{i}", words, recording=rng.choice([None, "r1", "r2"])))
    feats = pause_features(utts)
    assert set(feats) == {u.id for u in utts}
    for u in utts:
        f = feats[u.id]
        assert f.shape == (len(u.words), len(PAUSE_FEATURES))
        assert np.isfinite(f).all() and (f >= 0).all() and (f <= PAUSE_CAP).all()


def test_duplicate_ids_rejected():
    with pytest.raises(ValueError, match="duplicate"):
        pause_features([Utterance("u", [Word("a")]), Utterance("u", [Word("b")])])
