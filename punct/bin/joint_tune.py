"""Tune the joint decision's parameters on a dev set (a small grid search) and write them.

    python -m punct.bin.joint_tune --lexical exp/X/tbrnn/best.pt --acoustic exp/X/pause/best.pt \
        --dev data/X/dev --train data/X/train --config conf/joint.yaml --out exp/X/joint_tbrnn/joint.yaml

Estimates the expected sentence length on --train (its labels), decodes --dev
with both models once, tries the stage-1 values of the config's ``grid`` (by the
stage-1 result), then the stage-2 values (by the stage-2 result), and writes
the chosen config to --out (every parameter, the grid kept) and every tried
setting with its dev scores to --out with the suffix .tsv.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import (MAX_THREADS, ArgumentParser, add_common, at_least,
                               require_inputs, run)

log = logging.getLogger("punct.bin.joint_tune")


def add_model_args(p: argparse.ArgumentParser) -> None:
    """The two models of the joint decision and torch's threads (shared with punct.bin.joint_decode)."""
    p.add_argument("--lexical", required=True, help="the lexical model (a best.pt): boundaries' posterior and mark types")
    p.add_argument("--acoustic", required=True, help="the acoustic model (che_pause or che_ppe best.pt)")
    p.add_argument("--threads", type=at_least(1, MAX_THREADS), default=1, help="torch threads")


def load_joint_config(args: argparse.Namespace):
    """Check the models and the config exist, set torch's threads, and read the config."""
    require_inputs([args.lexical, args.acoustic], "model file")
    require_inputs([args.config], "config")
    import torch

    from punct.config import load_config
    from punct.models.joint import JointConfig

    torch.set_num_threads(args.threads)
    return load_config(args.config, JointConfig)


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.joint_tune", description=__doc__.splitlines()[0])
    add_model_args(p)
    p.add_argument("--dev", required=True, help="tuning data directory (text, labels, features)")
    p.add_argument("--train", required=True, help="training data directory: its labels give the expected sentence length")
    p.add_argument("--config", required=True, help="starting values and the grid (conf/joint.yaml)")
    p.add_argument("--out", required=True, help="the chosen config (YAML); the grid results go to OUT.tsv")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    cfg = load_joint_config(args)
    for d in (args.dev, args.train):
        require_inputs([d], "data directory")
        require_inputs([Path(d) / "text", Path(d) / "labels"])
    from punct.config import dump_yaml, to_dict
    from punct.engine.fusion import STAGE1_KEYS, STAGE2_KEYS, tune
    from punct.fsutil import atomic_write

    chosen, rows = tune(args.lexical, args.acoustic, args.dev, args.train, cfg)
    out = Path(args.out)
    with atomic_write(out) as f:  # creates the directory
        f.write(f"# chosen by punct.bin.joint_tune on {args.dev} ({chosen.objective} F1); expected_length from {args.train}\n")
        f.write(dump_yaml(to_dict(chosen)))
    # "configured": the row of conf/joint.yaml's own values (Che et al.'s), not a grid point
    cols = ["stage", *STAGE1_KEYS, *STAGE2_KEYS, "objective", "overall_f1", "sentence_f1", "configured"]
    with atomic_write(out.with_name(out.name + ".tsv")) as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, False)) for c in cols) + "\n")
    log.info("wrote %s (%d settings tried)", out, len(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.joint_tune")


if __name__ == "__main__":
    sys.exit(main())
