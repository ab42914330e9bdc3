"""Per-word pitch and energy features: frame tracks pooled over each word, then
normalized per speaker.

Columns (``WORD_FEATURES``), after ``normalize``:

``pitch_mean``    mean F0 of the word's voiced frames, in semitones, as a z-score
                  over all voiced in-word frames of the speaker
``pitch_slope``   least-squares slope of the word's voiced semitones, in speaker
                  standard deviations per second
``pitch_range``   90th minus 10th percentile of the word's voiced semitones (robust
                  to a single octave error), in speaker standard deviations
``voiced_frac``   share of the word's frames that are voiced (0..1, not normalized)
``energy_mean``   mean frame energy (RMS, dB) as a z-score over all in-word frames
                  of the speaker
``energy_max``    loudest frame, same scale
``energy_slope``  least-squares slope of the frame energies, speaker SDs per second
``unvoiced``      1 when the word has fewer than ``min_voiced_frames`` voiced frames:
                  its pitch_* columns are then 0 (the speaker's mean, no movement)
``silent``        1 when the word's loudest frame is below ``silence_db`` (dBFS)
``untimed``       1 when the word has no times (``-`` in ``word_times``: a word the
                  aligner could not place); all its other columns are then 0

A word's frames are the grid frames whose centre lies in [start, end); a word
shorter than a frame gets the frame nearest its middle. Per-speaker
normalization (z-score) is done after all utterances are pooled, because a job
may hold only part of a speaker: ``pool_utterance`` returns raw values (semitones
re 100 Hz, dB) and adds to ``SpeakerStats``; ``normalize`` maps raw to final
values with the merged statistics. Standard deviations are floored
(``pitch_sd_floor`` semitones, ``energy_sd_floor`` dB) so that a monotone or
silent speaker gives finite values. Nothing is ever NaN.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from punct.prosody.energy import FLOOR_DB, rms_db
from punct.prosody.pitch import PitchConfig, PitchTrack

WORD_FEATURES: tuple[str, ...] = (
    "pitch_mean", "pitch_slope", "pitch_range", "voiced_frac",
    "energy_mean", "energy_max", "energy_slope", "unvoiced", "silent", "untimed",
)
_I = {n: i for i, n in enumerate(WORD_FEATURES)}


@dataclass
class ProsodyConfig:
    """conf/prosody.yaml."""

    hop: float = 0.01
    energy_window: float = 0.025
    silence_db: float = -60.0
    min_voiced_frames: int = 3
    pitch_sd_floor: float = 0.5
    energy_sd_floor: float = 1.0
    pitch: PitchConfig = field(default_factory=PitchConfig)


@dataclass
class Moments:
    """Count, sum and sum of squares of a stream of values (mergeable)."""

    n: float = 0.0
    s: float = 0.0
    ss: float = 0.0

    def add(self, values: np.ndarray) -> None:
        v = np.asarray(values, dtype=np.float64)
        self.n += float(v.size)
        self.s += float(v.sum())
        self.ss += float((v * v).sum())

    def merge(self, other: "Moments") -> None:
        self.n += other.n
        self.s += other.s
        self.ss += other.ss

    def mean_sd(self, sd_floor: float) -> tuple[float, float]:
        if self.n <= 0:
            return 0.0, sd_floor
        mean = self.s / self.n
        var = max(self.ss / self.n - mean * mean, 0.0)
        return mean, max(float(np.sqrt(var)), sd_floor)


@dataclass
class SpeakerStats:
    """Per speaker: moments of voiced in-word semitones and of in-word frame energies."""

    pitch: dict[str, Moments] = field(default_factory=dict)
    energy: dict[str, Moments] = field(default_factory=dict)

    def add(self, speaker: str, semitones: np.ndarray, energies: np.ndarray) -> None:
        self.pitch.setdefault(speaker, Moments()).add(semitones)
        self.energy.setdefault(speaker, Moments()).add(energies)

    def merge(self, other: "SpeakerStats") -> None:
        for mine, theirs in ((self.pitch, other.pitch), (self.energy, other.energy)):
            for spk, m in theirs.items():
                mine.setdefault(spk, Moments()).merge(m)

    def to_json(self) -> dict:
        return {spk: {"pitch": [m.n, m.s, m.ss], "energy": [self.energy[spk].n, self.energy[spk].s, self.energy[spk].ss]}
                for spk, m in sorted(self.pitch.items())}

    @classmethod
    def from_json(cls, data: Mapping) -> "SpeakerStats":
        st = cls()
        for spk, d in data.items():
            st.pitch[spk] = Moments(*map(float, d["pitch"]))
            st.energy[spk] = Moments(*map(float, d["energy"]))
        return st


def word_frames(start: float, end: float, hop_s: float, n: int) -> np.ndarray:
    """Indices of the grid frames whose centre lies in [start, end); at least the nearest one."""
    if n == 0:
        return np.zeros(0, dtype=int)
    a = int(np.ceil(start / hop_s - 1e-9))
    b = int(np.ceil(end / hop_s - 1e-9))
    a, b = max(a, 0), min(b, n)
    if b > a:
        return np.arange(a, b)
    mid = int(round((start + end) / 2.0 / hop_s))
    return np.array([min(max(mid, 0), n - 1)])


def _slope(t: np.ndarray, y: np.ndarray) -> float:
    if len(t) < 2:
        return 0.0
    tc = t - t.mean()
    den = float((tc * tc).sum())
    return float((tc * (y - y.mean())).sum() / den) if den > 0 else 0.0


def pool_utterance(times: Sequence[tuple[float | None, float | None]], track: PitchTrack, energy_db: np.ndarray,
                   hop_s: float, cfg: ProsodyConfig, stats: SpeakerStats | None = None, speaker: str = "") -> np.ndarray:
    """Raw per-word values [n_words, len(WORD_FEATURES)] from one utterance's frame tracks.

    ``times`` are (start, end) in seconds from the start of the tracked audio, (None,
    None) for an untimed word. Pitch columns are in semitones re 100 Hz, energy
    columns in dB; flags as final.
    """
    n = len(energy_db)
    st = track.semitones()
    voiced = track.voiced
    out = np.zeros((len(times), len(WORD_FEATURES)), dtype=np.float64)
    for i, (s, e) in enumerate(times):
        row = out[i]
        if s is None or e is None:
            row[_I["untimed"]] = row[_I["unvoiced"]] = 1.0
            continue
        idx = word_frames(s, e, hop_s, n)
        if idx.size == 0:  # no audio at all
            row[_I["energy_mean"]] = row[_I["energy_max"]] = FLOOR_DB
            row[_I["unvoiced"]] = row[_I["silent"]] = 1.0
            continue
        t = idx * hop_s
        en = energy_db[idx].astype(np.float64)
        row[_I["energy_mean"]] = en.mean()
        row[_I["energy_max"]] = en.max()
        row[_I["energy_slope"]] = _slope(t, en)
        row[_I["silent"]] = float(en.max() < cfg.silence_db)
        v = idx[voiced[idx]]
        row[_I["voiced_frac"]] = v.size / idx.size
        if v.size >= cfg.min_voiced_frames:
            sv = st[v]
            row[_I["pitch_mean"]] = sv.mean()
            row[_I["pitch_slope"]] = _slope(v * hop_s, sv)
            p10, p90 = np.percentile(sv, [10, 90])
            row[_I["pitch_range"]] = p90 - p10
        else:
            row[_I["unvoiced"]] = 1.0
        if stats is not None:
            stats.add(speaker, st[v], en)
    return out


def normalize(raw: np.ndarray, speaker: str, stats: SpeakerStats, cfg: ProsodyConfig) -> np.ndarray:
    """Final features (see the module docstring) from raw ``pool_utterance`` values."""
    mp, sp = stats.pitch.get(speaker, Moments()).mean_sd(cfg.pitch_sd_floor)
    me, se = stats.energy.get(speaker, Moments()).mean_sd(cfg.energy_sd_floor)
    out = raw.astype(np.float64).copy()
    voiced = out[:, _I["unvoiced"]] < 0.5
    out[:, _I["pitch_mean"]] = np.where(voiced, (raw[:, _I["pitch_mean"]] - mp) / sp, 0.0)
    out[:, _I["pitch_slope"]] = np.where(voiced, raw[:, _I["pitch_slope"]] / sp, 0.0)
    out[:, _I["pitch_range"]] = np.where(voiced, raw[:, _I["pitch_range"]] / sp, 0.0)
    out[:, _I["energy_mean"]] = (raw[:, _I["energy_mean"]] - me) / se
    out[:, _I["energy_max"]] = (raw[:, _I["energy_max"]] - me) / se
    out[:, _I["energy_slope"]] = raw[:, _I["energy_slope"]] / se
    untimed = out[:, _I["untimed"]] > 0.5
    out[untimed, : _I["unvoiced"]] = 0.0
    out = np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)
    return out.astype(np.float32)


def track_audio(x: np.ndarray, rate: int, cfg: ProsodyConfig, tracker) -> tuple[PitchTrack, np.ndarray, float]:
    """(pitch track, frame energies in dB, hop in seconds) of one utterance's audio."""
    hop = max(1, int(round(cfg.hop * rate)))
    win = max(hop, int(round(cfg.energy_window * rate)))
    track = tracker.track(x, rate, hop)
    energy = rms_db(x, hop, win)
    return track, energy, hop / rate


