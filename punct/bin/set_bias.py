"""Write a decision bias into a model file, so that every decoding of it decides with it.

    python -m punct.bin.set_bias --model models/accurate/tagger.pt \
        --from exp/earnings/accurate_bias/tuned_dev2012.json
    python -m punct.bin.set_bias --model FILE --bias 0.3 0.7 -0.2   # COMMA PERIOD QUESTION
    python -m punct.bin.set_bias --model FILE --clear
A word's label is the argmax of its log posteriors plus the bias: cross-entropy leaves the
marks under-predicted for F1, and a bias tuned on a labelled dev set (``punct decode
--tune-bias-on DEV --tuned-weights FILE.json``) moves each mark's decision to where its F1
is best. The file keeps the bias as ``decision_bias`` and where it came from as
``decision_bias_from``; ``punct restore`` and ``punct decode`` of the file use it, and a
given ``--bias`` replaces it. The posteriors (soft labels, ensembles) stay the model's own.
A second stage that names its stage one's file (``punct export --stage1-file``) labels its
words without times with that file's bias. The file is rewritten atomically, its other
contents unchanged; a second stage's stage-one weights stay in their own file. A training's
state file (``models/student/state.pt``) gets its readable record (``state.pt.json``) rewritten
with the bias in it.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, finite_float, require_inputs, run
from punct.errors import PunctError
from punct.text.labels import MARK_LABELS

log = logging.getLogger("punct.bin.set_bias")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.set_bias", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--model", required=True, help="model file to write the bias into (rewritten in place)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--from", dest="tuned", metavar="TUNED_JSON",
                     help="the bias tuned by punct decode --tune-bias-on DEV --tuned-weights TUNED_JSON (one model)")
    how.add_argument("--bias", type=finite_float(-20.0, 20.0), nargs=3, metavar=MARK_LABELS,
                     help="the bias itself: a number per mark added to its log posterior before the argmax")
    how.add_argument("--clear", action="store_true", help="remove the file's bias (plain argmax)")
    add_common(p)
    return p


def _bias_of(args: argparse.Namespace) -> tuple[dict[str, float] | None, dict]:
    """({mark: bias} or None to clear, where it came from)."""
    if args.clear:
        return None, {}
    if args.bias is not None:
        return dict(zip(MARK_LABELS, (float(x) for x in args.bias))), {"given": True}
    from punct.engine.decode import read_weights_file

    tuned = read_weights_file(args.tuned)
    if "bias" not in tuned:
        raise PunctError("no bias in it (tuned with --tune-weights-on alone?): tune with --tune-bias-on", args.tuned)
    if len(tuned["weights"]) != 1:
        raise PunctError(f"tuned for an ensemble of {len(tuned['weights'])} models, not one model file", args.tuned)
    bias = {m: float(tuned["bias"].get(m, 0.0)) for m in MARK_LABELS}
    return bias, {k: tuned[k] for k in ("on", "f1", "f1_without_bias") if k in tuned}


def _main(args: argparse.Namespace) -> int:
    from punct.engine import checkpoint as ckpt

    require_inputs([args.model], "model file")
    if args.tuned is not None:
        require_inputs([args.tuned], "tuned weights file")
    bias, source = _bias_of(args)  # checked: --bias by its parser, a tuned file by read_weights_file
    if bias is not None and not any(bias.values()):
        bias = None  # all zeros: the plain argmax
    path = Path(args.model)
    ck = ckpt.load(path, fill_stage1=False)
    ck.pop("decision_bias", None)
    ck.pop("decision_bias_from", None)
    if bias is not None:
        ck["decision_bias"], ck["decision_bias_from"] = bias, source
    ckpt.save(path, ck)
    if "progress" in ck:  # a training's state file (punct.engine.carry): its readable record shows the bias too
        from punct.engine.carry import write_record

        write_record(path, ck)
    ckpt.load_model(path)  # it still decodes (a second stage: beside its stage one)
    if bias is None:
        log.info("%s: no decision bias (plain argmax)", path)
    else:
        log.info("%s: decision bias %s%s", path, " ".join(f"{m} {v:+.2f}" for m, v in bias.items()),
                 f" (tuned on {source['on']}: F1 {source.get('f1_without_bias')} -> {source.get('f1')})"
                 if "on" in source else "")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.set_bias")


if __name__ == "__main__":
    sys.exit(main())
