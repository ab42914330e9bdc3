"""Generate RESULTS.md from the experiment directories under exp/.

Usage: python -m punct.bin.results --exp exp --out RESULTS.md [--print exp/<corpus>]

Reads every ``exp/<corpus>/<model>/decode_<set>/scoring/report.json`` with the
experiment's ``config.yaml``, ``train_log.tsv``, ``run.cmd`` and the decode's
``decode_stats.json``, and writes one table per corpus of its test sets' rows, and
one of the rows decoded on its validation set (``run.sh --decode-sets``). Every row
names the command that reproduces it. Published numbers of the papers are
listed beside the matching models with their source. Nothing here is typed by
hand: rerun this after any experiment.

The ledger (``RESULTS.json`` beside the output, ``--ledger``) keeps every row and
section this command has written. A row or section whose files are no longer
under ``--exp`` (another machine, a fresh clone, a deleted run) is carried over
from it, marked, with its reproducing command; one found under ``--exp``
replaces its ledger entry. A results table therefore never loses a measured
number because the experiment directory that produced it is gone.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, run


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.results", description=__doc__.split("\n\n")[0])
    p.add_argument("--exp", default="exp", help="experiment root (default: exp)")
    p.add_argument("--out", default="RESULTS.md", help="output Markdown file")
    p.add_argument("--data", default="data", help="data root: label statistics of its prepared sets (default: data)")
    p.add_argument("--ledger", default=None,
                   help="the ledger of every row written so far (default: the --out file with suffix .json)")
    p.add_argument("--no-ledger", action="store_true", help="neither read nor write a ledger: exp/ only")
    p.add_argument("--print", dest="print_dir", default=None, help="also print the score tables of this exp/<corpus> dir")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.results import generate

    ledger = None if args.no_ledger else Path(args.ledger or Path(args.out).with_suffix(".json"))
    fresh = generate(Path(args.exp), Path(args.out), Path(args.data), ledger)
    if args.print_dir:
        want = Path(args.print_dir).name
        for r in fresh:
            if r["corpus"] == want:
                table = Path(r["exp_dir"]) / f"decode_{r['set']}" / "scoring" / "report.txt"
                print(f"== {r['exp']} on {r['set']} ==")
                print(table.read_text(encoding="utf-8") if table.is_file() else "(no report.txt)")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, "punct.bin.results")


if __name__ == "__main__":
    raise SystemExit(main())
