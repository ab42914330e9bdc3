"""Speed of ``punct restore`` by model and runtime, in one run: decoding and wall-clock words/s,
start-up on five words, peak memory, and whether the labels equal the first runtime's.

    python benchmarks/bench_restore.py [--model OTHER.pt ...] [--ctm CTM]
        [--runtimes torch onnx onnx-int8] [--threads 1] [--workers 1 auto] [--startup-repeats 3]
        [--json exp/benchmarks/restore_runtimes.json] [--tiny]

Models: the shipped ``models/default.pt``, each ``--model`` (a candidate default, say) and,
with ``--widths 128/256 96/48 ...``, randomly initialised TA-BRNN-p models with a case head
of those GRU/attention widths (what a student architecture costs before it is trained).
Runtimes: punct.engine.runtime (``torch``; ``torch-bf16``, its matrix products in bfloat16;
``onnx``, the exported graph, cached once before timing; ``onnx-int8``, its int8 dynamic
quantization). Workers: ``--workers`` of ``punct
restore`` (``1``: the sequential windows; ``auto``: its default, parallel segments on the
usable cores); each runtime is measured with each. Input: the Earnings-21 call 4366302
(59.9 minutes, 9,912 words) from the commercial Kaldi system in ``$PUNCT_CORPUS_DIR``
(default ``../shared/data``). For each
model and runtime, each measurement in a fresh process:

- decode: ``Restorer.restore`` alone in a process that has loaded the model and read the
  CTM (wall and CPU seconds, words/s); the process's imports, model load, read and write too;
- wall: ``python -m punct restore CTM -o OUT.ctm`` as a user runs it, words/s over the
  whole command, and its peak resident size (``ru_maxrss`` of the child);
- start-up: ``echo five words | python -m punct restore -``, the least wall time of
  ``--startup-repeats`` runs, and its CPU time;
- same labels: the output CTM against the first runtime's of the same model, line by line.

CPU seconds are the robust figure on a loaded machine (wall-clock shares the cores); the
table gives decoding words per CPU second and the wall-clock figures as measured.

``--agreement CTM_DIR`` measures instead, in one process, how many words of every CTM of the
folder get the first runtime's label from each runtime (and decoding words per CPU second):

    python benchmarks/bench_restore.py --agreement ../shared/data/earnings21/output/rev/kaldi/ctm

Prints a table (with each row's decoding and wall-clock speed as a ratio of the first row's)
and the machine's load (``os.getloadavg``): a loaded machine slows every row alike, so
compare ratios within one run. ``--tiny``: two randomly initialised tiny TA-BRNN-p models on a
800-word synthetic CTM, graphs cached in a temporary folder; a check that the benchmark runs
(the tests run it), not a measurement.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_CTM = Path(os.environ.get("PUNCT_CORPUS_DIR") or ROOT.parent / "shared" / "data") / "earnings21" / "output" / "rev" / "kaldi" / "ctm" / "4366302.ctm"
FIVE_WORDS = "so how are we doing\n"


def make_random_model(path: Path, words: list[str], seed: int, hidden: int = 16, attention: int = 16,
                      case_head: bool = False, slice_length: int = 40) -> None:
    """A randomly initialised TA-BRNN-p (T-BRNN stage one of width ``hidden`` and attention
    ``attention``, optionally with a case head; pause_after) over ``words``: the decoding cost
    of an architecture without training it."""
    import torch

    from punct.engine import checkpoint
    from punct.engine.inputs import FeatureInputs
    from punct.engine.vocab import Vocabulary
    from punct.text.labels import LABELS
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(seed)
    vocab = Vocabulary.build([words], min_count=1)
    s1 = resolved_model_args("tbrnn", {"embedding_dim": hidden, "hidden_size": hidden, "attention_dim": attention,
                                       "case_head": case_head})
    args = resolved_model_args("ta_brnn", {"hidden_size": hidden, "feature_names": ["pause_after"],
                                           "stage1": {"model": "tbrnn", "model_args": s1}})
    model = build_model("ta_brnn", args, len(vocab))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.5 / max(1.0, hidden / 16) ** 0.5)
    inputs = FeatureInputs(vocab, ["pause"], ["pause_after"], mean=[0.2], std=[0.4])
    checkpoint.save(path, {"model": "ta_brnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(), "inputs": inputs.state(),
                           "train_config": {"slice_length": slice_length, "batch_size": 8}})


def make_tiny_model(path: Path, words: list[str], seed: int) -> None:
    """A randomly initialised tiny TA-BRNN-p over ``words`` (the --tiny check)."""
    make_random_model(path, words, seed)


def width_models(work: Path, widths: list[str]) -> list[Path]:
    """Random TA-BRNN-p models with a case head over the shipped default's vocabulary, one per
    ``HIDDEN/ATTENTION`` of ``widths`` (--widths), decoding 200-word windows as it does."""
    import torch

    vocab = torch.load(ROOT / "models" / "default.pt", map_location="cpu", weights_only=False)["vocab"]
    words = [w for w in vocab if not (w.startswith("<") and w.endswith(">"))]
    out = []
    for spec in widths:
        try:
            hidden, attention = (int(x) for x in spec.split("/"))
        except ValueError:
            raise SystemExit(f"error: --widths: expected HIDDEN/ATTENTION such as 96/48, got {spec!r}") from None
        path = work / f"random_{hidden}_{attention}.pt"
        make_random_model(path, words, 0, hidden, attention, case_head=True, slice_length=200)
        out.append(path)
    return out


def make_ctm(path: Path, words: list[str], n: int, seed: int) -> None:
    rng = random.Random(seed)
    t, lines = 0.0, []
    for w in rng.choices(words, k=n):
        d = rng.uniform(0.1, 0.5)
        lines.append(f"rec A {t:.2f} {d:.2f} {w} 0.9\n")
        t += d + rng.choice([0.0, 0.0, 0.05, 0.4, 1.0])
    path.write_text("".join(lines))


def child(args: argparse.Namespace) -> None:
    """Decode in this process (the model loaded, the CTM read) and print a JSON line of times."""
    import resource

    t0, c0 = time.perf_counter(), time.process_time()
    from punct.engine.restorer import Restorer
    from punct.io import read_input
    from punct.io.writer import write_output

    t1 = time.perf_counter()
    r = Restorer.load(args.model, runtime=args.runtime, threads=args.threads,
                      workers=None if args.workers_one in (None, "auto") else int(args.workers_one))
    t2 = time.perf_counter()
    utts = read_input(args.ctm)
    t3, c3 = time.perf_counter(), time.process_time()
    hyp = r.restore(utts, copy=False)
    t4, c4 = time.perf_counter(), time.process_time()
    write_output(hyp, args.out, "ctm")
    t5 = time.perf_counter()
    n = sum(len(u) for u in utts)
    print(json.dumps({"runtime": r.runtime, "workers": r.workers, "words": n, "import_s": t1 - t0, "load_s": t2 - t1, "read_s": t3 - t2,
                      "decode_s": t4 - t3, "decode_cpu_s": c4 - c3, "write_s": t5 - t4, "process_cpu_s": c4 - c0,
                      "decode_words_per_s": n / (t4 - t3), "decode_words_per_cpu_s": n / max(c4 - c3, 1e-9),
                      "torch_imported": "torch" in sys.modules,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run_measured(cmd: list[str], env: dict, stdin: str | None = None) -> dict:
    """Run ``cmd``: its wall and CPU seconds, peak RSS (MB, os.wait4) and output; exits on failure."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if stdin is not None:
        p.stdin.write(stdin.encode())
        p.stdin.close()
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed:\n{err.decode(errors='replace')[-2000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
            "stdout": out.decode()}


def lines_differing(a: str, b: str) -> int:
    """Lines of ``a`` and ``b`` outside their longest matching blocks (a mark line added to a CTM
    shifts the lines after it, which a line-by-line count would all call different)."""
    import difflib

    la, lb = a.splitlines(), b.splitlines()
    ops = difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")


def version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def measure(models: list[Path], ctm: Path, runtimes: list[str], threads: int, repeats: int, env: dict,
            work: Path, workers: list[str] = ("auto",)) -> list[dict]:
    py = [sys.executable]
    rows = []
    for mi, model in enumerate(models):
        first_out = None
        for rt, wk in [(rt, wk) for rt in runtimes for wk in workers]:
            common = ["--model", str(model), "--runtime", rt, "--threads", str(threads)]
            child_wk = ["--workers-one", wk]
            if wk != "auto":
                common += ["--workers", wk]
            prep = {"wall_s": 0.0}
            if rt != "torch":  # export the graph (once per model file) before anything is timed
                prep = run_measured(py + ["-c", "from punct.engine.restorer import Restorer; "
                                          f"Restorer.load({str(model)!r}, runtime={rt!r})"], env)
            out = work / f"m{mi}_{rt}_{wk}.ctm"
            child_args = ["--model", str(model), "--runtime", rt, "--threads", str(threads)] + child_wk
            dec = json.loads(run_measured(py + [__file__, "--child", "--ctm", str(ctm), "--out", str(out)] + child_args,
                                          env)["stdout"].strip().splitlines()[-1])
            wall = run_measured(py + ["-m", "punct", "restore", str(ctm), "-o", str(work / "wall.ctm")] + common, env)
            starts = [run_measured(py + ["-m", "punct", "restore", "-"] + common, env, stdin=FIVE_WORDS)
                      for _ in range(repeats)]
            best = min(starts, key=lambda s: s["wall_s"])
            text = out.read_text()
            if first_out is None:
                first_out = text
            differ = lines_differing(first_out, text)
            rows.append({"model": str(model), "runtime": rt, "threads": threads, "workers": dec["workers"],
                         "words": dec["words"],
                         "prepare_s": prep["wall_s"], "decode": dec,
                         "decode_words_per_s": dec["decode_words_per_s"],
                         "decode_words_per_cpu_s": dec["decode_words_per_cpu_s"],
                         "wall_s": wall["wall_s"], "wall_cpu_s": wall["cpu_s"],
                         "wall_cpu_s_per_kword": 1000 * wall["cpu_s"] / dec["words"],
                         "wall_words_per_s": dec["words"] / wall["wall_s"], "peak_rss_mb": wall["peak_rss_mb"],
                         "startup_s": best["wall_s"], "startup_cpu_s": best["cpu_s"],
                         "startup_peak_rss_mb": best["peak_rss_mb"], "torch_imported": dec["torch_imported"],
                         "lines_differing_from_first_runtime": differ})
    return rows


def agreement(model: Path, ctm_dir: Path, runtimes: list[str], threads: int) -> dict:
    """Restore every CTM of ``ctm_dir`` with each runtime in this process: the share of words whose
    label equals the first runtime's, the calls with any difference, and decoding words per CPU second."""
    import logging

    from punct.engine.restorer import Restorer
    from punct.io import read_input

    logging.disable(logging.WARNING)
    ctms = sorted(ctm_dir.glob("*.ctm"))
    rs = {rt: Restorer.load(model, runtime=rt, threads=threads) for rt in runtimes}
    cpu = dict.fromkeys(runtimes, 0.0)
    same = dict.fromkeys(runtimes, 0)
    calls = dict.fromkeys(runtimes, 0)
    words = 0
    for c in ctms:
        labels = {}
        for rt, r in rs.items():
            utts = read_input(c)
            t = time.process_time()
            r.restore(utts, copy=False)
            cpu[rt] += time.process_time() - t
            labels[rt] = [w.label for u in utts for w in u.words]
        ref = labels[runtimes[0]]
        words += len(ref)
        for rt in runtimes:
            k = sum(a == b for a, b in zip(labels[rt], ref))
            same[rt] += k
            calls[rt] += k != len(ref)
    logging.disable(logging.NOTSET)
    return {"model": str(model), "ctm_dir": str(ctm_dir), "calls": len(ctms), "words": words,
            "reference_runtime": runtimes[0], "agreement": {rt: same[rt] / max(words, 1) for rt in runtimes},
            "words_differing": {rt: words - same[rt] for rt in runtimes}, "calls_differing": calls,
            "decode_words_per_cpu_s": {rt: words / max(cpu[rt], 1e-9) for rt in runtimes}}


def table(rows: list[dict]) -> str:
    head = (f"{'model':<24} {'runtime':<10} {'wk':>2} {'decode w/s':>10} {'cpu w/s':>9} {'wall w/s':>9} {'ratio d/w':>10} "
            f"{'start s':>8} {'start cpu':>9} {'RSS MB':>7} {'torch':>5} {'differ':>6}")
    lines = [head, "-" * len(head)]
    base = rows[0] if rows else None
    for r in rows:
        name = Path(r["model"]).name if Path(r["model"]).name != "best.pt" else "/".join(Path(r["model"]).parts[-2:])
        ratio = f"{r['decode_words_per_s'] / base['decode_words_per_s']:.2f}/{r['wall_words_per_s'] / base['wall_words_per_s']:.2f}"
        lines.append(f"{name[:24]:<24} {r['runtime']:<10} {r['workers']:>2} {r['decode_words_per_s']:>10.0f} {r['decode_words_per_cpu_s']:>9.0f} "
                     f"{r['wall_words_per_s']:>9.0f} {ratio:>10} {r['startup_s']:>8.2f} {r['startup_cpu_s']:>9.2f} "
                     f"{r['peak_rss_mb']:>7.0f} {'yes' if r['torch_imported'] else 'no':>5} "
                     f"{r['lines_differing_from_first_runtime']:>6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", default=[], help="a model to measure beside models/default.pt")
    p.add_argument("--ctm", default=str(DEFAULT_CTM), help="input CTM (default: Earnings-21 call 4366302, Kaldi)")
    p.add_argument("--runtimes", nargs="+", default=["torch", "onnx", "onnx-int8"],
                   choices=["torch", "torch-bf16", "onnx", "onnx-int8"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--workers", nargs="+", default=["1", "auto"],
                   help="punct restore --workers values to measure (1: sequential windows; auto: the default)")
    p.add_argument("--startup-repeats", type=int, default=3)
    p.add_argument("--json", default=None, help="write the measurements here")
    p.add_argument("--agreement", metavar="CTM_DIR", default=None,
                   help="instead: restore every CTM of CTM_DIR with each runtime (the first model) and report "
                        "the labels' agreement with the first runtime's (e.g. the 33 Earnings-21 Kaldi CTMs)")
    p.add_argument("--widths", nargs="+", default=[], metavar="HIDDEN/ATTENTION",
                   help="also measure randomly initialised TA-BRNN-p models with a case head of these widths "
                        "(e.g. 128/256 96/48): the decoding cost of a student architecture before training it")
    p.add_argument("--tiny", action="store_true", help="tiny models on a tiny CTM: checks that it runs, no timing")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--runtime", help=argparse.SUPPRESS)
    p.add_argument("--workers-one", default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        args.model = args.model[0]
        child(args)
        return 0
    if args.agreement:
        model = Path(args.model[0]) if args.model else ROOT / "models" / "default.pt"
        res = agreement(model, Path(args.agreement), args.runtimes, args.threads)
        res["load"] = os.getloadavg()
        print(json.dumps(res, indent=1))
        if args.json:
            from punct.fsutil import atomic_write

            with atomic_write(args.json) as f:
                json.dump(res, f, indent=1)
        return 0
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PUNCT_RUNTIME", None)
    with tempfile.TemporaryDirectory(prefix="bench-restore-") as tmp:
        work = Path(tmp)
        if args.tiny:
            words = [f"word{i}" for i in range(50)]
            models = [work / "tiny_a.pt", work / "tiny_b.pt"]
            for seed, m in enumerate(models):
                make_tiny_model(m, words, seed)
            ctm = work / "tiny.ctm"
            make_ctm(ctm, words, 800, 1)  # long enough for two segments of the tiny models' windows
            env["PUNCT_ONNX_DIR"] = str(work / "onnx")
            args.startup_repeats = 1
        else:
            models = [ROOT / "models" / "default.pt"] + [Path(m) for m in args.model] + width_models(work, args.widths)
            ctm = Path(args.ctm)
            if args.widths:
                env["PUNCT_ONNX_DIR"] = str(work / "onnx")  # random models: keep their graphs out of the cache
        for f in models + [ctm]:
            if not f.is_file():
                print(f"error: {f}: not found", file=sys.stderr)
                return 1
        load_before = os.getloadavg()
        rows = measure(models, ctm, args.runtimes, args.threads, args.startup_repeats, env, work, args.workers)
        load_after = os.getloadavg()
    info = {"ctm": str(ctm) if not args.tiny else "tiny", "cores": os.cpu_count(), "machine": platform.machine(),
            "load_before": load_before, "load_after": load_after, "threads": args.threads, "workers": args.workers,
            "torch": version("torch"), "onnxruntime": version("onnxruntime"), "tiny": args.tiny,
            "command": "python benchmarks/bench_restore.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    print(f"{rows[0]['words']} words; {info['cores']} cores, load {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after; torch {info['torch']}, onnxruntime {info['onnxruntime']}; {args.threads} thread(s)")
    print(table(rows))
    print("wk: decoding threads (1: sequential windows); cpu w/s: decoding words per CPU second (the robust figure "
          "on a loaded machine); ratio d/w: decoding and wall-clock words/s over the first row's; start: least wall "
          "time of a five-word input; RSS: peak of the whole command; differ: output lines unlike the first row's "
          "of the same model")
    if args.json:
        from punct.fsutil import atomic_write

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(args.json) as f:
            json.dump({"info": info, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
