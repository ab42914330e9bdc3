"""Tiny corpora for the model tests (the same synthetic rule as tests/engine)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from punct.datadir import write_datadir

_spec = importlib.util.spec_from_file_location("engine_synthetic", Path(__file__).resolve().parents[1] / "engine" / "conftest.py")
_engine = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_engine)
make_utts = _engine.make_utts


@pytest.fixture(scope="session")
def tiny_model_data(tmp_path_factory):
    """(train_dir, valid_dir) of the synthetic corpus."""
    root = tmp_path_factory.mktemp("tiny_models")
    write_datadir(root / "train", make_utts(12, 60, 1))
    write_datadir(root / "dev", make_utts(3, 40, 2))
    return root / "train", root / "dev"
