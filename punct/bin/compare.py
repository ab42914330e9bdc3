"""Compare two hypotheses' punctuation on the same reference: is A better than B?

    punct compare REF HYP_A HYP_B [--resamples N] [--block-words W] [--level L] [--seed S]
                  [--ref-format F] [--hyp-format F] [--json] [--html FILE] [--count-dropped]

Both hypotheses are scored against REF as ``punct score`` scores them; then the
slots are cut into blocks of W consecutive words and resampled N times, the
same blocks for A and B (paired bootstrap resampling). Prints overall and
per-class F1 and SER of each, the difference A - B with its interval, and a
two-sided p-value: how often the resampled difference falls on the other side
of zero, doubled. The hypotheses must be over the same words (two models
decoding the same reference words or the same ASR output). Never imports torch.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys

from punct.bin.common import ArgumentParser, add_common, progress_wanted, require_inputs, run
from punct.bin.score import add_input_options, add_significance_options, pairs_by_id, read_hyp, read_ref

log = logging.getLogger("punct.bin.compare")


def build_parser() -> argparse.ArgumentParser:
    from punct.scoring import significance as sig

    p = ArgumentParser(prog="punct compare", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_options(p, {"hyp_a": "hypothesis A: data directory (e.g. a decode output), file or folder of files",
                          "hyp_b": "hypothesis B, over the same words as A"})
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="also write a self-contained HTML report: both systems side by side (punct.scoring.report)")
    add_significance_options(p, "--resamples", f"bootstrap resamples (default {sig.RESAMPLES})",
                             default=sig.RESAMPLES)
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    require_inputs([args.ref], "reference")
    require_inputs([args.hyp_a, args.hyp_b], "hypothesis")
    from punct.errors import PunctError
    from punct.scoring.score import aligned_slots
    from punct.scoring.significance import paired_bootstrap

    ref = read_ref(args.ref, args)
    a, _ = aligned_slots(ref, read_hyp(args.hyp_a, args), count_dropped=args.count_dropped,
                         progress=progress_wanted(args), by_id=pairs_by_id(args.ref, args.hyp_a))
    b, _ = aligned_slots(ref, read_hyp(args.hyp_b, args), count_dropped=args.count_dropped,
                         progress=progress_wanted(args), by_id=pairs_by_id(args.ref, args.hyp_b))
    try:
        cmp = paired_bootstrap(a, b, args.block_words, args.resamples, args.level, args.seed)
    except PunctError as e:
        raise PunctError(f"{args.hyp_a} vs {args.hyp_b}: {e}") from None
    if args.html:
        _write_html(args, a, b, cmp)
    if args.json:
        sys.stdout.write(json.dumps({"a": args.hyp_a, "b": args.hyp_b, **cmp.to_dict()}, indent=2) + "\n")
    else:
        sys.stdout.write(cmp.format(args.hyp_a, args.hyp_b))
    return 0


def _write_html(args: argparse.Namespace, a, b, cmp) -> None:
    """punct.scoring.report.compare_html of the two hypotheses' slots and their comparison."""
    import shlex
    from pathlib import Path

    from punct.errors import PunctError
    from punct.fsutil import atomic_write
    from punct.scoring.score import score_streams
    from punct.scoring.significance import bootstrap_intervals

    import importlib.util

    from punct.scoring.report import compare_html

    if importlib.util.find_spec("matplotlib") is None:
        raise PunctError("--html needs matplotlib (pip install matplotlib)")
    ivs = tuple(bootstrap_intervals(s, args.block_words, args.resamples, args.level, args.seed) for s in (a, b))
    command = "punct compare " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    page = compare_html(score_streams(a), score_streams(b), cmp, str(args.hyp_a), str(args.hyp_b), str(args.ref),
                        ivs, command)
    with atomic_write(Path(args.html)) as f:
        f.write(page)
    log.info("wrote %s", args.html)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct compare")


if __name__ == "__main__":
    sys.exit(main())
