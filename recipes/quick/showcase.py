"""What a user gets: the shipped default model on real ASR output, beside the engines.

    python recipes/quick/showcase.py --corpus-dir ../shared/data --data data/quick \
        --out exp/quick/showcase [--calls 3] [--model models/default.pt]

Punctuates, as ``punct restore`` does for a user, the first CALLS Earnings-21
calls as two Kaldi recognizers wrote them (the commercial model, ~13% WER, and
the public LibriSpeech model, ~49%; word times, so the pause stage works) and
the TED talks of ``DATA/test2011`` (reference words), and scores each against
its reference with ``punct score``; the four commercial engines' own
punctuation of the same calls is scored the same way. Prints one table (and
writes it to OUT/table.txt, the reports to OUT/<row>.json). Case columns appear
when the scorer reports case (both sides cased).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from punct.bin.common import ArgumentParser, add_common, require_inputs, run  # noqa: E402
from punct.errors import PunctError  # noqa: E402
from punct.fsutil import atomic_write  # noqa: E402

ENGINES = ("amazon", "google", "microsoft", "speechmatics")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="recipes/quick/showcase.py", description=__doc__.splitlines()[0])
    p.add_argument("--corpus-dir", required=True, help="folder holding earnings21/ (and the rest of the corpora)")
    p.add_argument("--data", required=True, help="the quick recipe's data folder (holds test2011)")
    p.add_argument("--out", required=True, help="output folder (restored sets, reports, table.txt)")
    p.add_argument("--calls", type=int, default=3, help="Earnings-21 calls to punctuate (default 3)")
    p.add_argument("--model", default=None, help="model to show (default: the shipped default)")
    add_common(p)
    return p


def _punct(*args: str) -> str:
    """Run ``python -m punct ARGS`` quietly; its stdout, or a PunctError with its last stderr line."""
    r = subprocess.run([sys.executable, "-m", "punct", *args], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["no message"])[-1]
        raise PunctError(f"punct {args[0]} failed: {last}")
    return r.stdout


def _case_f1(report: dict) -> float | None:
    case = report.get("case")
    if isinstance(case, dict):
        overall = case.get("overall", case)
        if isinstance(overall, dict) and "f1" in overall:
            return float(overall["f1"])
    return None


def _row(name: str, words: str, report: dict) -> dict:
    cls = report.get("classes", {})
    return {"system": name, "input": words, "wer": report.get("wer"), "f1": report["overall"]["f1"],
            "comma": cls.get("COMMA", {}).get("f1"), "period": cls.get("PERIOD", {}).get("f1"),
            "question": cls.get("QUESTION", {}).get("f1"), "ser": report.get("ser"), "case": _case_f1(report)}


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.1f}"


def table(rows: list[dict]) -> str:
    """The rows as a fixed-width table (case column only when some row has it)."""
    case = any(r["case"] is not None for r in rows)
    head = ["system", "input", "WER", "F1", "comma", "period", "question", "SER"] + (["case F1"] if case else [])
    lines = [f"{head[0]:<26} {head[1]:<28} " + " ".join(f"{h:>8}" for h in head[2:])]
    for r in rows:
        vals = [r["wer"], r["f1"], r["comma"], r["period"], r["question"], r["ser"]] + ([r["case"]] if case else [])
        lines.append(f"{r['system']:<26} {r['input']:<28} " + " ".join(f"{_fmt(v):>8}" for v in vals))
    return "\n".join(lines)


def _main(args: argparse.Namespace) -> int:
    if args.calls < 1:
        raise PunctError(f"--calls must be at least 1, got {args.calls}")
    data, out = Path(args.data), Path(args.out)
    require_inputs([data / "test2011"], "prepared data directory")
    require_inputs([Path(args.corpus_dir) / "earnings21"], "corpus folder")
    e21 = data / "earnings21_showcase"
    out.mkdir(parents=True, exist_ok=True)
    # the first CALLS Earnings-21 calls: reference, Kaldi CTMs and engine outputs as data directories
    r = subprocess.run([sys.executable, "recipes/earnings/prepare.py", "--corpus-dir", args.corpus_dir, "--out-dir",
                        str(e21), "--max-calls", str(args.calls), "--e21-only"], cwd=ROOT)
    if r.returncode != 0:
        raise PunctError("preparing the Earnings-21 calls failed (its error is above)")
    model = ["--model", args.model] if args.model else []
    name = Path(args.model).stem if args.model else "punct default"
    jobs = [("e21_kaldi_rev", f"Kaldi CTM ({args.calls} calls)", e21 / "e21_ref"),
            ("e21_kaldi_libri", f"Kaldi LibriSpeech CTM ({args.calls})", e21 / "e21_ref"),
            ("test2011", "TED test2011 text", data / "test2011")]
    rows = []
    for src, label, ref in jobs:
        hyp_dir = e21 / src if src.startswith("e21") else data / src
        restored = out / f"restored_{src}"
        if restored.is_dir():  # a rerun: the folder is this script's own output
            shutil.rmtree(restored)
        _punct("restore", str(hyp_dir), "-o", str(restored), "--output-format", "datadir", "--capitalize", *model)
        report = json.loads(_punct("score", str(ref), str(restored), "--json"))
        rows.append(_row(name, label, report))
        (out / f"{src}.json").write_text(json.dumps(report, indent=1))
    for e in ENGINES:
        report = json.loads(_punct("score", str(e21 / "e21_ref"), str(e21 / f"e21_{e}"), "--json"))
        rows.append(_row(f"{e} (own marks)", f"{e} ASR ({args.calls} calls)", report))
        (out / f"e21_{e}.json").write_text(json.dumps(report, indent=1))
    text = table(rows)
    with atomic_write(out / "table.txt") as f:
        f.write(text + "\n")
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, build_parser().parse_args(argv), prog="recipes/quick/showcase.py")


if __name__ == "__main__":
    sys.exit(main())
