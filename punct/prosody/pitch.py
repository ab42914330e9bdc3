"""Pitch trackers behind one small interface, on punct's common frame grid.

``get_tracker(name, cfg)`` returns a ``PitchTracker``; ``tracker.track(x, rate, hop)``
returns a ``PitchTrack`` whose frame k is centred at sample ``k * hop`` (the grid
of punct.prosody.energy), with F0 in Hz (0 where unvoiced) and a voicing flag.

Trackers:

``yinfft``  aubio's spectral YIN (the design's choice: about 0.002 of real time).
            Its confidence is useless for voicing (lower on voiced frames), so a
            frame is voiced when its F0 lies in [floor, ceiling], its energy is at
            most ``voicing_db`` below the utterance's loudest frame and above
            ``min_db``, and its zero-crossing rate is at most ``max_zcr`` (which
            rejects fricatives). aubio reports the estimate of the window that
            *ends* at the current hop, i.e. ``win/2 - hop`` samples late (2.2
            frames for a 1024-sample window at a 10 ms hop at 16 kHz, 5.4 for
            2048): the signal is delayed by that much before tracking so that
            output k belongs to grid frame k.
``yin``     aubio's plain YIN, gated the same way.
``praat``   Praat's autocorrelation method through parselmouth, with Praat's own
            voicing decision (about 0.008 of real time); a good reference.
``pyin``    librosa's probabilistic YIN with its HMM voicing decision; slow (numba
            compiles it on first use), an option for comparison.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from punct.errors import PunctError
from punct.prosody.energy import n_frames, rms_db, zero_crossing_rate


@dataclass
class PitchConfig:
    """Pitch settings of conf/prosody.yaml (``pitch:``)."""

    tracker: str = "yinfft"
    floor: float = 60.0
    ceiling: float = 400.0
    window: float = 0.064
    voicing_db: float = -25.0
    min_db: float = -55.0
    max_zcr: float = 0.3
    praat_voicing_threshold: float = 0.45
    praat_silence_threshold: float = 0.03


@dataclass
class PitchTrack:
    """F0 per grid frame (Hz, 0 where unvoiced) and the voicing decision."""

    f0: np.ndarray
    voiced: np.ndarray

    def semitones(self, ref_hz: float = 100.0) -> np.ndarray:
        """F0 in semitones re ``ref_hz`` (0 where unvoiced)."""
        out = np.zeros(len(self.f0), dtype=np.float64)
        v = self.voiced & (self.f0 > 0)
        out[v] = 12.0 * np.log2(self.f0[v] / ref_hz)
        return out


class PitchTracker(Protocol):
    """What a pitch tracker does: F0 and voicing of a signal on a fixed hop grid."""

    name: str

    def track(self, x: np.ndarray, rate: int, hop: int) -> PitchTrack:
        """Track mono float ``x`` at ``rate`` Hz on the grid of hop ``hop`` samples."""
        ...


def _unvoiced(n: int) -> PitchTrack:
    return PitchTrack(np.zeros(n, dtype=np.float32), np.zeros(n, dtype=bool))


class AubioTracker:
    """aubio ``yinfft`` / ``yin`` with energy and zero-crossing voicing gates (see the module docstring)."""

    def __init__(self, method: str, cfg: PitchConfig):
        self.name = method
        self.method = method
        self.cfg = cfg

    def window(self, rate: int, hop: int) -> int:
        """The analysis window in samples: a power of two near ``cfg.window`` s, at least 2 hops."""
        want = max(self.cfg.window * rate, 2 * hop)
        return int(2 ** int(np.ceil(np.log2(want))))

    def lag(self, win: int, hop: int) -> tuple[int, int]:
        """(outputs to drop, zeros to prepend) that put aubio's estimates on the grid.

        After the i-th hop aubio's buffer ends at sample (i+1)*hop; yinfft's estimate
        describes the middle of it (``win/2`` back), yin's the middle of its first
        half plus half a lag (about ``3/4 win`` back), as measured on glides
        (tests/prosody/test_pitch.py). Dropping ``skip`` outputs and prepending
        ``pad`` zeros makes output ``k + skip`` describe sample ``k * hop``.
        """
        back = int(round(win * (0.5 if self.method == "yinfft" else 0.75)))
        skip = max(0, -(-back // hop) - 1)
        return skip, (skip + 1) * hop - back

    def track(self, x: np.ndarray, rate: int, hop: int) -> PitchTrack:
        import aubio

        n = n_frames(len(x), hop)
        if n == 0:
            return _unvoiced(0)
        win = self.window(rate, hop)
        skip, pad = self.lag(win, hop)
        padded = np.concatenate([np.zeros(pad, dtype=np.float32), np.asarray(x, dtype=np.float32),
                                 np.zeros(win + skip * hop, dtype=np.float32)])
        p = aubio.pitch(self.method, win, hop, rate)
        p.set_unit("Hz")
        p.set_silence(-200.0)  # never let aubio zero a frame: voicing is gated below
        f0 = np.empty(n + skip, dtype=np.float32)
        for k in range(n + skip):
            f0[k] = p(padded[k * hop:(k + 1) * hop])[0]
        f0 = f0[skip:]  # output k + skip describes the window centred at sample k*hop
        e_win = int(round(0.025 * rate))
        energy = rms_db(x, hop, max(e_win, hop))
        zcr = zero_crossing_rate(x, hop, max(e_win, hop))
        gate = max(float(energy.max()) + self.cfg.voicing_db, self.cfg.min_db)
        voiced = ((f0 >= self.cfg.floor) & (f0 <= self.cfg.ceiling) & (energy >= gate) & (zcr <= self.cfg.max_zcr))
        f0 = np.where(voiced, f0, 0.0).astype(np.float32)
        return PitchTrack(f0, voiced)


class PraatTracker:
    """Praat's autocorrelation pitch (``Sound: To Pitch (ac)``) through parselmouth."""

    name = "praat"

    def __init__(self, cfg: PitchConfig):
        self.cfg = cfg

    def track(self, x: np.ndarray, rate: int, hop: int) -> PitchTrack:
        import parselmouth

        n = n_frames(len(x), hop)
        if n == 0:
            return _unvoiced(0)
        # Praat needs at least three periods of the pitch floor in the signal
        if len(x) < 3.0 * rate / self.cfg.floor or not np.any(x):
            return _unvoiced(n)
        snd = parselmouth.Sound(np.asarray(x, dtype=np.float64), sampling_frequency=rate)
        try:
            pitch = snd.to_pitch_ac(time_step=hop / rate, pitch_floor=self.cfg.floor, pitch_ceiling=self.cfg.ceiling,
                                    voicing_threshold=self.cfg.praat_voicing_threshold,
                                    silence_threshold=self.cfg.praat_silence_threshold)
        except parselmouth.PraatError:
            return _unvoiced(n)
        times = np.asarray(pitch.xs())
        freq = np.asarray(pitch.selected_array["frequency"], dtype=np.float32)
        f0 = np.zeros(n, dtype=np.float32)
        if len(times):
            # Praat's frames are centred in the signal, not on the grid: interpolate
            # between two voiced neighbours, else take the nearest frame
            pos = (np.arange(n) * hop / rate - times[0]) * rate / hop
            lo = np.clip(np.floor(pos).astype(int), 0, len(times) - 1)
            hi = np.clip(lo + 1, 0, len(times) - 1)
            w = np.clip(pos - lo, 0.0, 1.0)
            near = np.where(w < 0.5, lo, hi)
            inside = (pos > -0.5) & (pos < len(times) - 0.5)
            both = (freq[lo] > 0) & (freq[hi] > 0)
            interp = np.exp((1 - w) * np.log(np.maximum(freq[lo], 1e-3)) + w * np.log(np.maximum(freq[hi], 1e-3)))
            f0 = np.where(inside, np.where(both, interp, freq[near]), 0.0).astype(np.float32)
        voiced = f0 > 0
        return PitchTrack(f0, voiced)


