"""Word error rate of a hypothesis data directory against its reference, twice.

    python -m punct.bin.wer --ref data/earnings/e21_ref --hyp data/earnings/e21_kaldi_rev --out-dir exp/earnings/wer_e21_kaldi_rev

Scores with the project's own edit-distance alignment (punct.scoring.score, the code that
also transfers punctuation and scores ASR output) and, as an independent
cross-check, with NIST sclite from Debian's sctk (``sctk sclite -r ref.stm stm -h
hyp.ctm ctm``). Writes OUT/ref.stm, OUT/hyp.ctm, OUT/sclite.txt and OUT/wer.json
(``punct_score`` and ``sclite`` sections; ``sclite`` is null when sctk is missing).
The hypothesis needs word times (``word_times``) or a ``ctm`` for sclite; a
reference without ``segments`` is one STM segment per utterance covering it all.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.scoring.wer import score_wer


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.wer", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--ref", required=True, help="reference data directory (text)")
    p.add_argument("--hyp", required=True, help="hypothesis data directory (text and word_times, or ctm)")
    p.add_argument("--out-dir", required=True, help="where ref.stm, hyp.ctm, sclite.txt and wer.json go")
    p.add_argument("--utt", action="append", default=None, metavar="ID",
                   help="score only this utterance (repeatable); sclite takes minutes on an hour-long segment")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    ref, hyp = Path(args.ref), Path(args.hyp)
    require_inputs([ref / "text", hyp / "text"])
    score_wer(ref, hyp, Path(args.out_dir), set(args.utt) if args.utt else None)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.wer")


if __name__ == "__main__":
    sys.exit(main())
