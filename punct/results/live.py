"""RESULTS.md's section on live punctuation: F1 against lookahead and the compute and delay of
a mark, from ``benchmarks/bench_live.py --json exp/benchmarks/live.json``."""
from __future__ import annotations

import json
from pathlib import Path


def _f(x, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def _diff(below) -> str:
    return "-" if below is None else f"{-below:+.1f}"


def live_section(exp_root: Path) -> list[str]:
    """The section's Markdown lines (none when the benchmark has not been run)."""
    path = exp_root / "benchmarks" / "live.json"
    if not path.is_file():
        return []
    d = json.loads(path.read_text(encoding="utf-8"))
    sets = d.get("sets") or []
    looks = [r["lookahead"] for r in (sets[0]["live"] if sets else [])]
    header = ["set", "words", "streams"] + [f"lookahead {n}" for n in looks] + ["offline"]
    lines = ["## Live punctuation: F1 against lookahead (`punct restore --live`)", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for s in sets:
        cells = [s["set"] + (f" (first {s['max_words']:,} words of each)" if s.get("max_words") else ""),
                 f"{s['words']:,}", str(s["streams"])]
        cells += [f"{_f(r['f1'])} ({_diff(r.get('below_offline'))})" for r in s["live"]]
        cells.append(_f(s["offline"]["f1"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Overall F1 (its difference from offline), {d.get('model')} on {d.get('runtime')}, {d.get('context')} "
              f"sentences of left context, --flush-after {d.get('flush_after')}; offline is `punct restore` on the "
              "whole input. Every word is fed alone and each mark decided as the filter decides it.", ""]
    lat = d.get("latency") or []
    if lat:
        lines += ["| lookahead | words | compute ms a word (mean) | 95th percentile | most | words of delay (mean) | "
                  "seconds of speech waited (mean) | labels as batched |", "|---|---|---|---|---|---|---|---|"]
        for r in lat:
            lines.append(f"| {r['lookahead']} | {r['words']:,} | {_f(r['mean_ms'], 2)} | {_f(r['p95_ms'], 2)} | "
                         f"{_f(r['max_ms'], 2)} | {_f(r['mean_delay_words'], 2)} | {_f(r['mean_wait_s'], 2)} | "
                         f"{r['same_as_batched']}/{r['decided']} |")
        lines += ["", f"One stream (the first Earnings-21 Kaldi CTM) fed a word at a time on {d.get('threads')} thread: "
                  "the CPU time from a word's arrival to the marks it makes final. Load average before/after "
                  f"{d.get('load_before')} / {d.get('load_after')} on {d.get('cores')} cores.", ""]
    lines += [f"Command: `{d.get('command')}`", ""]
    return lines
