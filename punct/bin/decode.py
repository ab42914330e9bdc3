"""Punctuate a data directory with a trained model (and score it if it has reference labels).

    python -m punct.bin.decode --model exp/tbrnn/best.pt --data data/X/test2011 \
        --out exp/tbrnn/decode_test2011
With --model given several times the models decode as an ensemble (mean posteriors).
Writes <out>/{text,labels,utt2spk,spk2utt,text.punct}, decode_stats.json (words/s,
read by punct.bin.results) and, when the data
directory has `labels` and punct.score is available, <out>/scoring/.
A model that reads per-word features (pause, prosody) takes them from the data
directory (DIR/pause.scp, ...; a pause-only model computes them from DIR/word_times
when pause.scp is absent).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from punct.bin.common import add_common, require_inputs, run
from punct.errors import PunctError

log = logging.getLogger("punct.bin.decode")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="punct.bin.decode", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, action="append",
                   help="model file (best.pt / checkpoint.pt); given more than once, the models decode as an "
                        "ensemble: each word takes the label of the mean of their posteriors")
    p.add_argument("--weights", type=float, nargs="+", default=None,
                   help="with several --model: one positive weight per model for the mean (default: equal)")
    p.add_argument("--tune-weights-on", default=None, metavar="DEV_DIR",
                   help="with several --model: choose the weights with the best overall F1 on this labelled data "
                        "directory (a grid in steps of --weight-step), then decode --data with them")
    p.add_argument("--weight-step", type=float, default=0.1, help="grid step of --tune-weights-on (default 0.1)")
    p.add_argument("--tuned-weights", default=None, metavar="FILE",
                   help="with --tune-weights-on: keep the tuned weights in FILE (JSON) and reuse them while the "
                        "models, the tuning set and the step are unchanged; punct restore --weights-from reads it")
    p.add_argument("--data", required=True, help="data directory to punctuate (text; labels optional)")
    p.add_argument("--out", required=True, help="output directory (replaced atomically)")
    p.add_argument("--window", type=int, default=None, help="words per decoding window (default: training slice length)")
    p.add_argument("--batch-size", type=int, default=None, help="windows per batch (default: training batch size)")
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--no-score", action="store_true", help="do not score against the data directory's labels")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    require_inputs(args.model, "model file")
    require_inputs([args.data], "data directory")
    require_inputs([Path(args.data) / "text"])
    if args.weights is not None:
        from punct.engine.decode import ensemble_weights

        ensemble_weights(args.weights, len(args.model), what="--weights")  # count and values, before any model loads
    if len(args.model) > 1 and (args.window or args.batch_size):
        raise PunctError("--window and --batch-size apply to one model; an ensemble's members use their own")
    if args.tune_weights_on is not None:
        if len(args.model) < 2 or args.weights is not None:
            raise PunctError("--tune-weights-on needs two or more --model and no --weights")
        require_inputs([Path(args.tune_weights_on) / "labels"], "labels of the tuning set")
        if args.tuned_weights is not None and not Path(args.tuned_weights).resolve().parent.is_dir():
            raise PunctError("directory of --tuned-weights not found", Path(args.tuned_weights).parent)
    elif args.tuned_weights is not None:
        raise PunctError("--tuned-weights goes with --tune-weights-on")
    from punct.datadir import load_utterances
    from punct.engine.decode import decode, decode_ensemble, write_decode
    from punct.fsutil import atomic_dir

    stats: dict = {}
    tuned = None
    if args.tune_weights_on is not None:
        from punct.engine.decode import (load_tuned_weights, save_tuned_weights, tune_ensemble_weights,
                                         tuning_key, weight_grid)

        weight_grid(len(args.model), args.weight_step)  # a bad step fails before any decoding
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        key = tuning_key(args.model, args.tune_weights_on, args.weight_step)
        if args.tuned_weights is not None:
            tuned = load_tuned_weights(args.tuned_weights, key)
            if tuned is not None:
                tuned = {k: v for k, v in tuned.items() if k != "key"}
                log.info("ensemble weights %s: tuned on %s before (overall F1 %s), read from %s",
                         " ".join(f"{x:.3g}" for x in tuned["weights"]), args.tune_weights_on, tuned.get("f1"),
                         args.tuned_weights)
        if tuned is None:
            weights, f1, rows = tune_ensemble_weights(args.model, args.tune_weights_on, args.weight_step)
            tuned = {"on": str(args.tune_weights_on), "step": args.weight_step, "weights": weights,
                     "f1": round(f1, 3), "equal_weights_f1": rows[0]["f1"], "grid": rows}
            if args.tuned_weights is not None:
                save_tuned_weights(args.tuned_weights, key, tuned)
        args.weights = tuned["weights"]
    if len(args.model) == 1 and args.weights is None:
        hyp = decode(args.model[0], args.data, window=args.window, batch_size=args.batch_size, threads=args.threads,
                     stats=stats)
    else:
        hyp = decode_ensemble(args.model, args.data, weights=args.weights, threads=args.threads, stats=stats)
    if tuned is not None:
        stats["tuned_weights"] = tuned
    score_labels = None
    ref = None
    if not args.no_score and (Path(args.data) / "labels").is_file():
        try:
            from punct.score import score_labels
        except ImportError:
            log.warning("punct.score is not available: not scoring")
        if score_labels is not None:
            ref = load_utterances(args.data)
    with atomic_dir(args.out) as tmp:
        write_decode(tmp, hyp)
        (tmp / "decode_stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
        if ref is not None:
            ref_labels = [lab for u in ref for lab in u.labels]
            hyp_labels = [lab for u in hyp for lab in u.labels]
            report = score_labels(ref_labels, hyp_labels)
            report.write_dir(tmp / "scoring")
            log.info("scores of %s:\n%s", args.data, report.format_table())
    log.info("wrote %s", args.out)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.decode")


if __name__ == "__main__":
    sys.exit(main())
