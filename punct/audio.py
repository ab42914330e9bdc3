"""Audio input: any common format read with soundfile, made mono and resampled to 16 kHz.

``read_audio(source)`` takes a file path or a Kaldi ``wav.scp`` value (a path, or
a command ending in ``|`` whose standard output is an audio file) and returns a
float32 numpy array in [-1, 1] at ``TARGET_RATE``. Every failure (missing,
empty, corrupt or silent-by-construction input, a failing pipe) is a PunctError
that names the file. ``punct.data.tables`` reads the two Kaldi tables that point at audio
(``wav.scp``, ``segments``); ``utterance_audio`` cuts one utterance out of them.

soundfile (libsndfile) reads WAV, FLAC, OGG/Vorbis, MP3, AIFF, AU, CAF, W64 and
more; resampling uses soxr (its "HQ" quality).
"""
from __future__ import annotations

import io
import logging
import shlex
import subprocess
from pathlib import Path

import numpy as np

from punct.errors import PunctError
from punct.data.tables import Segment, read_segments, read_wav_scp

log = logging.getLogger(__name__)

#: The sampling rate every audio consumer of punct works at (the pocketsphinx model's).
TARGET_RATE = 16000


def _decode(data: bytes | str | Path, name: str) -> tuple[np.ndarray, int]:
    import soundfile as sf

    try:
        src = io.BytesIO(data) if isinstance(data, bytes) else str(data)
        x, sr = sf.read(src, dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, ValueError, TypeError) as e:
        msg = str(e).split(": ", 1)[-1] if ": " in str(e) else str(e)
        raise PunctError(f"cannot read audio ({msg.strip() or type(e).__name__}); is the file corrupt?", name) from None
    return x, int(sr)


def to_mono(x: np.ndarray) -> np.ndarray:
    """Average the channels of a [samples, channels] array (a 1-d array is returned as is)."""
    if x.ndim == 1:
        return x
    return x.mean(axis=1) if x.shape[1] > 1 else x[:, 0]


def resample(x: np.ndarray, rate_in: int, rate_out: int = TARGET_RATE) -> np.ndarray:
    """Resample a mono float signal with soxr (HQ); returns float32."""
    if rate_in == rate_out:
        return np.ascontiguousarray(x, dtype=np.float32)
    import soxr

    return np.asarray(soxr.resample(np.ascontiguousarray(x, dtype=np.float32), rate_in, rate_out, quality="HQ"), dtype=np.float32)


def _run_pipe(command: str, name: str) -> bytes:
    try:
        r = subprocess.run(command, shell=True, capture_output=True, check=False)
    except OSError as e:
        raise PunctError(f"cannot run audio command: {e}", name) from None
    if r.returncode != 0:
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise PunctError(f"audio command failed with status {r.returncode}: {tail[0]}", name)
    if not r.stdout:
        raise PunctError("audio command wrote no data", name)
    return r.stdout


def read_audio(source: str | Path, target_rate: int = TARGET_RATE, name: str | None = None) -> np.ndarray:
    """Read a file path or a ``wav.scp`` value (``cmd |``) as mono float32 at ``target_rate``.

    ``name`` is what error messages call the input (default: the source itself).
    """
    src = str(source).strip()
    label = name or src
    if src.endswith("|"):
        x, sr = _decode(_run_pipe(src[:-1], label), label)
    else:
        path = Path(src)
        if not path.exists():
            raise PunctError("audio file not found", label)
        if path.is_dir():
            raise PunctError("expected an audio file, got a directory", label)
        if path.stat().st_size == 0:
            raise PunctError("audio file is empty (0 bytes)", label)
        x, sr = _decode(path, label)
    if x.shape[0] == 0:
        raise PunctError("audio has no samples", label)
    y = resample(to_mono(x), sr, target_rate)
    if not np.all(np.isfinite(y)):
        raise PunctError("audio contains NaN or infinite samples", label)
    return y


def audio_duration(source: str | Path) -> float | None:
    """The duration in seconds from the file header, or None for a pipe or an unreadable file."""
    src = str(source).strip()
    if src.endswith("|"):
        return None
    import soundfile as sf

    try:
        info = sf.info(src)
    except Exception:  # noqa: BLE001 - a duration is a hint, reading errors surface later
        return None
    return info.frames / float(info.samplerate) if info.samplerate else None


def to_pcm16(x: np.ndarray) -> bytes:
    """A float signal in [-1, 1] as little-endian 16-bit PCM bytes (what pocketsphinx takes)."""
    return (np.clip(x, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


def utterance_spans(datadir: str | Path, utts: list[str] | None = None) -> dict[str, Segment]:
    """Each utterance's recording and span from ``segments``, or the whole recording (end -1)
    when there is no ``segments`` file (then utterance id = recording id, Kaldi's rule)."""
    datadir = Path(datadir)
    wav = read_wav_scp(datadir / "wav.scp")
    if (datadir / "segments").is_file():
        spans = read_segments(datadir / "segments")
        for s in spans.values():
            if s.recording not in wav:
                raise PunctError(f"recording {s.recording!r} of utterance {s.utt!r} has no wav.scp entry", datadir / "segments")
    else:
        spans = {r: Segment(r, r, 0.0, -1.0) for r in wav}
    if utts is not None:
        missing = [u for u in utts if u not in spans]
        if missing:
            where = "segments" if (datadir / "segments").is_file() else "wav.scp"
            raise PunctError(f"utterance {missing[0]!r} has no {where} entry ({len(missing)} missing)", datadir / where)
        spans = {u: spans[u] for u in utts}
    return spans


class RecordingCache:
    """Reads each recording once (the last one is kept): utterances of a recording are consecutive."""

    def __init__(self, wav_scp: dict[str, str], target_rate: int = TARGET_RATE, where: str | Path = "wav.scp"):
        self.wav_scp = wav_scp
        self.rate = target_rate
        self.where = str(where)
        self._key: str | None = None
        self._audio: np.ndarray | None = None

    def recording(self, reco: str) -> np.ndarray:
        if reco != self._key:
            if reco not in self.wav_scp:
                raise PunctError(f"recording {reco!r} has no wav.scp entry", self.where)
            self._audio = read_audio(self.wav_scp[reco], self.rate, name=f"{self.wav_scp[reco]} ({reco})")
            self._key = reco
        assert self._audio is not None
        return self._audio

    def segment(self, seg: Segment) -> tuple[np.ndarray, float]:
        """The samples of one utterance and its start time in the recording (seconds)."""
        x = self.recording(seg.recording)
        a = int(round(seg.start * self.rate))
        b = len(x) if seg.end < 0 else min(len(x), int(round(seg.end * self.rate)))
        if b <= a:
            raise PunctError(f"segment {seg.utt!r} ({seg.start}-{seg.end} s) lies outside its recording "
                             f"({len(x) / self.rate:.2f} s)", self.where)
        return x[a:b], seg.start


def quote_path(path: str | Path) -> str:
    """A path quoted for a ``wav.scp`` pipe command."""
    return shlex.quote(str(path))
