"""punct.audio: reading, mono, resampling, wav.scp/segments, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

sf = pytest.importorskip("soundfile")

from punct.audio import TARGET_RATE, RecordingCache, read_audio, resample, to_pcm16, utterance_spans  # noqa: E402
from punct.errors import PunctError  # noqa: E402
from punct.data.tables import Segment, read_segments, read_wav_scp  # noqa: E402


def tone(freq: float, rate: int, seconds: float = 1.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_freq(x: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spec) * rate / len(x))


@pytest.mark.parametrize("fmt,ext,rate", [("WAV", "wav", 16000), ("FLAC", "flac", 22050), ("OGG", "ogg", 44100),
                                          ("WAV", "wav", 8000)])
def test_reads_formats_and_resamples(tmp_path, fmt, ext, rate):
    p = tmp_path / f"a.{ext}"
    sf.write(p, tone(440.0, rate), rate, format=fmt)
    x = read_audio(p)
    assert x.dtype == np.float32 and x.ndim == 1
    assert abs(len(x) - TARGET_RATE) <= 2  # one second at 16 kHz
    assert abs(dominant_freq(x, TARGET_RATE) - 440.0) < 3.0
    assert 0.4 < np.abs(x).max() < 0.6


def test_stereo_is_averaged(tmp_path):
    left, right = tone(300.0, 16000), np.zeros(16000, dtype=np.float32)
    p = tmp_path / "st.wav"
    sf.write(p, np.stack([left, right], axis=1), 16000)
    x = read_audio(p)
    assert np.allclose(x, left / 2, atol=1e-3)


def test_resample_keeps_frequency():
    y = resample(tone(1000.0, 48000), 48000, 16000)
    assert len(y) == 16000
    assert abs(dominant_freq(y, 16000) - 1000.0) < 2.0


def test_pcm16_clips():
    b = to_pcm16(np.array([0.0, 2.0, -2.0], dtype=np.float32))
    assert np.frombuffer(b, "<i2").tolist() == [0, 32767, -32767]


@pytest.mark.parametrize("content,message", [(b"", "empty (0 bytes)"), (b"RIFF\x00\x00garbage" * 20, "cannot read audio"),
                                             (b"not audio at all, just text\n", "cannot read audio")])
def test_bad_files_give_one_clear_error(tmp_path, content, message):
    p = tmp_path / "bad.wav"
    p.write_bytes(content)
    with pytest.raises(PunctError) as e:
        read_audio(p)
    assert message in str(e.value) and str(p) in str(e.value)
    assert "\n" not in str(e.value)


def test_missing_file_and_failing_pipe(tmp_path):
    with pytest.raises(PunctError, match="audio file not found"):
        read_audio(tmp_path / "nope.wav")
    with pytest.raises(PunctError, match="audio command failed with status 3"):
        read_audio("sh -c 'echo oops >&2; exit 3' |")


def test_pipe_is_read(tmp_path):
    p = tmp_path / "a.wav"
    sf.write(p, tone(200.0, 16000), 16000)
    x = read_audio(f"cat {p} |")
    assert abs(len(x) - 16000) <= 1


def test_wav_scp_segments_and_spans(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    sf.write(d / "r1.wav", tone(200.0, 16000, 2.0), 16000)
    (d / "wav.scp").write_text(f"r1 {d / 'r1.wav'}\n")
    (d / "segments").write_text("u1 r1 0.00 0.50\nu2 r1 0.50 2.00\n")
    assert read_wav_scp(d / "wav.scp") == {"r1": str(d / "r1.wav")}
    segs = read_segments(d / "segments")
    assert segs["u2"] == Segment("u2", "r1", 0.5, 2.0)
    spans = utterance_spans(d, ["u1", "u2"])
    cache = RecordingCache(read_wav_scp(d / "wav.scp"))
    x, off = cache.segment(spans["u2"])
    assert off == 0.5 and abs(len(x) - 24000) <= 1


def test_missing_wav_scp_entry_is_named(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "wav.scp").write_text(f"a {tmp_path / 'a.wav'}\n")
    with pytest.raises(PunctError) as e:
        utterance_spans(d, ["a", "b"])
    assert "utterance 'b' has no wav.scp entry" in str(e.value) and "wav.scp" in str(e.value)
    (d / "segments").write_text("u1 zz 0 1\n")
    with pytest.raises(PunctError, match="recording 'zz' of utterance 'u1' has no wav.scp entry"):
        utterance_spans(d)


def test_unsorted_wav_scp_is_an_error(tmp_path):
    p = tmp_path / "wav.scp"
    p.write_text("b x.wav\na y.wav\n")
    with pytest.raises(PunctError, match=r"wav.scp:2: key 'a' out of order \(files must be sorted with LC_ALL=C\)"):
        read_wav_scp(p)
    p.write_text("a x.wav\nb\n")
    with pytest.raises(PunctError, match=r"wav.scp:2: expected '<recording> <path or command \|>', got only 'b'"):
        read_wav_scp(p)
    p.write_text("a  sox  'my file.wav' -t wav - |\n")  # a command keeps its own spacing
    assert read_wav_scp(p) == {"a": "sox  'my file.wav' -t wav - |"}
