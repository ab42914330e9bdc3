"""Frame energy (RMS in dB) and zero-crossing rate on punct's common frame grid.

The grid: frame k is centred at sample ``k * hop`` (time ``k * hop / rate``),
k = 0 .. ``n_frames(len(x), hop) - 1``; the signal is padded with zeros at both
ends so that every frame has a full window. Pitch tracks (punct.prosody.pitch)
use the same grid, so frame k of every track describes the same instant.
"""
from __future__ import annotations

import numpy as np

#: Energy of digital silence: 10 log10(1e-10) = -100 dB re full scale.
FLOOR_DB = -100.0


def n_frames(n_samples: int, hop: int) -> int:
    """Frames of the grid for a signal of ``n_samples`` (centres 0, hop, ... up to the last sample)."""
    return 0 if n_samples <= 0 else 1 + (n_samples - 1) // hop


def frames(x: np.ndarray, hop: int, win: int) -> np.ndarray:
    """[n_frames, win] view of ``x``: frame k centred at sample k*hop (zero padded)."""
    n = n_frames(len(x), hop)
    half = win // 2
    padded = np.concatenate([np.zeros(half, dtype=np.float32), np.asarray(x, dtype=np.float32),
                             np.zeros(win, dtype=np.float32)])
    return np.lib.stride_tricks.sliding_window_view(padded, win)[: n * hop : hop][:n]


def rms_db(x: np.ndarray, hop: int, win: int) -> np.ndarray:
    """Frame energy in dB re full scale: 10 log10(mean square + 1e-10); a 0 dBFS square wave is 0 dB."""
    if len(x) == 0:
        return np.zeros(0, dtype=np.float32)
    fr = frames(x, hop, win).astype(np.float64)
    ms = np.mean(fr * fr, axis=1)
    return (10.0 * np.log10(ms + 1e-10)).astype(np.float32)


def zero_crossing_rate(x: np.ndarray, hop: int, win: int) -> np.ndarray:
    """Share of adjacent sample pairs in each frame whose signs differ (0 .. 1)."""
    if len(x) == 0:
        return np.zeros(0, dtype=np.float32)
    fr = frames(x, hop, win)
    s = np.signbit(fr)
    return np.mean(s[:, 1:] != s[:, :-1], axis=1).astype(np.float32)
