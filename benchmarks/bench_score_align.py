"""The scorer's word alignment on real calls: the DP alone against the anchored alignment
(rapidfuzz's runs of equal words, the DP between them), CPU time and agreement.

    python benchmarks/bench_score_align.py data/earnings/e21_ref data/earnings/e21_amazon [--one-piece]

Aligns every utterance of HYP to its reference as punct score does (the words' matching
keys, clitics joined), with ``align_ids_dp`` (the banded Hirschberg DP, the scorer before
rapidfuzz) and ``align_ids`` (now), and prints the CPU seconds of each and in how many
utterances and ops they differ. ``--one-piece`` also solves each differing utterance by the
DP in one piece (no Hirschberg split, no common prefix matched off: its backtrace's tie
rule over the whole; a few hundred MB for a 10,000-word call) and says which of the two
agrees with it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import punct.transfer as T  # noqa: E402
from punct.datadir import load_utterances  # noqa: E402


def id_pairs(ref_dir: str, hyp_dir: str) -> list[tuple[str, list[int], list[int]]]:
    ref = load_utterances(ref_dir, require_labels=False)
    hyp = {u.id: u for u in load_utterances(hyp_dir, require_labels=False)}
    out = []
    for u in ref:
        if u.id not in hyp:
            continue
        _, rk = T._units(u.texts, T.normalize_word, True)
        _, hk = T._units(hyp[u.id].texts, T.normalize_word, True)
        vocab: dict[str, int] = {}
        out.append((u.id, [vocab.setdefault(x, len(vocab)) for x in rk], [vocab.setdefault(x, len(vocab)) for x in hk]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref")
    ap.add_argument("hyp")
    ap.add_argument("--one-piece", action="store_true", help="check the differing utterances against the one-piece DP")
    args = ap.parse_args()
    if T._rapidfuzz_levenshtein() is None:
        print("rapidfuzz is not installed: align_ids is the DP itself", file=sys.stderr)
        return 1
    pairs = id_pairs(args.ref, args.hyp)
    t = time.process_time()
    old = [T.align_ids_dp(a, b) for _, a, b in pairs]
    t_old = time.process_time() - t
    t = time.process_time()
    new = [T.align_ids(a, b) for _, a, b in pairs]
    t_new = time.process_time() - t
    differ = [k for k, (x, y) in enumerate(zip(old, new)) if x != y]
    ops = sum(sum(1 for p, q in zip(old[k], new[k]) if p != q) for k in differ)
    print(f"{len(pairs)} utterances, {sum(len(a) for _, a, _ in pairs)} reference words")
    print(f"align_ids_dp (DP alone): {t_old:.2f} s CPU; align_ids (rapidfuzz anchors + DP): {t_new:.2f} s CPU")
    print(f"they differ in {len(differ)} utterances, {ops} ops (ties between alignments of one edit distance)")
    if args.one_piece:
        T.BASE_CELLS = 1 << 40
        for k in differ:
            uid, a, b = pairs[k]
            one = T.align_ids_dp(a, b, match_prefix=False)
            print(f"  {uid}: one-piece DP = align_ids: {one == new[k]}; = align_ids_dp: {one == old[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
