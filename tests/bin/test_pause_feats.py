"""punct.bin.pause_feats: the pause features of a data directory from its word times (help
without torch, a one-line error without word_times, segments chained, the .done mark)."""
import os
import subprocess
import sys
from pathlib import Path

from punct.data.datadir import write_datadir
from punct.text.words import Utterance, Word

ROOT = Path(__file__).resolve().parents[2]


def test_help_does_not_import_torch():
    code = ("import sys\nfrom punct.bin.pause_feats import main\ntry:\n  main(['--help'])\nexcept SystemExit as e:\n"
            "  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout and "--data" in r.stdout


def test_missing_word_times_is_one_line_error(tmp_path, capsys):
    from punct.bin import pause_feats

    d = tmp_path / "d"
    write_datadir(d, [Utterance("u", [Word("a")])])
    assert pause_feats.main(["--data", str(d)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {d / 'word_times'}: input not found"]


def test_writes_features_with_segments_and_marks_done(tmp_path, capsys):
    from punct.bin import pause_feats
    from punct.prosody.features import load_word_features
    from punct.prosody.pause import PAUSE_FEATURES

    d = tmp_path / "d"
    write_datadir(d, [Utterance("r-1", [Word("a", start=1.0, end=1.5), Word("b", start=1.5, end=2.0)]),
                      Utterance("r-2", [Word("c", start=3.0, end=3.2)])])
    (d / "segments").write_text("r-1 r 0.9 2.1\nr-2 r 2.9 3.3\n")
    assert pause_feats.main(["--data", str(d)]) == 0
    assert (d / "pause.done").is_file()
    assert (d / "pause.names").read_text().split() == list(PAUSE_FEATURES)
    f = load_word_features(d, ["pause"])
    pa = PAUSE_FEATURES.index("pause_after")
    assert f["r-1"][:, pa].tolist() == [0.0, 1.0]  # chained across the segment boundary
    mtime = (d / "pause.ark").stat().st_mtime_ns
    assert pause_feats.main(["--data", str(d)]) == 0  # done: skipped
    assert (d / "pause.ark").stat().st_mtime_ns == mtime
    assert pause_feats.main(["--data", str(d), "--force", "--cap", "0.5"]) == 0
    assert load_word_features(d, ["pause"])["r-1"][:, pa].tolist() == [0.0, 0.5]
