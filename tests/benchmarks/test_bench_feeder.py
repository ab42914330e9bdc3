"""benchmarks/bench_feeder.py runs (its --tiny mode; no timing asserted): decode and restore
agree on every word, every batch size gives the labels of batch 1, and RESULTS.md renders it."""
from __future__ import annotations

import json
import os
import subprocess
import sys


def test_bench_feeder_tiny_mode_agrees_and_its_section_renders(repo_root, tmp_path):
    out = tmp_path / "benchmarks" / "feeder.json"
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    r = subprocess.run([sys.executable, str(repo_root / "benchmarks" / "bench_feeder.py"), "--tiny", "--batches", "1",
                        "7", "--runtimes", "torch", "--json", str(out)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(out.read_text())
    (a,) = d["agreement"]
    assert a["identical"] and a["same"] == a["words"] == 300 and a["utterances"] == 3
    assert [(s["runtime"], s["batch"], s["same_labels"]) for s in d["speed"]] == [("torch", 1, True), ("torch", 7, True)]
    from punct.results.feeder import feeder_section

    text = "\n".join(feeder_section(tmp_path))
    assert "| tiny | 3 | 300 | 300 | yes |" in text and "| torch | 7 |" in text
    assert feeder_section(tmp_path / "none") == []
