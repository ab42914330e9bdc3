"""punct.prosody.energy: the frame grid, RMS in dB, zero-crossing rate."""
from __future__ import annotations

import numpy as np

from punct.prosody.energy import FLOOR_DB, frames, n_frames, rms_db, zero_crossing_rate


def test_grid_frames_are_centred():
    x = np.arange(1000, dtype=np.float32)
    fr = frames(x, hop=100, win=10)
    assert fr.shape == (n_frames(1000, 100), 10) == (10, 10)
    assert fr[3, 5] == 300.0  # frame k is centred on sample k*hop
    assert fr[0, :5].tolist() == [0.0] * 5  # zero padding before the signal
    assert n_frames(0, 160) == 0 and n_frames(1, 160) == 1 and n_frames(161, 160) == 2


def test_sine_rms_level():
    rate = 16000
    t = np.arange(rate) / rate
    for amp, want in ((1.0, -3.01), (0.1, -23.01)):
        e = rms_db((amp * np.sin(2 * np.pi * 200 * t)).astype(np.float32), 160, 400)  # 400 samples = 5 periods
        assert abs(float(np.median(e)) - want) < 0.05


def test_silence_is_the_floor_and_finite():
    e = rms_db(np.zeros(16000, dtype=np.float32), 160, 400)
    assert np.all(np.isfinite(e)) and np.allclose(e, FLOOR_DB)
    assert rms_db(np.zeros(0, dtype=np.float32), 160, 400).shape == (0,)


def test_zero_crossing_rate_tells_noise_from_a_low_tone():
    rate = 16000
    t = np.arange(rate) / rate
    low = zero_crossing_rate(np.sin(2 * np.pi * 150 * t).astype(np.float32), 160, 400)
    noise = zero_crossing_rate(np.random.default_rng(0).standard_normal(rate).astype(np.float32), 160, 400)
    assert np.median(low) < 0.03 and np.median(noise) > 0.4
