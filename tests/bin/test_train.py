"""punct.bin.train: the stop command on a tiny run (training itself: tests/engine/test_train.py)."""
from __future__ import annotations

from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_train_stop_command(tiny_data, tiny_args, tmp_path, capsys):
    import json

    from punct.bin import train

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    base = ["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev), "--exp", str(exp),
            "batch_size=4", "slice_length=20", *tiny_args]
    assert train.main(["--stop", "--exp", str(exp)]) == 1  # nothing to stop yet
    assert capsys.readouterr().err.strip() == f"error: {exp}: experiment directory not found"
    assert train.main(base + ["--max-epochs", "1"]) == 0
    assert train.main(["--stop", "--exp", str(exp), "--why", "enough"]) == 0
    assert "training ends after its current epoch" in capsys.readouterr().out
    assert (exp / "stop").read_text() == "enough\n"
    assert train.main(base + ["--max-epochs", "3"]) == 0  # the resumed run stops at once
    done = json.loads((exp / "train_done.json").read_text())
    assert done == dict(done, stopped="by hand", why="enough", epochs=1)
    capsys.readouterr()
    # wrong combinations are one-line errors
    assert train.main(["--stop", "--exp", str(exp), "--config", "x.yaml"]) == 1
    assert capsys.readouterr().err.strip() == "error: --stop takes only --exp and --why"
    assert train.main(["--exp", str(exp), "--train", str(tr)]) == 1
    assert capsys.readouterr().err.strip() == "error: missing --config, --valid (required unless --stop)"
    assert train.main(base + ["--why", "x"]) == 1
    assert capsys.readouterr().err.strip() == "error: --why goes with --stop"


def test_time_budget_durations():
    import argparse

    from punct.bin.train import duration

    assert [duration(x) for x in ("9000", "150m", "2h30m", "45s", "1.5h")] == [9000, 9000, 9000, 45, 5400]
    for bad in ("", "soon", "0", "-5", "2x"):
        with pytest.raises(argparse.ArgumentTypeError):
            duration(bad)
