"""Punctuate a data directory by the joint decision of a lexical and an acoustic model.

    python -m punct.bin.joint_decode --lexical exp/X/tbrnn/best.pt --acoustic exp/X/pause/best.pt \
        --config exp/X/joint_tbrnn/joint.yaml --stage 2 --data data/X/test --out exp/X/joint2_tbrnn/decode_test

Che et al. (2016): stage 1 keeps the sentence boundaries both models support,
stage 2 adds boundaries inside long segments from the length-adjusted lexical
posterior; the mark types come from the lexical model (punct.models.joint).
The acoustic model reads the data directory's features (DIR/pause.scp, ...);
words without acoustic evidence take the lexical decision. Writes OUT as
punct.bin.decode does (text, labels, text.punct, decode_stats.json) plus
OUT/joint.yaml, the parameters used.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.bin.joint_tune import add_model_args, load_joint_config

log = logging.getLogger("punct.bin.joint_decode")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.joint_decode", description=__doc__.splitlines()[0])
    add_model_args(p)
    p.add_argument("--config", required=True, help="the decision's parameters (conf/joint.yaml, or one punct.bin.joint_tune wrote)")
    p.add_argument("--stage", type=int, choices=(1, 2), default=2, help="1: hard boundaries only; 2: and soft ones (default)")
    p.add_argument("--data", required=True, help="data directory to punctuate (text, word_times or features)")
    p.add_argument("--out", required=True, help="output directory (replaced atomically)")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    cfg = load_joint_config(args)
    require_inputs([args.data], "data directory")
    require_inputs([Path(args.data) / "text"])
    from punct.config import dump_yaml, to_dict
    from punct.engine.decode import write_decode
    from punct.engine.fusion import joint_decode
    from punct.bin.decode import is_decode_output
    from punct.fsutil import atomic_dir

    stats: dict = {}
    hyp = joint_decode(args.lexical, args.acoustic, args.data, cfg, args.stage, stats=stats)
    with atomic_dir(args.out, ours=is_decode_output) as tmp:
        write_decode(tmp, hyp)
        (tmp / "decode_stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
        (tmp / "joint.yaml").write_text(dump_yaml(to_dict(cfg)), encoding="utf-8")
    log.info("wrote %s (%d words, %d without acoustic evidence)", args.out, stats["words"], stats["words_without_acoustics"])
    return 0


def main(argv: list[str] | None = None) -> int:
    from punct.bin.decode import guarded

    args = build_parser().parse_args(argv)
    return run(guarded(_main), args, prog="punct.bin.joint_decode")


if __name__ == "__main__":
    sys.exit(main())
