"""``punct recognize`` (punct.bin.asr_live): audio files decoded one after the other into CTM
lines whose times run on across the files, readable by ``punct restore --live``."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("pocketsphinx")


def test_recognize_prints_ctm_lines_with_running_times(festival_speech):
    wavs = [str(w) for w, _ in festival_speech[:2]]
    r = subprocess.run([sys.executable, "-m", "punct", "recognize", *wavs, "--gap", "1.0"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [x.split() for x in r.stdout.splitlines()]
    assert len(lines) >= 10 and all(len(f) == 6 and f[:2] == ["live", "1"] for f in lines)
    starts = [float(f[2]) for f in lines]
    assert starts == sorted(starts)
    from punct.audio import audio_duration

    first = audio_duration(wavs[0])
    assert any(s > first + 1.0 for s in starts)  # the second file's words after the first file and the gap
    from punct.io.live import LineReader

    reader = LineReader()
    words = [w for k, x in enumerate(r.stdout.splitlines(), 1) for c in reader.feed(x, k) for w in c.words]
    assert reader.kind == "ctm" and len(words) == len(lines) and reader.warnings == 0


def test_a_missing_audio_file_is_one_line_and_nothing_is_printed(tmp_path, capsys):
    from punct.bin import asr_live

    assert asr_live.main([str(tmp_path / "none.wav"), "--gap", "0"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [f"error: {tmp_path / 'none.wav'}: audio file not found"]
