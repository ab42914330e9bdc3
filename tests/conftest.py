"""Shared fixtures: the repository root, the corpus directory, tiny data directories."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpora (PUNCT_CORPUS_DIR, default ../shared/data); skip if absent."""
    d = Path(os.environ.get("PUNCT_CORPUS_DIR", ROOT.parent / "shared" / "data"))
    if not d.is_dir():
        pytest.skip(f"corpus directory {d} not found")
    return d


def run_module(module: str, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m module args`` and capture its output as text."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="UTF-8")
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def run_py():
    return run_module
