"""Punctuate a data directory with a trained model (and score it if it has reference labels).

    python -m punct.bin.decode --model exp/tbrnn/best.pt --data data/X/test2011 \
        --out exp/tbrnn/decode_test2011
With --model given several times the models decode as an ensemble (mean posteriors).
--bias (or --tune-bias-on a labelled dev set) shifts the decision towards or away from
each mark: a word takes the argmax of log posterior + bias, which trades a mark's
precision for its recall (cross-entropy training leaves the marks under-predicted for F1).
Writes <out>/{text,labels,utt2spk,spk2utt,text.punct}, decode_stats.json (words/s,
read by punct.bin.results) and, when the data
directory has `labels` and punct.scoring.score is available, <out>/scoring/.
The words are fed as punct restore feeds them (punct.engine.restorer: clitics,
apostrophes, non-speech tokens, consecutive segments of a recording as one stream, the
last word of each input a sentence end), with the same runtime and batch defaults, so
`punct restore DIR` gives the same labels. A model that reads per-word features (pause,
prosody) takes them from the data directory (DIR/pause.scp, ...; a pause-only model
computes them from DIR/word_times when pause.scp is absent, a prosody model from
DIR/wav.scp when prosody.scp is).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Callable

from punct.bin.common import (MAX_BATCH, MAX_THREADS, MAX_WINDOW, ArgumentParser, add_common, at_least, finite_float,
                               require_inputs, run)
from punct.errors import PunctError
from punct.text.labels import MARK_LABELS

log = logging.getLogger("punct.bin.decode")

#: grid of --tune-bias-on: multiples of BIAS_STEP in [-BIAS_LIMIT, BIAS_LIMIT] per mark
BIAS_STEP, BIAS_LIMIT = 0.1, 2.0


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.decode", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, action="append",
                   help="model file (best.pt / checkpoint.pt); given more than once, the models decode as an "
                        "ensemble: each word takes the label of the mean of their posteriors")
    p.add_argument("--weights", type=finite_float(), nargs="+", default=None,
                   help="with several --model: one positive weight per model for the mean (default: equal)")
    p.add_argument("--tune-weights-on", default=None, metavar="DEV_DIR",
                   help="with several --model: choose the weights with the best overall F1 on this labelled data "
                        "directory (a grid in steps of --weight-step), then decode --data with them")
    p.add_argument("--weight-step", type=finite_float(0.001, 1.0), default=0.1, help="grid step of --tune-weights-on (default 0.1)")
    p.add_argument("--bias", type=finite_float(-1e6, 1e6), nargs=3, default=None, metavar=MARK_LABELS,
                   help="decision bias: a number per mark added to its log posterior before the argmax "
                        "(positive: more of that mark; default 0 0 0)")
    p.add_argument("--tune-bias-on", default=None, metavar="DEV_DIR",
                   help="choose the bias with the best overall F1 on this labelled data directory (steps of "
                        f"{BIAS_STEP} in [-{BIAS_LIMIT}, {BIAS_LIMIT}]), after the weights, then decode --data with it")
    p.add_argument("--tuned-weights", default=None, metavar="FILE",
                   help="with --tune-weights-on / --tune-bias-on: keep what was tuned in FILE (JSON) and reuse it "
                        "while the models, the tuning set and the settings are unchanged; punct restore "
                        "--weights-from reads it")
    p.add_argument("--data", required=True, help="data directory to punctuate (text; labels optional)")
    p.add_argument("--out", required=True, help="output directory (replaced atomically)")
    p.add_argument("--window", type=at_least(2, MAX_WINDOW), default=None, help="words per decoding window (default: training slice length)")
    p.add_argument("--batch-size", type=at_least(1, MAX_BATCH), default=None,
                   help="windows per batch (default: as punct restore, punct.engine.runtime)")
    p.add_argument("--runtime", choices=("auto", "onnx", "onnx-int8", "torch", "torch-bf16"), default=None,
                   help="what runs the model, as punct restore --runtime: default $PUNCT_RUNTIME, else auto (onnx "
                        "when onnxruntime is installed and the model exports, else torch)")
    p.add_argument("--no-end-sentence", dest="end_sentence", action="store_false",
                   help="do not end a sentence at the last word of each input (recording, or utterance without "
                        "segments), which punct restore does by default")
    p.add_argument("--threads", type=at_least(1, MAX_THREADS), default=1,
                   help="threads of the runtime (default 1, as punct restore)")
    p.add_argument("--workers", type=at_least(1, MAX_THREADS), default=None,
                   help="decoding threads of one model, each running a part of the input (long streams cut into "
                        "segments); default as punct restore: the usable cores over --threads, at most 4 (1: "
                        "windows that follow sentence ends all the way)")
    p.add_argument("--no-score", action="store_true", help="do not score against the data directory's labels")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    require_inputs(args.model, "model file")
    require_inputs([args.data], "data directory")
    require_inputs([Path(args.data) / "text"])
    if args.weights is not None:
        from punct.engine.infer import ensemble_weights

        ensemble_weights(args.weights, len(args.model), what="--weights")  # count and values, before any model loads
    if len(args.model) > 1 and (args.window or args.batch_size):
        raise PunctError("--window and --batch-size apply to one model; an ensemble's members use their own")
    if args.bias is not None:
        from punct.engine.infer import class_bias

        class_bias(args.bias, what="--bias")
    if args.tune_weights_on is not None:
        if len(args.model) < 2 or args.weights is not None:
            raise PunctError("--tune-weights-on needs two or more --model and no --weights")
    if args.tune_bias_on is not None and args.bias is not None:
        raise PunctError("give --bias or --tune-bias-on, not both")
    dev = args.tune_weights_on or args.tune_bias_on
    if args.tune_weights_on and args.tune_bias_on and Path(args.tune_weights_on) != Path(args.tune_bias_on):
        raise PunctError("--tune-weights-on and --tune-bias-on must name the same data directory")
    if dev is not None:
        require_inputs([Path(dev) / "labels"], "labels of the tuning set")
        if args.tuned_weights is not None and not Path(args.tuned_weights).resolve().parent.is_dir():
            raise PunctError("directory of --tuned-weights not found", Path(args.tuned_weights).parent)
    elif args.tuned_weights is not None:
        raise PunctError("--tuned-weights goes with --tune-weights-on or --tune-bias-on")
    from punct.data.datadir import load_utterances
    from punct.engine.decode import decode, decode_ensemble, write_decode
    from punct.fsutil import atomic_dir

    stats: dict = {}
    tuned = None
    if dev is not None:
        tuned = _tuned(args, dev)
        args.weights = tuned["weights"]
        args.bias = tuned.get("bias", args.bias)
    if len(args.model) == 1 and args.weights is None and args.bias is None:
        hyp = decode(args.model[0], args.data, window=args.window, batch_size=args.batch_size, threads=args.threads,
                     stats=stats, workers=args.workers, runtime=args.runtime, end_sentence=args.end_sentence)
    else:
        hyp = decode_ensemble(args.model, args.data, weights=args.weights, threads=args.threads, stats=stats,
                              bias=args.bias, runtime=args.runtime, end_sentence=args.end_sentence)
    if tuned is not None:
        stats["tuned_weights"] = tuned
    stats["data"] = str(args.data)  # what it decoded (and scored against): RESULTS.md's command
    score_labels = None
    ref = None
    if not args.no_score and (Path(args.data) / "labels").is_file():
        try:
            from punct.scoring.score import score_labels
        except ImportError:
            log.warning("punct.scoring.score is not available: not scoring")
        if score_labels is not None:
            ref = load_utterances(args.data)
    with atomic_dir(args.out, ours=is_decode_output) as tmp:
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


def _tuned(args: argparse.Namespace, dev: str) -> dict:
    """What --tune-weights-on / --tune-bias-on choose on ``dev``: {"on", "weights", "f1", ...,
    and "bias" when tuned}, read from --tuned-weights when it was tuned there for the same
    models, set and settings, else tuned now (each model decodes ``dev`` once) and kept there."""
    from punct.engine.decode import (bias_text, load_tuned_weights, save_tuned_weights, tune_class_bias,
                                     tune_ensemble_weights, tuning_key, tuning_posteriors, weight_grid)
    from punct.engine.infer import class_bias, ensemble_weights

    if args.tune_weights_on is not None:
        weight_grid(len(args.model), args.weight_step)  # a bad step fails before any decoding
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    key = tuning_key(args.model, dev, args.weight_step)
    if args.tune_bias_on is not None:  # a key without these is one of weights alone, as before there was a bias
        key["bias"] = {"step": BIAS_STEP, "limit": BIAS_LIMIT}
        if args.tune_weights_on is None:
            key["weights"] = ensemble_weights(args.weights, len(args.model))
    if args.tuned_weights is not None:
        tuned = load_tuned_weights(args.tuned_weights, key)
        if tuned is not None:
            tuned = {k: v for k, v in tuned.items() if k != "key"}
            log.info("weights %s%s: tuned on %s before (overall F1 %s), read from %s",
                     " ".join(f"{x:.3g}" for x in tuned["weights"]),
                     f", bias {bias_text(class_bias(tuned['bias'])[1:])}" if "bias" in tuned else "", dev, tuned.get("f1"),
                     args.tuned_weights)
            return tuned
    tuning = tuning_posteriors(args.model, dev)
    if args.tune_weights_on is not None:
        weights, f1, rows = tune_ensemble_weights(args.model, dev, args.weight_step, tuning=tuning)
        tuned = {"on": str(dev), "step": args.weight_step, "weights": weights, "f1": round(f1, 3),
                 "equal_weights_f1": rows[0]["f1"], "grid": rows}
    else:
        tuned = {"on": str(dev), "weights": ensemble_weights(args.weights, len(args.model))}
    if args.tune_bias_on is not None:
        ref, probs = tuning
        mean = sum(w * p for w, p in zip(tuned["weights"], probs))
        bias, f1, base = tune_class_bias(mean, ref, step=BIAS_STEP, limit=BIAS_LIMIT)
        log.info("bias tuned on %s: %s, overall F1 %.2f (without bias: %.2f)", dev, bias_text(bias), f1, base)
        tuned.update(bias=dict(zip(MARK_LABELS, bias)), f1=round(f1, 3), f1_without_bias=round(base, 3))
    if args.tuned_weights is not None:
        save_tuned_weights(args.tuned_weights, key, tuned)
    return tuned


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(guarded(_main), args, prog="punct.bin.decode")


def guarded(decode_main: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``decode_main`` (this module's or joint_decode's) behind the checks of its ``--out``:
    never the data directory or one that holds it, never a directory it did not write (checked
    before decoding, not after), and one decoding at a time into it."""

    def run_guarded(args: argparse.Namespace) -> int:
        from punct.fsutil import check_replaceable, output_lock

        out, data = Path(args.out).resolve(), Path(args.data).resolve()
        if out == data or out in data.parents:
            raise PunctError("--out would replace the data directory it decodes; choose another", args.out)
        check_replaceable(args.out, is_decode_output)
        with output_lock(args.out, "a decoding"):
            return decode_main(args)

    return run_guarded


def is_decode_output(path: Path) -> bool:
    """A decode directory written before atomic_dir marked its outputs."""
    return (path / "decode_stats.json").is_file()


if __name__ == "__main__":
    sys.exit(main())
