"""punct.results.feeder: RESULTS.md's section on the one feeder from benchmarks/bench_feeder.py's
JSON (the benchmark run in its tiny mode: tests/benchmarks/test_bench_feeder.py)."""
from __future__ import annotations

import json

from punct.results.feeder import feeder_section

RUN = {"model": "models/default.pt", "command": "python benchmarks/bench_feeder.py --json exp/benchmarks/feeder.json",
       "agreement": [{"set": "test2011", "utterances": 818, "words": 12626, "same": 12626, "identical": True},
                     {"set": "e21_kaldi_rev", "utterances": 44, "words": 39075, "same": 39070, "identical": False}],
       "speed": [{"runtime": "onnx", "batch": 1, "words_per_cpu_s": 10234.6, "cpu_s": 1.23, "wall_s": 1.3,
                  "same_labels": True, "words": 12626}],
       "speed_set": "test2011", "threads": 1, "load_before": [0.5], "load_after": [1.0], "cores": 2}


def test_no_benchmark_no_section(tmp_path):
    assert feeder_section(tmp_path) == []


def test_the_section_has_the_agreement_and_speed_tables_and_the_command(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "feeder.json").write_text(json.dumps(RUN))
    lines = feeder_section(tmp_path)
    assert lines[0].startswith("## One feeder")
    assert "| test2011 | 818 | 12,626 | 12,626 | yes |" in lines
    assert "| e21_kaldi_rev | 44 | 39,075 | 39,070 | no |" in lines
    assert "| onnx | 1 | 10,235 | 1.23 | 1.30 | yes |" in lines
    assert any("Decoding `test2011` (12,626 words) on 1 thread" in x for x in lines)
    assert lines[-2] == f"Command: `{RUN['command']}`"


def test_without_speed_rows_the_speed_table_is_left_out(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "feeder.json").write_text(json.dumps(dict(RUN, speed=[])))
    text = "\n".join(feeder_section(tmp_path))
    assert "| runtime | batch |" not in text and "| test2011 | 818 |" in text
