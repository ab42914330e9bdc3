"""punct compare: a paired bootstrap of two hypotheses against one reference."""
import json
import random

import pytest

from punct.bin import compare
from punct.cli import main as punct_main
from punct.data.datadir import write_datadir
from punct.text.labels import LABELS, MARK_LABELS, O
from punct.text.words import Utterance, Word


def _write(path, labels_per_utt):
    write_datadir(path, [Utterance(f"talk{u}", [Word(f"w{k}", lab) for k, lab in enumerate(labels)])
                         for u, labels in enumerate(labels_per_utt)])
    return path


@pytest.fixture
def dirs(tmp_path):
    rng = random.Random(4)
    ref = [[rng.choice(MARK_LABELS) if rng.random() < 0.2 else O for _ in range(400)] for _ in range(4)]

    def noisy(flip):
        return [[rng.choice(LABELS) if rng.random() < flip else lab for lab in u] for u in ref]

    return (_write(tmp_path / "ref", ref), _write(tmp_path / "good", noisy(0.05)),
            _write(tmp_path / "bad", noisy(0.4)))


def test_the_better_hypothesis_wins_with_a_small_p_value(dirs, capsys):
    ref, good, bad = dirs
    assert compare.main([str(ref), str(good), str(bad), "--resamples", "300", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ov = d["metrics"]["overall"]
    assert ov["a"] > ov["b"] and ov["low"] > 0 and ov["p_value"] < 0.01
    assert d["blocks"] == 16 and d["a"] == str(good)
    assert punct_main(["compare", str(ref), str(good), str(good), "--resamples", "100"]) == 0
    table = capsys.readouterr().out
    row = next(x for x in table.splitlines() if x.startswith("overall")).split()
    assert row[3] == "+0.00" and row[-1] == "1.000"


def test_hypotheses_over_different_words_are_one_line(dirs, tmp_path, capsys):
    ref, good, _ = dirs
    short = _write(tmp_path / "short", [[O] * 400, [O] * 400, [O] * 400, [O] * 399])
    assert compare.main([str(ref), str(good), str(short)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"error: {good} vs {short}: utterance 'talk3': 400 words in hypothesis A but 399 in B")


def test_compare_and_bootstrap_do_not_import_torch(dirs):
    import os
    import subprocess
    import sys
    from pathlib import Path

    ref, good, bad = dirs
    code = ("import sys\nfrom punct.bin import compare, score\n"
            f"assert compare.main([{str(ref)!r}, {str(good)!r}, {str(bad)!r}, '--resamples', '50']) == 0\n"
            f"assert score.main([{str(ref)!r}, {str(good)!r}, '--bootstrap', '50']) == 0\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(root)))
    assert r.returncode == 0, r.stderr
    assert "paired bootstrap" in r.stdout and "95% intervals" in r.stdout
