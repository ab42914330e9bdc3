"""punct.prosody.pooling: per-word pooling, speaker normalization, silent and unvoiced words."""
from __future__ import annotations

import json

import numpy as np
import pytest

from punct.prosody.pitch import PitchTrack
from punct.prosody.pooling import (WORD_FEATURES, Moments, ProsodyConfig, SpeakerStats, extract_raw, normalize,
                                   normalize_all, pool_utterance, word_frames)

sf = pytest.importorskip("soundfile")
pytest.importorskip("aubio")

I = {n: i for i, n in enumerate(WORD_FEATURES)}
HOP_S = 0.01


def test_word_frames():
    assert word_frames(0.0, 0.05, HOP_S, 100).tolist() == [0, 1, 2, 3, 4]
    assert word_frames(0.013, 0.031, HOP_S, 100).tolist() == [2, 3]
    assert word_frames(0.012, 0.014, HOP_S, 100).tolist() == [1]  # shorter than a frame: the nearest
    assert word_frames(5.0, 6.0, HOP_S, 100).tolist() == [99]  # past the end: the last frame
    assert word_frames(0.0, 1.0, HOP_S, 0).tolist() == []


def synthetic_track(n: int = 100):
    f0 = np.zeros(n, dtype=np.float32)
    voiced = np.zeros(n, dtype=bool)
    f0[10:40] = 100.0 * 2 ** (np.arange(30) * HOP_S * 12 / 12)  # rising 12 semitones per second
    voiced[10:40] = True
    energy = np.full(n, -30.0, dtype=np.float32)
    energy[60:80] = -90.0  # a silent stretch
    energy[40:60] = np.linspace(-40, -20, 20)  # getting louder
    return PitchTrack(f0, voiced), energy


def test_pool_raw_values_and_flags():
    track, energy = synthetic_track()
    cfg = ProsodyConfig()
    stats = SpeakerStats()
    raw = pool_utterance([(0.10, 0.40), (0.40, 0.60), (0.60, 0.80), (None, None)], track, energy, HOP_S, cfg,
                         stats, "s1")
    voiced_word, loud_word, silent_word, untimed_word = raw
    assert untimed_word[I["untimed"]] == 1.0 and untimed_word[I["unvoiced"]] == 1.0
    assert voiced_word[I["untimed"]] == 0.0
    final = normalize(raw, "s1", stats, cfg)
    assert np.all(final[3, :I["unvoiced"]] == 0.0) and np.all(np.isfinite(final))
    assert voiced_word[I["voiced_frac"]] == 1.0 and voiced_word[I["unvoiced"]] == 0.0
    assert abs(voiced_word[I["pitch_slope"]] - 12.0) < 0.01  # semitones per second
    assert abs(voiced_word[I["pitch_mean"]] - 12 * 0.145) < 0.01  # mean of 0 .. 0.29 s at 12 st/s
    assert loud_word[I["unvoiced"]] == 1.0 and loud_word[I["pitch_mean"]] == 0.0
    assert loud_word[I["energy_slope"]] == pytest.approx(20 / 19 / HOP_S)  # 20 dB over 19 frame steps
    assert silent_word[I["silent"]] == 1.0 and voiced_word[I["silent"]] == 0.0
    assert stats.pitch["s1"].n == 30 and stats.energy["s1"].n == 70


def test_normalize_is_a_speaker_z_score():
    cfg = ProsodyConfig()
    stats = SpeakerStats()
    stats.add("s", np.array([10.0, 14.0]), np.array([-40.0, -20.0]))  # pitch 12 +- 2 st, energy -30 +- 10 dB
    raw = np.zeros((2, len(WORD_FEATURES)))
    raw[0, [I["pitch_mean"], I["pitch_range"], I["energy_mean"], I["energy_max"]]] = [16.0, 4.0, -10.0, 0.0]
    raw[1, I["unvoiced"]] = 1.0
    raw[1, I["pitch_mean"]] = 99.0  # ignored for an unvoiced word
    out = normalize(raw, "s", stats, cfg)
    assert out[0, I["pitch_mean"]] == pytest.approx(2.0)
    assert out[0, I["pitch_range"]] == pytest.approx(2.0)
    assert out[0, I["energy_mean"]] == pytest.approx(2.0)
    assert out[0, I["energy_max"]] == pytest.approx(3.0)
    assert out[1, I["pitch_mean"]] == 0.0 and out[1, I["unvoiced"]] == 1.0
    assert out.dtype == np.float32


