"""benchmarks/bench_restore.py runs (its --tiny mode: tiny models on a tiny CTM; no timing asserted)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("onnxruntime")


def test_bench_restore_tiny_mode_runs_and_writes_its_json(repo_root, tmp_path):
    out = tmp_path / "bench.json"
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    r = subprocess.run([sys.executable, str(repo_root / "benchmarks" / "bench_restore.py"), "--tiny",
                        "--runtimes", "onnx", "--json", str(out)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads(out.read_text())
    rows = data["rows"]
    from punct.engine.infer import default_workers

    auto = default_workers()
    assert [(os.path.basename(x["model"]), x["runtime"], x["workers"]) for x in rows] == [
        ("tiny_a.pt", "onnx", 1), ("tiny_a.pt", "onnx", auto), ("tiny_b.pt", "onnx", 1), ("tiny_b.pt", "onnx", auto)]
    for x in rows:
        assert x["words"] == 800 and x["decode_words_per_cpu_s"] > 0 and x["wall_cpu_s_per_kword"] > 0 and x["decode_words_per_s"] > 0 and x["peak_rss_mb"] > 0 and x["startup_s"] > 0
        assert x["torch_imported"] is False  # the graph was exported before: restore runs without torch
    assert rows[0]["lines_differing_from_first_runtime"] == 0
    assert data["info"]["tiny"] is True and "onnx" in r.stdout
