"""recipes/quick/showcase.py's baseline: a model file, or the default a commit shipped."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from punct.errors import PunctError

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("showcase", ROOT / "recipes" / "quick" / "showcase.py")
showcase = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(showcase)


def test_a_baseline_file_is_used_as_it_is_and_a_missing_one_is_an_error(tmp_path):
    model = tmp_path / "old.pt"
    model.write_bytes(b"x")
    assert showcase.baseline_model(str(model), tmp_path) == model
    with pytest.raises(PunctError, match="nope.pt: baseline model file not found"):
        showcase.baseline_model(str(tmp_path / "nope.pt"), tmp_path)
    with pytest.raises(PunctError, match="expected git:REV"):
        showcase.baseline_model("git:", tmp_path)


def test_a_commit_missing_from_the_history_gives_no_rows_and_a_warning(tmp_path, capsys):
    assert showcase.baseline_model("git:0000000000000000000000000000000000000000", tmp_path) is None
    assert "no baseline rows: models/default.pt at 0000000" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(subprocess.run(["git", "cat-file", "-e", "HEAD:models/default.pt"], cwd=ROOT,
                                   capture_output=True).returncode != 0, reason="not a git clone")
def test_a_commit_gives_the_default_it_shipped(tmp_path):
    got = showcase.baseline_model("git:HEAD", tmp_path)
    assert got == tmp_path / "baseline_HEAD.pt"
    shipped = subprocess.run(["git", "show", "HEAD:models/default.pt"], cwd=ROOT, capture_output=True).stdout
    assert got.read_bytes() == shipped
