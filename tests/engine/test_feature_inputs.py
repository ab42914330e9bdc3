"""Per-word features (input kind words+feats): read from a data directory, sliced and
cached in step with the words, normalized with the training statistics, windowed in
step with the ids when decoding."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from punct.data.datadir import load_utterances, write_datadir
from punct.engine.batching import batch_inputs, load_slices, make_slices
from punct.engine.decode import predict_streams
from punct.engine.inputs import FeatureInputs, inputs_from_checkpoint
from punct.engine.vocab import Vocabulary
from punct.errors import PunctError
from punct.prosody.features import write_features
from punct.text.words import Utterance, Word


class Cfg:
    min_count = 1
    max_vocab = 0
    features = ["pause"]
    feature_columns = ["p", "q"]
    normalize_features = True


NAMES = ["p", "q", "untimed"]


def make_dir(d, n_utts=3, n_words=25, seed=0):
    """A data directory whose feature p of word i of utterance k is 1000 k + i (easy to trace),
    q is random, and every 5th word is flagged untimed (missing)."""
    rng = np.random.default_rng(seed)
    utts, feats = [], {}
    for k in range(n_utts):
        words = [Word(f"w{(k + i) % 7}", "PERIOD" if i % 6 == 5 else "O") for i in range(n_words)]
        utts.append(Utterance(f"u{k}", words))
        m = np.zeros((n_words, 3), np.float32)
        m[:, 0] = 1000 * k + np.arange(n_words)
        m[:, 1] = rng.normal(2.0, 3.0, n_words)
        m[::5, 2] = 1.0
        feats[f"u{k}"] = m
    write_datadir(d, utts)
    write_features(d, "pause", feats, NAMES)
    return feats


def test_build_normalizes_with_training_words_that_have_evidence(tmp_path):
    feats = make_dir(tmp_path / "train")
    f = FeatureInputs.build([u.texts for u in load_utterances(tmp_path / "train")], Cfg, {}, data_dir=tmp_path / "train")
    all_rows = np.concatenate(list(feats.values()))
    keep = all_rows[:, 2] < 0.5
    np.testing.assert_allclose(f.mean, all_rows[keep, :2].mean(0), rtol=1e-5)
    np.testing.assert_allclose(f.std, all_rows[keep, :2].std(0), rtol=1e-5)
    assert f.model_args() == {"feature_names": ["p", "q"]}
    g = inputs_from_checkpoint({"inputs": f.state(), "vocab": f.vocab.to_list()})  # the checkpoint round trip
    assert isinstance(g, FeatureInputs) and g.columns == f.columns and g.digest() == f.digest()
    np.testing.assert_array_equal(g.mean, f.mean)


def test_tensors_normalize_and_zero_missing_words():
    f = FeatureInputs(Vocabulary.build([["a"]], 1), ["pause"], ["p"], mean=[1.0], std=[2.0])
    raw = np.array([[[5.0, 0.0], [7.0, 1.0], [0.0, 0.0]]], np.float32)  # word 2 missing, word 3 padding
    t = f.tensors(np.array([[3, 3, 0]]), np.array([2]), feats=raw)
    assert t["feats"][0, :, 0].tolist() == [2.0, 0.0, 0.0]
    assert t["feat_missing"].tolist() == [[False, True, True]]
    with pytest.raises(ValueError, match="reads features"):
        f.tensors(np.array([[3]]), np.array([1]))


def test_unknown_column_is_an_error(tmp_path):
    make_dir(tmp_path / "train")

    class Bad(Cfg):
        feature_columns = ["pitch"]

    with pytest.raises(PunctError, match="feature column 'pitch' is not in feature sets"):
        FeatureInputs.build([["w0"]], Bad, {}, data_dir=tmp_path / "train")


def test_features_are_sliced_in_step_with_words_and_cached(tmp_path):
    feats = make_dir(tmp_path / "train", n_utts=4, n_words=23)
    utts = load_utterances(tmp_path / "train")
    f = FeatureInputs.build([u.texts for u in utts], Cfg, {}, data_dir=tmp_path / "train")
    s = load_slices(tmp_path / "train", f, length=10, cache=tmp_path / "cache" / "train.npz")
    assert s.feats is not None and s.feats.shape == (*s.ids.shape, 3)
    # feature p names its word (1000 utt + position): every slice row is the word at that place of the stream
    stream_p = np.concatenate([feats[u.id][:, 0] for u in utts])
    stream_ids = np.concatenate([f.encode(u.texts) for u in utts])
    for r in range(len(s)):
        n = s.lengths[r]
        start = int(np.flatnonzero(stream_p == s.feats[r, 0, 0])[0])
        np.testing.assert_array_equal(s.feats[r, :n, 0], stream_p[start : start + n])
        np.testing.assert_array_equal(s.ids[r, :n], stream_ids[start : start + n])
        assert (s.feats[r, n:] == 0).all()
    # the missing flag rides along
    flags = np.concatenate([feats[u.id][:, 2] for u in utts])
    assert s.feats[0, : s.lengths[0], 2].tolist() == flags[: s.lengths[0]].tolist()
    # from the cache: the same arrays
    again = load_slices(tmp_path / "train", f, length=10, cache=tmp_path / "cache" / "train.npz")
    np.testing.assert_array_equal(again.feats, s.feats)
    # a batch: the model gets the features of exactly its words
    kw, mask, y = batch_inputs(f, s, np.array([1, 0]))
    assert kw["feats"].shape == (2, int(s.lengths[[1, 0]].max()), 2) and kw["feat_missing"].shape == mask.shape
    # changed features invalidate the cache
    feats["u0"][:, 0] += 0.5
    write_features(tmp_path / "train", "pause", feats, NAMES)
    changed = load_slices(tmp_path / "train", f, length=10, cache=tmp_path / "cache" / "train.npz")
    assert changed.feats[0, 0, 0] == s.feats[0, 0, 0] + 0.5


def test_make_slices_rejects_misaligned_features():
    with pytest.raises(ValueError, match="feature rows"):
        make_slices([3, 4, 5], [0, 0, 2], 2, feats=np.zeros((2, 1), np.float32))


class EchoPause(torch.nn.Module):
    """PERIOD where the (raw, unnormalized) feature is above 0.5; records every window's first feature."""

    def __init__(self):
        super().__init__()
        self.firsts = []

    def forward(self, ids, mask, feats=None, feat_missing=None):
        self.firsts.extend(feats[:, 0, 0].tolist())
        logits = torch.zeros(*ids.shape, 4)
        logits[..., 0] = 1.0
        logits[..., 2] = (feats[..., 0] > 0.5).float() * 2.0
        return logits


