"""Synthesized speech with its true word times, from Festival: the aligner's ground truth.

``synthesize(text, wav_path)`` has Festival (Debian ``festival`` with the 16 kHz
``festvox-kallpc16k`` diphone voice) speak ``text`` into a WAV file and returns
the words it spoke with the start and end times of their segments (Festival's
``word_start`` / ``word_end`` features of the Word relation), which the
waveform follows exactly: a diphone synthesizer places each unit at its target
time. Used by the tests and benchmarks/bench_audio.py; nothing in the recipe
needs Festival.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from punct.errors import PunctError
from punct.text.words import Word

VOICE = "voice_kal_diphone"


def available() -> bool:
    """True when the festival binary is on PATH."""
    return shutil.which("festival") is not None


def _scheme_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def synthesize(text: str, wav_path: str | Path, voice: str = VOICE, timeout: float = 60.0) -> list[Word]:
    """Speak ``text`` into ``wav_path`` (16-bit WAV at the voice's rate); return the spoken words with times."""
    exe = shutil.which("festival")
    if exe is None:
        raise PunctError("festival is not installed (Debian packages festival festvox-kallpc16k)")
    wav_path = Path(wav_path)
    with tempfile.TemporaryDirectory(prefix="punct-festival-") as tmp:
        times = Path(tmp) / "words.txt"
        script = Path(tmp) / "say.scm"
        script.write_text(
            f"({voice})\n"
            f"(set! utt1 (Utterance Text {_scheme_string(text)}))\n"
            "(utt.synth utt1)\n"
            f"(utt.save.wave utt1 {_scheme_string(str(wav_path))} 'riff)\n"
            f"(set! fd (fopen {_scheme_string(str(times))} \"w\"))\n"
            "(mapcar (lambda (w) (format fd \"%s %f %f\\n\" (item.name w) (item.feat w \"word_start\")"
            " (item.feat w \"word_end\"))) (utt.relation.items utt1 'Word))\n"
            "(fclose fd)\n",
            encoding="utf-8",
        )
        r = subprocess.run([exe, "-b", str(script)], capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0 or not times.is_file() or not wav_path.is_file():
            msg = (r.stderr.strip().splitlines() or ["no message"])[-1]
            raise PunctError(f"festival failed (status {r.returncode}): {msg}", wav_path)
        words = []
        for line in times.read_text(encoding="utf-8", errors="replace").splitlines():
            f = line.split()
            if len(f) == 3:
                words.append(Word(f[0].lower(), start=float(f[1]), end=float(f[2])))
    return words
