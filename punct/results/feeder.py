"""RESULTS.md's section on the one feeder: ``punct decode`` and ``punct restore`` give the same
labels, and decoding speed by batch size and runtime, from ``benchmarks/bench_feeder.py
--json exp/benchmarks/feeder.json``."""
from __future__ import annotations

import json
from pathlib import Path


def feeder_section(exp_root: Path) -> list[str]:
    """The section's Markdown lines (none when the benchmark has not been run)."""
    path = exp_root / "benchmarks" / "feeder.json"
    if not path.is_file():
        return []
    d = json.loads(path.read_text(encoding="utf-8"))
    lines = ["## One feeder: `punct decode` and `punct restore` give the same labels", "",
             "| set | utterances | words | same label | identical |", "|---|---|---|---|---|"]
    for a in d.get("agreement") or []:
        lines.append(f"| {a['set']} | {a['utterances']} | {a['words']:,} | {a['same']:,} | "
                     f"{'yes' if a['identical'] else 'no'} |")
    lines += ["", f"{d.get('model')}, default runtime. `test2011`: `punct restore` of the data directory; "
              "`e21_kaldi_rev`: `punct restore` of each of the Kaldi CTM files the data directory was made from; "
              "against `punct decode` (punct.engine.decode) of the data directory.", ""]
    speed = d.get("speed") or []
    if speed:
        lines += ["| runtime | batch | words per CPU second | CPU s | wall s | labels of batch 1 |",
                  "|---|---|---|---|---|---|"]
        for r in speed:
            lines.append(f"| {r['runtime']} | {r['batch']} | {r['words_per_cpu_s']:,.0f} | {r['cpu_s']:.2f} | "
                         f"{r['wall_s']:.2f} | {'yes' if r['same_labels'] else 'no'} |")
        lines += ["", f"Decoding `{d.get('speed_set')}` ({speed[0]['words']:,} words) on {d.get('threads')} thread, "
                  "without loading the model and the words; CPU seconds of the process (robust to other jobs). Load "
                  f"average before/after {d.get('load_before')} / {d.get('load_after')} on {d.get('cores')} cores.", ""]
    lines += [f"Command: `{d.get('command')}`", ""]
    return lines