# ---------------------------------------------------------------- data directories


def extract_raw(data, cfg: ProsodyConfig) -> tuple[dict[str, np.ndarray], SpeakerStats, dict]:
    """Raw per-word values of every utterance of data directory ``data`` (``wav.scp``,
    optional ``segments``, ``text``, ``word_times``, optional ``utt2spk``), the
    speakers' moments, and a report (counts, audio and processing seconds)."""
    import time
    from pathlib import Path

    from punct.audio import TARGET_RATE, RecordingCache, utterance_spans
    from punct.data.datadir import parse_word_time
    from punct.errors import PunctError
    from punct.prosody.pitch import get_tracker
    from punct.data.tables import read_table, read_wav_scp

    data = Path(data)
    text = {k: (v, n) for k, v, n in read_table(data / "text")}
    times = {k: (v, n) for k, v, n in read_table(data / "word_times")}
    spk = {}
    if (data / "utt2spk").is_file():
        spk = {k: v[0] for k, v, _ in read_table(data / "utt2spk", min_fields=1, allow_empty_value=False)}
    spans = utterance_spans(data, list(text))
    cache = RecordingCache(read_wav_scp(data / "wav.scp"), where=data / "wav.scp")
    tracker = get_tracker(cfg.pitch.tracker, cfg.pitch)
    stats = SpeakerStats()
    raw: dict[str, np.ndarray] = {}
    t0 = time.time()
    audio_s = 0.0
    n_words = n_unvoiced = n_silent = 0
    for utt, (words, _) in text.items():
        if utt not in times:
            raise PunctError(f"utterance {utt!r} has no word times", data / "word_times")
        tv, ln = times[utt]
        if len(tv) != len(words):
            raise PunctError(f"{len(tv)} times for {len(words)} words of {utt!r}", data / "word_times", ln)
        pairs = []
        for i, cell in enumerate(tv):
            try:
                pairs.append(parse_word_time(cell))
            except ValueError as e:
                raise PunctError(f"word {i + 1} of {utt!r}: {e}", data / "word_times", ln) from None
        seg = spans[utt]
        x, offset = cache.segment(seg)
        audio_s += len(x) / TARGET_RATE
        track, energy, hop_s = track_audio(x, TARGET_RATE, cfg, tracker)
        rel = [(None, None) if s is None else (s - offset, e - offset) for s, e in pairs]
        m = pool_utterance(rel, track, energy, hop_s, cfg, stats, spk.get(utt, utt))
        raw[utt] = m
        n_words += len(words)
        n_unvoiced += int(m[:, _I["unvoiced"]].sum()) if len(m) else 0
        n_silent += int(m[:, _I["silent"]].sum()) if len(m) else 0
    report = {"utterances": len(text), "words": n_words, "unvoiced_words": n_unvoiced, "silent_words": n_silent,
              "audio_seconds": round(audio_s, 3), "seconds": round(time.time() - t0, 3), "tracker": tracker.name}
    return raw, stats, report


def normalize_all(raw: Mapping[str, np.ndarray], utt2spk: Mapping[str, str], stats: SpeakerStats,
                  cfg: ProsodyConfig) -> dict[str, np.ndarray]:
    """``normalize`` every utterance with its speaker's statistics (speaker = utterance when unknown)."""
    return {u: normalize(m, utt2spk.get(u, u), stats, cfg) for u, m in raw.items()}
