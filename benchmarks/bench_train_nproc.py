"""How well one training uses the machine's cores: words/s of a real training epoch run as
one process with 1 thread, one process with N threads (``--nproc``), and N data-parallel processes
(torchrun, gloo) with 1 thread each, on the same slice of real data.

    python benchmarks/bench_train_nproc.py --config conf/tbrnn.yaml \
        --train data/iwslt2011/train_2m --valid data/iwslt2011/dev2012 \
        [--train-words 200000] [--valid-words 20000] [--nproc 2] \
        [--override slice_length=50 ...] [--json exp/benchmarks/train_nproc.json]

Each layout trains one epoch from the same seed on the first ``--train-words`` words
(whole utterances) of ``--train``, validated on the first ``--valid-words`` of ``--valid``;
the epoch's words/s and seconds come from the run's own ``train_log.tsv``. The data-parallel
update equals the single-process one, so the three runs must reach the same validation
perplexity; the benchmark fails when they do not (that would be a bug, not a speed).
Run it on an idle machine: other jobs slow every layout down.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def prefix_datadir(src: Path, dst: Path, words: int) -> int:
    """Write the first whole utterances of ``src`` holding at least ``words`` words to ``dst``."""
    from punct.data.datadir import load_utterances, write_datadir

    utts, n = [], 0
    for u in load_utterances(src):
        if n >= words:
            break
        utts.append(u)
        n += len(u.words)
    write_datadir(dst, utts)
    return n


def run_layout(name: str, procs: int, threads: int, args, train: Path, valid: Path, exp: Path) -> dict:
    """Train one epoch with ``procs`` processes sharing ``threads`` threads; its train_log.tsv row."""
    launcher = [sys.executable, "-m", "punct.bin.train"]
    if procs > 1:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(procs),
                    "-m", "punct.bin.train"]
    cmd = [*launcher, "--config", str(args.config), "--train", str(train), "--valid", str(valid), "--exp", str(exp),
           *args.override, "max_epochs=1", "checkpoint_minutes=1000", f"threads={threads}"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    t0 = time.time()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    if r.returncode != 0:
        tail = r.stderr.strip().splitlines()[-1:] or ["no error output"]
        raise SystemExit(f"bench_train_nproc: layout '{name}' failed: {tail[0]}")
    lines = (exp / "train_log.tsv").read_text().splitlines()
    row = dict(zip(lines[0].split("\t"), lines[-1].split("\t")))
    return {"layout": name, "processes": procs, "threads_per_process": max(1, threads // procs),
            "epoch_s": float(row["seconds"]), "words_per_s": float(row["words_per_s"]),
            "valid_ppl": float(row["valid_ppl"]), "wall_s": round(wall, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--train", type=Path, required=True)
    p.add_argument("--valid", type=Path, required=True)
    p.add_argument("--train-words", type=int, default=200000)
    p.add_argument("--valid-words", type=int, default=20000)
    p.add_argument("--nproc", type=int, default=2, help="data-parallel processes (and threads of the one-process run)")
    p.add_argument("--override", nargs="*", default=[], help="config overrides KEY=VALUE for every layout")
    p.add_argument("--json", type=Path, help="write the measurements here")
    args = p.parse_args(argv)
    for path in (args.config, args.train, args.valid):
        if not path.exists():
            raise SystemExit(f"bench_train_nproc: {path}: not found")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench_nproc_") as tmp:
        work = Path(tmp)
        tw = prefix_datadir(args.train, work / "train", args.train_words)
        vw = prefix_datadir(args.valid, work / "valid", args.valid_words)
        layouts = [("1 process, 1 thread", 1, 1), (f"1 process, {args.nproc} threads", 1, args.nproc),
                   (f"{args.nproc} processes, 1 thread each", args.nproc, args.nproc)]
        rows = [run_layout(name, procs, threads, args, work / "train", work / "valid", work / f"exp{i}")
                for i, (name, procs, threads) in enumerate(layouts)]
    ppls = {r["valid_ppl"] for r in rows}
    if max(ppls) - min(ppls) > 1e-3:
        raise SystemExit(f"bench_train_nproc: the layouts disagree on validation perplexity: {sorted(ppls)}")
    base = rows[0]["words_per_s"]
    for r in rows:
        r["speedup"] = round(r["words_per_s"] / base, 2)
    print(f"{'layout':32} {'words/s':>9} {'epoch s':>8} {'speed-up':>8} {'valid ppl':>9}")
    for r in rows:
        print(f"{r['layout']:32} {r['words_per_s']:9.0f} {r['epoch_s']:8.1f} {r['speedup']:8.2f} {r['valid_ppl']:9.4f}")
    if args.json:
        out = {"config": str(args.config), "train_words": tw, "valid_words": vw, "cores": os.cpu_count(),
               "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2), "rows": rows,
               "command": "python benchmarks/bench_train_nproc.py " + " ".join(argv if argv is not None else sys.argv[1:])}
        from punct.fsutil import atomic_write

        with atomic_write(args.json) as f:
            f.write(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