def test_stats_merge_and_json_round_trip():
    a, b, whole = SpeakerStats(), SpeakerStats(), SpeakerStats()
    x, y = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0])
    a.add("s", x, y)
    b.add("s", x * 2, y)
    whole.add("s", np.concatenate([x, x * 2]), np.concatenate([y, y]))
    a.merge(SpeakerStats.from_json(json.loads(json.dumps(b.to_json()))))
    assert a.pitch["s"].mean_sd(0.0) == pytest.approx(whole.pitch["s"].mean_sd(0.0))
    assert Moments().mean_sd(0.5) == (0.0, 0.5)  # no frames: defined values


def make_datadir(tmp_path, signals: dict[str, np.ndarray], times: dict[str, list[tuple[float, float]]]):
    d = tmp_path / "data"
    d.mkdir()
    wav, text, wt, u2s = [], [], [], []
    for utt in sorted(signals):
        sf.write(d / f"{utt}.wav", signals[utt], 16000)
        wav.append(f"{utt} {d / (utt + '.wav')}\n")
        text.append(f"{utt} " + " ".join(f"w{i}" for i in range(len(times[utt]))) + "\n")
        wt.append(f"{utt} " + " ".join(f"{s:.3f},{e:.3f}" for s, e in times[utt]) + "\n")
        u2s.append(f"{utt} spk\n")
    for name, lines in (("wav.scp", wav), ("text", text), ("word_times", wt), ("utt2spk", u2s)):
        (d / name).write_text("".join(lines))
    return d


def test_silent_and_unvoiced_files_give_flagged_finite_features(tmp_path):
    rate = 16000
    noise = (0.2 * np.random.default_rng(0).standard_normal(rate)).astype(np.float32)  # loud, no voicing
    d = make_datadir(tmp_path, {"a_silent": np.zeros(rate, dtype=np.float32), "b_noise": noise},
                     {"a_silent": [(0.1, 0.4), (0.5, 0.9)], "b_noise": [(0.1, 0.5), (0.5, 0.5), (0.6, 2.0)]})
    # a word the aligner could not place ("-", punct.data.datadir.UNTIMED)
    wt = (d / "word_times").read_text().replace("0.500,0.500", "-")
    (d / "word_times").write_text(wt)
    cfg = ProsodyConfig()
    raw, stats, report = extract_raw(d, cfg)
    feats = normalize_all(raw, {"a_silent": "spk", "b_noise": "spk"}, stats, cfg)
    assert report["words"] == 5 and report["unvoiced_words"] == 5 and report["silent_words"] == 2
    for m in feats.values():
        assert m.shape[1] == len(WORD_FEATURES)
        assert np.all(np.isfinite(m))
        assert np.all(m[:, I["unvoiced"]] == 1.0)
        assert np.all(m[:, [I["pitch_mean"], I["pitch_slope"], I["pitch_range"], I["voiced_frac"]]] == 0.0)
    assert np.all(feats["a_silent"][:, I["silent"]] == 1.0)
    assert feats["b_noise"][:, I["silent"]].tolist() == [0.0, 0.0, 0.0]
    assert feats["b_noise"][:, I["untimed"]].tolist() == [0.0, 1.0, 0.0]
    assert np.all(feats["b_noise"][1, :I["unvoiced"]] == 0.0)
    assert feats["b_noise"][0, I["energy_mean"]] > feats["a_silent"][0, I["energy_mean"]]
