"""Every pitch tracker recovers synthesized tones and glides on punct's frame grid.

Tolerances (stated in TOLERANCE): Praat's and aubio's plain YIN are within 1% of
the true F0; aubio's yinfft within 4% (its spectral weighting biases low
voices upwards: 103 Hz for a 100 Hz tone). On a glide every tracker's time
offset must be under 8 ms: aubio reports the window that ends at the current
hop, 22-54 ms late at 16 kHz before punct.prosody.pitch corrects it.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from punct.errors import PunctError
from punct.prosody.pitch import TRACKERS, PitchConfig, get_tracker

pytest.importorskip("aubio")
pytest.importorskip("parselmouth")

RATE = 16000
HOP = 160
TOLERANCE = {"yinfft": 0.04, "yin": 0.01, "praat": 0.01}


def harmonic(f0: np.ndarray, amp: float = 0.3, n_harm: int = 1) -> np.ndarray:
    """A signal with instantaneous frequency ``f0`` (per sample) and ``n_harm`` harmonics (1/k amplitudes)."""
    phase = 2 * np.pi * np.cumsum(f0) / RATE
    x = sum(np.sin(k * phase) / k for k in range(1, n_harm + 1))
    return (amp * x / np.max(np.abs(x))).astype(np.float32)


@pytest.mark.parametrize("name", TRACKERS)
@pytest.mark.parametrize("freq", [110.0, 220.0, 330.0])
@pytest.mark.parametrize("n_harm", [1, 6])
def test_tone(name, freq, n_harm):
    x = harmonic(np.full(RATE, freq), n_harm=n_harm)
    tr = get_tracker(name, PitchConfig())
    track = tr.track(x, RATE, HOP)
    assert len(track.f0) == 1 + (len(x) - 1) // HOP
    assert track.voiced.mean() > 0.9
    est = float(np.median(track.f0[track.voiced]))
    assert abs(est - freq) / freq < TOLERANCE[name], (name, est)


@pytest.mark.parametrize("name", TRACKERS)
def test_glide_frequency_and_timing(name):
    seconds, f_lo, f_hi = 1.5, 110.0, 310.0
    t = np.arange(int(RATE * seconds)) / RATE
    slope = (f_hi - f_lo) / seconds
    x = harmonic(f_lo + slope * t, n_harm=4)
    track = get_tracker(name, PitchConfig()).track(x, RATE, HOP)
    grid = np.arange(len(track.f0)) * HOP / RATE
    truth = f_lo + slope * grid
    inner = (grid > 0.1) & (grid < seconds - 0.1) & track.voiced
    assert inner.sum() > 0.9 * ((grid > 0.1) & (grid < seconds - 0.1)).sum()
    rel = np.abs(track.f0[inner] - truth[inner]) / truth[inner]
    assert np.median(rel) < TOLERANCE[name]
    lag = -float(np.median(track.f0[inner] - truth[inner])) / slope  # seconds late (+) or early (-)
    assert abs(lag) < 0.008, f"{name}: estimates are {lag * 1000:.1f} ms late"


@pytest.mark.parametrize("name", TRACKERS)
def test_silence_and_noise_are_unvoiced(name):
    tr = get_tracker(name, PitchConfig())
    silent = tr.track(np.zeros(RATE, dtype=np.float32), RATE, HOP)
    assert not silent.voiced.any() and np.all(silent.f0 == 0)
    short = tr.track(np.zeros(10, dtype=np.float32), RATE, HOP)
    assert len(short.f0) == 1 and not short.voiced.any()
    assert len(tr.track(np.zeros(0, dtype=np.float32), RATE, HOP).f0) == 0


def test_aubio_gates_noise_out():
    noise = (0.3 * np.random.default_rng(1).standard_normal(RATE)).astype(np.float32)
    track = get_tracker("yinfft", PitchConfig()).track(noise, RATE, HOP)
    assert track.voiced.mean() < 0.05


def test_semitones_and_unknown_tracker():
    x = harmonic(np.full(RATE // 2, 200.0))
    st = get_tracker("praat").track(x, RATE, HOP).semitones(100.0)
    assert abs(np.median(st[st != 0]) - 12.0) < 0.1
    with pytest.raises(PunctError, match="unknown pitch tracker 'crepe'"):
        get_tracker("crepe")


@pytest.mark.skipif(os.environ.get("PUNCT_TEST_PYIN") != "1",
                    reason="librosa.pyin compiles for about a minute: set PUNCT_TEST_PYIN=1")
def test_pyin_on_a_tone_and_a_glide():
    pytest.importorskip("librosa")
    tr = get_tracker("pyin", PitchConfig())
    x = harmonic(np.full(RATE, 220.0), n_harm=6)
    track = tr.track(x, RATE, HOP)
    assert len(track.f0) == 1 + (len(x) - 1) // HOP
    inner = track.f0[10:-10]
    assert track.voiced[10:-10].mean() > 0.9 and np.median(np.abs(inner[inner > 0] / 220.0 - 1)) < 0.01
    assert not get_tracker("pyin").track(np.zeros(RATE, dtype=np.float32), RATE, HOP).voiced.any()
