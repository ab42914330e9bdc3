"""punct.results.live: RESULTS.md's section on live punctuation from benchmarks/bench_live.py's
JSON: F1 by lookahead against offline, and the compute and delay of a mark (the benchmark run
in its tiny mode: tests/benchmarks/test_bench_live.py)."""
from __future__ import annotations

import json

from punct.results.live import live_section

RUN = {"model": "models/default.pt", "runtime": "onnx", "context": 2, "flush_after": 1.0, "threads": 1,
       "command": "python benchmarks/bench_live.py --json exp/benchmarks/live.json",
       "sets": [{"set": "test2011", "words": 12626, "streams": 818, "offline": {"f1": 60.04},
                 "live": [{"lookahead": 0, "f1": 40.0, "below_offline": 20.04},
                          {"lookahead": 5, "f1": 59.9, "below_offline": 0.14}]},
                {"set": "e21", "max_words": 2000, "words": 4000, "streams": 2, "offline": {"f1": None},
                 "live": [{"lookahead": 0, "f1": None}, {"lookahead": 5, "f1": 50.0, "below_offline": None}]}],
       "latency": [{"lookahead": 5, "words": 9912, "mean_ms": 0.123, "p95_ms": 0.3, "max_ms": 2.5,
                    "mean_delay_words": 5.0, "mean_wait_s": 1.9, "same_as_batched": 9912, "decided": 9912}]}


def write(tmp_path, run):
    (tmp_path / "benchmarks").mkdir(exist_ok=True)
    (tmp_path / "benchmarks" / "live.json").write_text(json.dumps(run))


def test_no_benchmark_no_section(tmp_path):
    assert live_section(tmp_path) == []


def test_f1_by_lookahead_with_its_difference_from_offline(tmp_path):
    write(tmp_path, RUN)
    lines = live_section(tmp_path)
    assert "| set | words | streams | lookahead 0 | lookahead 5 | offline |" in lines
    assert "| test2011 | 12,626 | 818 | 40.0 (-20.0) | 59.9 (-0.1) | 60.0 |" in lines
    assert "| e21 (first 2,000 words of each) | 4,000 | 2 | - (-) | 50.0 (-) | - |" in lines  # undefined: a dash
    assert "| 5 | 9,912 | 0.12 | 0.30 | 2.50 | 5.00 | 1.90 | 9912/9912 |" in lines
    assert lines[-2] == f"Command: `{RUN['command']}`"


def test_without_latency_rows_their_table_is_left_out(tmp_path):
    write(tmp_path, dict(RUN, latency=[]))
    assert not any(x.startswith("| lookahead | words |") for x in live_section(tmp_path))
