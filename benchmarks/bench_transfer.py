"""Time and peak memory of aligning two long word sequences (punct.data.transfer).

    python benchmarks/bench_transfer.py [--words 20000] [--error-rate 0.15] [--seed 1]

Builds a reference of N words drawn from a Zipf-like vocabulary, makes a
hypothesis with about ERROR_RATE word errors (a third each substitutions,
deletions, insertions), aligns them and transfers marks, and prints wall time,
the peak of traced Python/numpy allocations (tracemalloc) and the process's
peak resident size. Also times the same alignment without tracemalloc.
"""
from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from punct.text.labels import LABELS  # noqa: E402
from punct.data.transfer import align, transfer_marks  # noqa: E402
from punct.text.words import Word  # noqa: E402


def make_pair(n: int, error_rate: float, seed: int) -> tuple[list[Word], list[Word]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    texts = rng.choices(vocab, weights, k=n)
    labels = rng.choices(LABELS, [0.8, 0.1, 0.08, 0.02], k=n)
    ref = [Word(t, lab) for t, lab in zip(texts, labels)]
    hyp: list[Word] = []
    for w in ref:
        r = rng.random()
        if r < error_rate / 3:
            continue  # deletion
        if r < 2 * error_rate / 3:
            hyp.append(Word(rng.choice(vocab), start=len(hyp) * 0.3))  # substitution
            continue
        hyp.append(Word(w.text, start=len(hyp) * 0.3))
        if r < error_rate:
            hyp.append(Word(rng.choice(vocab), start=len(hyp) * 0.3))  # insertion
    return ref, hyp


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--words", type=int, default=20000)
    p.add_argument("--error-rate", type=float, default=0.15)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    ref, hyp = make_pair(args.words, args.error_rate, args.seed)
    rt, ht = [w.text for w in ref], [w.text for w in hyp]

    t0 = time.perf_counter()
    al = align(rt, ht)
    t_align = time.perf_counter() - t0

    t0 = time.perf_counter()
    _, stats = transfer_marks(ref, hyp, alignment=al)
    t_transfer = time.perf_counter() - t0

    tracemalloc.start()
    t0 = time.perf_counter()
    align(rt, ht)
    t_traced = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

    print(f"reference words      {len(ref)}")
    print(f"hypothesis words     {len(hyp)}")
    print(f"word errors          {al.errors} (S {al.substitutions}, D {al.deletions}, I {al.insertions}; "
          f"WER {al.wer:.1f}%)")
    print(f"align time           {t_align:.2f} s")
    print(f"transfer time        {t_transfer:.3f} s (given the alignment)")
    print(f"align time, traced   {t_traced:.2f} s")
    print(f"peak traced memory   {peak / 2**20:.1f} MiB")
    print(f"peak RSS (process)   {rss:.0f} MiB")
    print(f"marks: {stats.marks}, carried {stats.carried}, moved {stats.moved}, dropped {stats.dropped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
