"""``punct align`` (punct.bin.align_one) on Festival speech: a CTM, a phone CTM and a TextGrid,
one-line errors; and the --help of every entry point of the audio path, without torch."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINTS = ("align", "align_one", "asr_decode", "prosody_feats", "datadir_tools", "transfer")


def run_py(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="UTF-8")
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_help_does_not_import_torch(name):
    code = ("import importlib, sys\n"
            f"mod = importlib.import_module('punct.bin.{name}')\n"
            "try:\n    mod.main(['--help'])\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
            "heavy = [m for m in ('torch', 'pocketsphinx', 'aubio', 'parselmouth') if m in sys.modules]\n"
            "print('IMPORTED', heavy)\n")
    r = run_py("-c", code)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout and "IMPORTED []" in r.stdout


def test_prepare_script_and_cli_help():
    r = run_py("recipes/ljspeech/prepare.py", "--help")
    assert r.returncode == 0 and "--corpus-dir" in r.stdout
    r = run_py("-m", "punct", "align", "--help")
    assert r.returncode == 0 and "TRANSCRIPT" in r.stdout


@pytest.fixture(scope="module")
def spoken(tmp_path_factory):
    from punct.align import festival

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    d = tmp_path_factory.mktemp("spoken")
    truth = festival.synthesize("Printing, in the only sense we mean here, is an art.", d / "a.wav")
    (d / "a.txt").write_text("Printing, in the only sense\nwe mean here, is an art.\n")
    return d, truth


def test_punct_align_writes_ctm_and_textgrid(spoken, tmp_path):
    d, truth = spoken
    r = run_py("-m", "punct", "align", str(d / "a.wav"), str(d / "a.txt"), "-o", str(tmp_path / "a.ctm"),
               "--phones-ctm", str(tmp_path / "a.phones.ctm"))
    assert r.returncode == 0, r.stderr
    assert "0 needed the letter-to-sound fallback" in r.stderr
    lines = [l.split() for l in (tmp_path / "a.ctm").read_text().splitlines()]
    assert [l[4] for l in lines] == [t.text for t in truth]
    assert all(l[0] == "a" and l[1] == "1" and len(l) == 6 for l in lines)
    err = np.mean([abs(float(l[2]) - t.start) for l, t in zip(lines, truth)])
    assert err < 0.05
    phones = [l.split() for l in (tmp_path / "a.phones.ctm").read_text().splitlines()]
    assert phones[0][4] == "SIL" and phones[1][4] == "P"  # Festival starts with 0.22 s of silence
    assert abs(float(phones[1][2]) - float(lines[0][2])) < 1e-6  # the first phone starts the first word

    r = run_py("-m", "punct", "align", str(d / "a.wav"), str(d / "a.txt"), "-o", str(tmp_path / "a.TextGrid"))
    assert r.returncode == 0, r.stderr
    from praatio import textgrid

    tg = textgrid.openTextgrid(str(tmp_path / "a.TextGrid"), includeEmptyIntervals=False)
    assert tg.tierNames == ("words", "phones")
    assert [e.label for e in tg.getTier("words").entries] == [t.text for t in truth]
    assert tg.getTier("phones").entries[0].label == "P"


@pytest.mark.parametrize("case,message", [
    ("symbols", "a.txt:2: transcript token '@@' has no letters or digits"),
    ("corrupt", "cannot read audio"),
    ("empty", "audio file is empty (0 bytes)"),
    ("missing", "audio file not found"),
    ("format", "cannot tell the output format"),
])
def test_punct_align_errors_are_one_line(tmp_path, case, message):
    import soundfile as sf

    wav = tmp_path / "a.wav"
    sf.write(wav, np.zeros(16000, dtype=np.float32), 16000)
    txt = tmp_path / "a.txt"
    txt.write_text("hello world\n")
    out = tmp_path / "a.ctm"
    if case == "symbols":
        txt.write_text("hello,\nworld @@ again\n")
    elif case == "corrupt":
        wav.write_bytes(b"RIFF" + os.urandom(300))
    elif case == "empty":
        wav.write_bytes(b"")
    elif case == "missing":
        wav.unlink()
    elif case == "format":
        out = tmp_path / "a.json"
    r = run_py("-m", "punct", "align", str(wav), str(txt), "-o", str(out))
    assert r.returncode == 1
    errors = [l for l in r.stderr.splitlines() if l.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], r.stderr
    assert not out.exists()
