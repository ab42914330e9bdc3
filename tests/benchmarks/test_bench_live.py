"""benchmarks/bench_live.py runs (its --tiny mode; no timing asserted) and RESULTS.md renders its table."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("onnxruntime")


def test_bench_live_tiny_mode_runs_and_its_section_renders(repo_root, tmp_path):
    out = tmp_path / "benchmarks" / "live.json"
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    r = subprocess.run([sys.executable, str(repo_root / "benchmarks" / "bench_live.py"), "--tiny", "--lookaheads", "0",
                        "3", "--json", str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(out.read_text())
    (s,) = d["sets"]
    assert s["offline"]["f1"] == 100.0 and [x["lookahead"] for x in s["live"]] == [0, 3]
    assert all(x["mean_delay_words"] == pytest.approx(n, abs=0.1) for x, n in zip(s["live"], (0, 3)))
    assert all(x["same_as_batched"] == x["decided"] == 300 for x in d["latency"])
    from punct.results.live import live_section

    text = "\n".join(live_section(tmp_path))
    assert "| tiny | 300 | 1 |" in text and "Command: `python benchmarks/bench_live.py --tiny" in text
    assert live_section(tmp_path / "none") == []
