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


def write_tiny_earnings21(d: Path) -> None:
    """One Earnings-21 call under ``d/earnings21``: its reference, the two Kaldi CTMs and
    the four engines' outputs, in the shared corpus's layout."""
    e21 = d / "earnings21"
    (e21 / "transcripts" / "nlp_references").mkdir(parents=True)
    (e21 / "transcripts" / "nlp_references" / "111.nlp").write_text(
        "token|speaker|ts|endTs|punctuation|case|tags|wer_tags\nGood|0||||UC|[]|[]\nmorning|0|||.|LC|[]|[]\n")
    for sub in ("kaldi_org/librispeech/ctm", "rev/kaldi/ctm"):
        (e21 / "output" / sub).mkdir(parents=True)
        (e21 / "output" / sub / "111.ctm").write_text("111 A 0.10 0.30 good 1.00\n111 A 0.90 0.40 morning 1.00\n")
    for eng in ("amazon", "google", "microsoft", "speechmatics"):
        (e21 / "output" / eng).mkdir(parents=True)
        (e21 / "output" / eng / "111.nlp").write_text(
            "token|speaker|ts|endTs|punctuation|case|tags\nGood|1|0.1|0.4||UC|\nmorning|1|0.9|1.3|.|LC|\n")


@pytest.fixture
def tiny_earnings21():
    """``write_tiny_earnings21`` (a function of the corpus folder)."""
    return write_tiny_earnings21