def test_decoding_windows_carry_the_features_of_their_words():
    f = FeatureInputs(Vocabulary.build([["a"]], 1), ["pause"], ["p"], normalize=False)
    stream = [3] * 10
    pause = np.arange(10, dtype=np.float32) / 100  # small pauses that name their word
    pause[[2, 8]] = 1.0
    raw = np.stack([pause, np.zeros(10, np.float32)], 1)
    model = EchoPause()
    out = predict_streams(model, [stream], window=4, batch_size=2, inputs=f, feats=[raw])
    assert out == [[0, 0, 2, 0, 0, 0, 0, 0, 2, 0]]
    # windows start after each accepted part: words 0, 3, 6 (as in tests/engine/test_decode.py)
    assert model.firsts == pytest.approx([0.0, 0.03, 0.06])
    with pytest.raises(PunctError, match="reads per-word features"):
        predict_streams(model, [stream], window=4, inputs=f)


def test_pause_files_without_a_column_the_model_reads_are_computed_anew(tmp_path, caplog):
    """A data directory whose stage-4 pause files predate a column (duration_per_letter) gets
    its pause features computed from its word times, with a warning, not an error."""
    import logging

    from punct.prosody.pause import PAUSE_FEATURES, pause_features

    words = [Word(w, "O", start=0.5 * i, end=0.5 * i + 0.3) for i, w in enumerate("so revenue grew".split())]
    utts = [Utterance("u", words)]
    write_datadir(tmp_path, utts)
    old = [c for c in PAUSE_FEATURES if c != "duration_per_letter"]
    write_features(tmp_path, "pause", {"u": np.zeros((3, len(old)), np.float32)}, old)
    f = FeatureInputs(Vocabulary.build([["so"]], 1), ["pause"], ["pause_after", "duration_per_letter"],
                      mean=[0.0, 0.0], std=[1.0, 1.0])
    with caplog.at_level(logging.WARNING):
        got = f.load_features(tmp_path)["u"]
    want = pause_features(load_utterances(tmp_path, require_labels=False))["u"]
    np.testing.assert_allclose(got[:, 1], want[:, PAUSE_FEATURES.index("duration_per_letter")], atol=1e-6)
    assert got[:, 1].tolist() == pytest.approx([0.15, 0.3 / 7, 0.075], abs=1e-6)
    assert any("pause.scp lacks duration_per_letter" in r.getMessage() for r in caplog.records)
    g = FeatureInputs(Vocabulary.build([["so"]], 1), ["pause"], ["pause_after"], mean=[0.0], std=[1.0])
    assert g.load_features(tmp_path)["u"][:, 0].tolist() == [0.0, 0.0, 0.0]  # the stored files, when they serve
