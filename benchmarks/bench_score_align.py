"""The scorer's word alignment on real calls: the DP alone against the anchored alignment
(rapidfuzz's runs of equal words, the DP between them), CPU time and agreement.

    python benchmarks/bench_score_align.py data/earnings/e21_ref data/earnings/e21_amazon [--one-piece] [--json out.json]
    python benchmarks/bench_score_align.py earnings21/transcripts/nlp_references earnings21/output/amazon --json out.json

Aligns every utterance of HYP to its reference as punct score does (the words' matching
keys, clitics joined), with ``align_ids_dp`` (the banded Hirschberg DP, the scorer before
rapidfuzz) and ``align_ids`` (now), and prints the CPU seconds of each and in how many
utterances and ops they differ. ``--one-piece`` also solves each differing utterance by the
DP in one piece (no Hirschberg split, no common prefix matched off: its backtrace's tie
rule over the whole; a few hundred MB for a 10,000-word call) and says which of the two
agrees with it. ``--json`` also scores HYP whole as ``punct score`` does (score_utterances),
once with the DP alone (the scorer before rapidfuzz) and once as now, and writes the CPU
seconds of each with the two word error rates of the report: the standard one (words equal
as spelled, as sclite and jiwer count) and the mark transfer's looser one.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import punct.data.transfer as T  # noqa: E402
from punct.io import read_any, read_hypothesis  # noqa: E402


def read_pair(ref: str, hyp: str) -> tuple[list, list]:
    """REF and HYP as ``punct score`` reads them: data directories, or any form it takes (a
    folder of ``.nlp`` files, CTMs, ...), paired by utterance."""
    return read_any(ref), read_hypothesis(hyp, None, ref)


def id_pairs(ref_dir: str, hyp_dir: str) -> list[tuple[str, list[int], list[int]]]:
    ref, hyp_utts = read_pair(ref_dir, hyp_dir)
    hyp = {u.id: u for u in hyp_utts}
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
    ap.add_argument("--json", default=None, help="write the measurements here, with the whole scoring before and after")
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
    if args.json:
        out = {"ref": args.ref, "hyp": args.hyp, "utterances": len(pairs), "ref_units": sum(len(a) for _, a, _ in pairs),
               "align_dp_cpu_s": round(t_old, 2), "align_rapidfuzz_cpu_s": round(t_new, 2),
               "differing_utterances": len(differ), "differing_ops": ops, "cores": os.cpu_count(),
               "load_before": os.getloadavg()[0]}
        out.update(whole_scoring(args.ref, args.hyp))
        out["load_after"] = os.getloadavg()[0]
        out["command"] = "python benchmarks/bench_score_align.py " + " ".join(sys.argv[1:])
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(out))
    return 0


def whole_scoring(ref_dir: str, hyp_dir: str) -> dict:
    """CPU seconds of score_utterances (reading aside) with the DP alone and with rapidfuzz,
    and the report's word error rates (the same in both: equal distances)."""
    from punct.scoring.score import score_utterances

    ref, hyp = read_pair(ref_dir, hyp_dir)
    out: dict = {}
    keep = T._rapidfuzz_levenshtein
    for name, lev in (("before", lambda: None), ("after", keep)):
        T._rapidfuzz_levenshtein = lev
        try:
            t = time.process_time()
            rep = score_utterances(ref, hyp)
            out[f"score_{name}_cpu_s"] = round(time.process_time() - t, 2)
        finally:
            T._rapidfuzz_levenshtein = keep
        tr = rep.transfer
        out[f"wer_{name}"] = {"standard": round(tr.exact_wer, 2), "loose": round(tr.wer, 2), "ref_words": tr.ref_words,
                              "exact_errors": tr.exact_errors, "loose_errors": tr.word_errors,
                              "f1": round(rep.to_dict()["overall"]["f1"], 2)}
    return out


if __name__ == "__main__":
    sys.exit(main())
