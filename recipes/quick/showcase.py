"""What a user gets: the shipped default model on real ASR output, beside the engines.

    python recipes/quick/showcase.py --corpus-dir ../shared/data --data data/quick \
        --out exp/quick/showcase [--calls 3] [--model models/default.pt] \
        [--baseline git:REV | --baseline OLD.pt]

Punctuates, as ``punct restore`` does for a user, the first CALLS Earnings-21
calls as two Kaldi recognizers wrote them (the commercial model, ~13% WER, and
the public LibriSpeech model, ~49%; word times, so the pause stage works) and
the TED talks of ``DATA/test2011`` (reference words), and scores each against
its reference with ``punct score``. A baseline model (the previous default, read
from the commit that shipped it with ``git:REV``) punctuates the same inputs for
the rows beside them, and the four commercial engines' own punctuation of the
same calls is scored the same way. Prints one table (and
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
    p.add_argument("--baseline", default=None,
                   help="a model to show beside it: a file, or git:REV for models/default.pt as commit REV "
                        "shipped it (skipped with a warning when this clone's history lacks REV)")
    add_common(p)
    return p


def _punct(*args: str) -> str:
    """Run ``python -m punct ARGS`` quietly; its stdout, or a PunctError with its last stderr line."""
    r = subprocess.run([sys.executable, "-m", "punct", *args], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["no message"])[-1]
        raise PunctError(f"punct {args[0]} failed: {last}")
    return r.stdout


def baseline_model(spec: str, out: Path) -> Path | None:
    """The baseline's model file: SPEC itself, or for ``git:REV`` REV's models/default.pt
    written to OUT/baseline_REV.pt; None (with a warning) when git or the commit is missing."""
    if not spec.startswith("git:"):
        path = Path(spec)
        if not path.is_file():
            raise PunctError(f"{spec}: baseline model file not found")
        return path
    rev = spec[4:]
    if not rev or rev.startswith("-"):
        raise PunctError(f"--baseline {spec!r}: expected git:REV, a commit of this repository")
    target = out / f"baseline_{rev.replace('/', '_')}.pt"  # written anew: a name such as HEAD moves
    try:
        r = subprocess.run(["git", "show", f"{rev}:models/default.pt"], cwd=ROOT, capture_output=True)
        why = (r.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        ok = r.returncode == 0
    except OSError as e:  # no git on this machine
        why, ok = str(e), False
    if not ok:
        print(f"showcase: warning: no baseline rows: models/default.pt at {rev} is not in this clone ({why})",
              file=sys.stderr)
        return None
    with atomic_write(target, "wb") as f:
        f.write(r.stdout)
    return target


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
    e21 = data / f"earnings21_showcase_{args.calls}"  # one folder a call count: prepare.py skips a set it has made
    out.mkdir(parents=True, exist_ok=True)
    # the first CALLS Earnings-21 calls: reference, Kaldi CTMs and engine outputs as data directories
    r = subprocess.run([sys.executable, "recipes/earnings/prepare.py", "--corpus-dir", args.corpus_dir, "--out-dir",
                        str(e21), "--max-calls", str(args.calls), "--e21-only"], cwd=ROOT)
    if r.returncode != 0:
        raise PunctError("preparing the Earnings-21 calls failed (its error is above)")
    systems = [(Path(args.model).stem if args.model else "punct default", args.model, "")]
    if args.baseline:
        old = baseline_model(args.baseline, out)
        if old is not None:
            label = f"punct previous ({args.baseline[4:]})" if args.baseline.startswith("git:") else old.stem
            systems.append((label, str(old), "_baseline"))
    jobs = [("e21_kaldi_rev", f"Kaldi CTM ({args.calls} calls)", e21 / "e21_ref"),
            ("e21_kaldi_libri", f"Kaldi LibriSpeech CTM ({args.calls})", e21 / "e21_ref"),
            ("test2011", "TED test2011 text", data / "test2011")]
    rows = []
    for src, label, ref in jobs:  # each input's rows together: the model, then its baseline
        hyp_dir = e21 / src if src.startswith("e21") else data / src
        for name, model, suffix in systems:
            restored = out / f"restored_{src}{suffix}"
            if restored.is_dir():  # a rerun: the folder is this script's own output
                shutil.rmtree(restored)
            _punct("restore", str(hyp_dir), "-o", str(restored), "--output-format", "datadir", "--capitalize",
                   *(["--model", model] if model else []))
            report = json.loads(_punct("score", str(ref), str(restored), "--json"))
            rows.append(_row(name, label, report))
            with atomic_write(out / f"{src}{suffix}.json") as f:
                f.write(json.dumps(report, indent=1))
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
