"""Words per second and peak memory of ``punct restore`` on a long synthetic CTM.

    OMP_NUM_THREADS=1 python benchmarks/bench_restore.py [--words 100000] [--size small|paper]
        [--window 200] [--threads 1] [--compare 10000]

Writes a CTM of N words (one recording, Zipf-like vocabulary of 5,000 words,
upper case as the Kaldi LibriSpeech model writes) and a randomly initialised
T-BRNN (``small``: 64-unit embeddings and GRUs; ``paper``: the 256-unit model
of conf/tbrnn.yaml) into a temporary directory, then runs
punct.restore.restore_file CTM -> punctuated CTM in a fresh process per size
and prints: wall time of reading, decoding and writing, words per second of
decoding, the process's peak resident size (ru_maxrss) above what it had after
loading the model, and the peak of traced Python allocations during decoding
(tracemalloc, run separately: it slows Python down). ``--compare M`` repeats
with M words, to show what grows with the input (the words) and what does
not (decoding).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = {
    "small": {"embedding_dim": 64, "hidden_size": 64, "attention_dim": 128},
    "paper": {"embedding_dim": 256, "hidden_size": 256, "attention_dim": 512},
}


def make_ctm(path: Path, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab = [f"word{i}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    t = 0.0
    with open(path, "w") as f:
        for w in rng.choices(vocab, weights, k=n):
            d = rng.uniform(0.08, 0.6)
            f.write(f"rec A {t:.2f} {d:.2f} {w.upper()} {rng.uniform(0.5, 1):.2f}\n")
            t += d + rng.choice([0.0, 0.0, 0.05, 0.3, 0.9])
    return vocab


def make_model(path: Path, vocab_words: list[str], size: str, window: int, seed: int) -> None:
    import torch

    from punct.engine import checkpoint
    from punct.engine.vocab import Vocabulary
    from punct.labels import LABELS
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(seed)
    vocab = Vocabulary.build([vocab_words], min_count=1)
    args = resolved_model_args("tbrnn", SIZES[size])
    model = build_model("tbrnn", args, len(vocab))
    with torch.no_grad():  # zero-initialised output layers would predict O everywhere: make it predict marks
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.3)
        # favour O so that about 85% of words get no mark, as in speech (a sentence end every 10-20 words):
        # decoding windows then restart mid-window as they do with a trained model
        zipf = torch.tensor([0.0] * 3 + [1.0 / (i + 1) for i in range(len(vocab) - 3)])
        ids = torch.multinomial(zipf, 8 * window, replacement=True).view(8, window)
        logits = model(ids, torch.ones_like(ids, dtype=torch.bool))
        lo, hi = 0.0, 100.0
        for _ in range(30):
            b = (lo + hi) / 2
            shifted = logits.clone()
            shifted[..., 0] += b
            if (shifted.argmax(-1) == 0).float().mean() < 0.85:
                lo = b
            else:
                hi = b
        model.out.bias[0] += hi
    checkpoint.save(path, {"model": "tbrnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(),
                           "train_config": {"slice_length": window, "batch_size": 32}})


def child(args: argparse.Namespace) -> None:
    """Run one restore in this process and print a JSON line of measurements."""
    import torch

    from punct.io import ctm
    from punct.restore import Restorer

    torch.set_num_threads(args.threads)
    restorer = Restorer.load(args.model, window=args.window)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    utts = ctm.read(args.ctm)
    t1 = time.perf_counter()
    rss_words = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args.trace:
        import tracemalloc

        tracemalloc.start()
        restorer.restore(utts, copy=False)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(json.dumps({"traced_peak_mb": peak / 2**20}))
        return
    hyp = restorer.restore(utts, copy=False)
    t2 = time.perf_counter()
    ctm.write(hyp, Path(args.ctm).with_suffix(".punct.ctm"))
    t3 = time.perf_counter()
    n = sum(len(u) for u in utts)
    labels = {}
    for u in hyp:
        for w in u.words:
            labels[w.label] = labels.get(w.label, 0) + 1
    print(json.dumps({"words": n, "read_s": t1 - t0, "decode_s": t2 - t1, "write_s": t3 - t2,
                      "decode_words_per_s": n / (t2 - t1), "total_words_per_s": n / (t3 - t0),
                      "rss_after_model_mb": base / 1024, "rss_words_mb": (rss_words - base) / 1024,
                      "rss_peak_above_model_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
                      "labels": labels}))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--words", type=int, default=100000)
    p.add_argument("--compare", type=int, default=10000, help="also run with this many words (0: no)")
    p.add_argument("--size", choices=sorted(SIZES), default="small")
    p.add_argument("--window", type=int, default=200)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-trace", action="store_true", help="skip the tracemalloc run")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--model", help=argparse.SUPPRESS)
    p.add_argument("--ctm", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args)
        return 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"model {args.size} {SIZES[args.size]}, window {args.window}, {args.threads} thread(s), "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sizes = [args.words] + ([args.compare] if args.compare else [])
        model = tmp / "model.pt"
        for k, n in enumerate(sizes):
            c = tmp / f"in{n}.ctm"
            vocab = make_ctm(c, n, args.seed)
            if k == 0:
                make_model(model, vocab, args.size, args.window, args.seed)
            cmd = [sys.executable, __file__, "--child", "--model", str(model), "--ctm", str(c), "--window", str(args.window),
                   "--threads", str(args.threads)]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if r.returncode:
                print(r.stderr, file=sys.stderr)
                return 1
            m = json.loads(r.stdout.strip().splitlines()[-1])
            print(f"{n:>7} words: read {m['read_s']:.1f} s, decode {m['decode_s']:.1f} s "
                  f"({m['decode_words_per_s']:.0f} words/s), write {m['write_s']:.1f} s; "
                  f"overall {m['total_words_per_s']:.0f} words/s")
            print(f"         peak RSS {m['rss_after_model_mb']:.0f} MB after loading the model, "
                  f"+{m['rss_words_mb']:.0f} MB for the words read, +{m['rss_peak_above_model_mb']:.0f} MB at the end; "
                  f"labels {m['labels']}")
            if not args.no_trace:
                r = subprocess.run(cmd + ["--trace"], env=env, capture_output=True, text=True)
                if r.returncode == 0:
                    t = json.loads(r.stdout.strip().splitlines()[-1])
                    print(f"         traced Python peak during decoding {t['traced_peak_mb']:.1f} MB (tracemalloc)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
