"""Train a model from a config on prepared data directories (resumes if interrupted).

    python -m punct.bin.train --config conf/tbrnn.yaml --train data/X/train \
        --valid data/X/dev2012 --exp exp/tbrnn [--max-epochs N] [key=value ...]

A two-stage model (conf/ta_*.yaml) names its stage one with init_from=exp/.../best.pt;
models with per-word features read DIR/<set>.scp of --train and --valid (stage 4).
Every model of conf/ trains through this one entry point (a counting model such as
the hidden-event LM is estimated in one pass). Data-parallel on one or more machines
with torchrun (gloo backend, CPU; every rank takes its share of each batch, rank 0
writes the files):

    torchrun --standalone --nproc_per_node 2 -m punct.bin.train --config ... threads=2
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from punct.bin.common import add_common, require_inputs, run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="punct.bin.train", description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="YAML training config (conf/*.yaml)")
    p.add_argument("--train", required=True, help="training data directory (text + labels)")
    p.add_argument("--valid", required=True, help="validation data directory (text + labels)")
    p.add_argument("--exp", required=True, help="experiment directory (created; resumed if it holds checkpoint.pt)")
    p.add_argument("--max-epochs", type=int, default=None, help="override max_epochs")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config overrides, e.g. lr=0.01 model_args.hidden_size=128")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    require_inputs([args.config])
    for d in (args.train, args.valid):
        require_inputs([d], "data directory")
        require_inputs([Path(d) / "text", Path(d) / "labels"])
    from punct.config import load_config
    from punct.engine.config import TrainConfig

    overrides = list(args.overrides)
    if args.max_epochs is not None:
        overrides.append(f"max_epochs={args.max_epochs}")
    cfg = load_config(args.config, TrainConfig, overrides)
    from punct.engine.train import train

    command = "python -m punct.bin.train " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        train(cfg, args.train, args.valid, args.exp, command=command)
    finally:
        # a torchrun rank leaves the gloo group before exiting: left to interpreter shutdown, its
        # threads were destroyed while still joinable and a rank aborted (SIGABRT) now and then
        # after training had finished
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.train")


if __name__ == "__main__":
    sys.exit(main())
