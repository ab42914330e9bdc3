"""Wall time of ``punct restore`` on a real hour-long ASR CTM, and a check that it keeps every word and time.

    python benchmarks/bench_restore_call.py [--ctm CTM ...] [--model models/default.pt]
        [--threads 1] [--json exp/benchmarks/restore_earnings21.json]

Runs the installed command exactly as a user would (``python -m punct restore CTM
-o OUT.ctm``, a fresh process that loads the model, reads, decodes and writes)
on each CTM; the default is the Earnings-21 call 4366302 (59.9 minutes, 9,912
words) from the commercial Kaldi system and from the public LibriSpeech Kaldi
model in ``../shared/data/earnings21/output/``. It reports the wall-clock time,
the words per second, the peak resident memory of the process, the machine's
core count and load, and compares the punctuated CTM with the input line by line:
same file, channel, start, duration and confidence fields, and the same word with
at most one mark (``, . ?``) appended. Any difference is an error.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "earnings21" / "output"
DEFAULT_CTMS = [DATA / "rev" / "kaldi" / "ctm" / "4366302.ctm",
                DATA / "kaldi_org" / "librispeech" / "ctm" / "4366302.ctm"]
MARK = re.compile(r"^(.*?)([,.?])?$")


def compare(src: Path, out: Path) -> dict:
    """Line-by-line comparison of a CTM and its punctuated copy (after NIST sorting of both)."""
    def rows(path: Path) -> list[list[str]]:
        lines = [ln.split() for ln in path.read_text(encoding="utf-8").splitlines()]
        lines = [f for f in lines if f and not f[0].startswith(";;")]
        return sorted(lines, key=lambda f: (f[0], f[1], float(f[2])))

    a, b = rows(src), rows(out)
    if len(a) != len(b):
        raise SystemExit(f"error: {out}: {len(b)} words, the input {src} has {len(a)}")
    marks = {",": 0, ".": 0, "?": 0}
    for k, (x, y) in enumerate(zip(a, b), 1):
        word, mark = MARK.match(y[4]).groups()
        # times compared as numbers: the writer may drop a trailing zero (3.240 -> 3.24)
        same_times = [float(v) for v in x[2:4]] == [float(v) for v in y[2:4]]
        same_conf = [float(v) for v in x[5:]] == [float(v) for v in y[5:]]
        if x[:2] != y[:2] or not same_times or not same_conf or word != x[4]:
            raise SystemExit(f"error: {out}: word {k} is {' '.join(y)!r}, the input has {' '.join(x)!r}")
        if mark:
            marks[mark] += 1
    duration = max((float(f[2]) + float(f[3]) for f in a), default=0.0)
    return {"words": len(a), "marks": marks, "audio_seconds": duration}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ctm", nargs="+", type=Path, default=DEFAULT_CTMS, help="CTM files (default: Earnings-21 call 4366302)")
    p.add_argument("--model", default=None, help="model file (default: punct restore's own, models/default.pt)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", type=Path, default=None, help="also write the measurements here")
    args = p.parse_args(argv)
    runs = []
    load_before = list(os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        for src in args.ctm:
            if not src.is_file():
                raise SystemExit(f"error: {src}: CTM not found")
            out = Path(tmp) / (src.parent.parent.name + "_" + src.name)
            cmd = [sys.executable, "-m", "punct", "restore", str(src), "-o", str(out), "--threads", str(args.threads)]
            if args.model:
                cmd += ["--model", args.model]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if r.returncode != 0:
                raise SystemExit(f"error: {' '.join(cmd)} failed: {r.stderr.strip().splitlines()[-1:]}")
            check = compare(src, out)
            row = {"ctm": str(src.relative_to(DATA)) if src.is_relative_to(DATA) else str(src),
                   "audio_minutes": round(check["audio_seconds"] / 60, 1), "words": check["words"], "marks": check["marks"],
                   "wall_s": round(wall, 2), "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
                   "words_per_s": round(check["words"] / wall), "peak_rss_mb": round(after.ru_maxrss / 1024),
                   "identical_words_and_times": True,
                   "command": "python -m punct restore CTM -o OUT.ctm --threads %d%s" % (
                       args.threads, f" --model {args.model}" if args.model else "")}
            runs.append(row)
            print(json.dumps(row))
    result = {"machine": {"cores": os.cpu_count(), "machine": platform.machine(), "python": platform.python_version()},
              "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
              "runs": runs, "command": "python benchmarks/bench_restore_call.py" + (f" --json {args.json}" if args.json else "")}
    if args.json:
        from punct.fsutil import atomic_write

        with atomic_write(args.json) as f:
            f.write(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