class PyinTracker:
    """librosa's probabilistic YIN (Mauch and Dixon 2014), with its own HMM voicing decision.

    ``librosa.pyin`` frames are centred at ``k * hop`` (``center=True``), punct's grid. Slow:
    numba compiles it on first use (about a minute on a fresh machine) and it then runs at
    about a fifth of real time (benchmarks/bench_pitch.py), so it is an option, not the default.
    """

    name = "pyin"

    def __init__(self, cfg: PitchConfig):
        self.cfg = cfg

    def track(self, x: np.ndarray, rate: int, hop: int) -> PitchTrack:
        import librosa

        n = n_frames(len(x), hop)
        win = int(2 ** int(np.ceil(np.log2(max(self.cfg.window * rate, 2 * hop)))))
        if n == 0 or len(x) < win or not np.any(x):
            return _unvoiced(n)
        f0, voiced, _ = librosa.pyin(np.asarray(x, dtype=np.float32), fmin=self.cfg.floor, fmax=self.cfg.ceiling,
                                     sr=rate, frame_length=win, hop_length=hop, center=True)
        f0 = np.nan_to_num(f0[:n], nan=0.0).astype(np.float32)
        voiced = np.asarray(voiced[:n], dtype=bool) & (f0 > 0)
        if len(f0) < n:
            f0 = np.concatenate([f0, np.zeros(n - len(f0), dtype=np.float32)])
            voiced = np.concatenate([voiced, np.zeros(n - len(voiced), dtype=bool)])
        return PitchTrack(np.where(voiced, f0, 0.0).astype(np.float32), voiced)


#: the trackers tests run on every change; ``pyin`` (librosa) works too, but compiles for a minute
TRACKERS = ("yinfft", "yin", "praat")
ALL_TRACKERS = TRACKERS + ("pyin",)


def get_tracker(name: str, cfg: PitchConfig | None = None) -> PitchTracker:
    """The pitch tracker called ``name`` (one of ALL_TRACKERS)."""
    cfg = cfg or PitchConfig()
    if name in ("yinfft", "yin"):
        return AubioTracker(name, cfg)
    if name == "praat":
        return PraatTracker(cfg)
    if name == "pyin":
        return PyinTracker(cfg)
    raise PunctError(f"unknown pitch tracker {name!r} (known: {', '.join(ALL_TRACKERS)})")
