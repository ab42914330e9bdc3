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

To end a run early (it may be running or waiting to be resumed), ask it to stop:

    python -m punct.bin.train --stop --exp exp/tbrnn --why "validation F1 flat for 3 epochs"

It ends at its next epoch boundary, after that epoch's validation, and records the
reason in train_done.json; a rerun of the training stops at once while EXP/stop exists.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, require_inputs, run
from punct.errors import PunctError


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.train", description=__doc__.splitlines()[0])
    p.add_argument("--config", help="YAML training config (conf/*.yaml); required unless --stop")
    p.add_argument("--train", help="training data directory (text + labels); required unless --stop")
    p.add_argument("--valid", help="validation data directory (text + labels); required unless --stop")
    p.add_argument("--exp", required=True, help="experiment directory (created; resumed if it holds checkpoint.pt)")
    p.add_argument("--max-epochs", type=at_least(1, 1_000_000), default=None, help="override max_epochs")
    p.add_argument("--state", metavar="FILE",
                   help="a state file carried in git (models/accurate/tagger.pt): resume from it when it is further "
                        "along than --exp, write it back after every epoch and at the end (punct.engine.carry)")
    p.add_argument("--time-budget", metavar="DURATION", type=duration, default=None,
                   help="wall time this call may take (e.g. 9000, 150m, 2h30m): training stops in time to "
                        "validate and save, and a rerun continues")
    p.add_argument("--device", default="cpu", metavar="DEV",
                   help="where to train: cpu (default) or cuda (a GPU, in bf16; the same files are written)")
    p.add_argument("--stop", action="store_true",
                   help="do not train: ask the training in --exp to end at its next epoch boundary (writes EXP/stop)")
    p.add_argument("--why", default="", help="with --stop: the reason, recorded in train_done.json")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config overrides, e.g. lr=0.01 model_args.hidden_size=128")
    add_common(p)
    return p


def duration(text: str) -> float:
    """Seconds of a duration written as seconds (9000) or with units (2h30m, 150m, 45s)."""
    import re

    m = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", text)
    if not text.strip() or m is None or not any(m.groups()):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (seconds, or e.g. 2h30m, 150m)")
    h, mi, sec = (float(g) if g else 0.0 for g in m.groups())
    total = 3600 * h + 60 * mi + sec
    if total <= 0:
        raise argparse.ArgumentTypeError(f"a time budget must be positive, got {text!r}")
    return total


def _main(args: argparse.Namespace) -> int:
    if args.stop:
        if args.config or args.train or args.valid or args.overrides or args.max_epochs is not None \
                or args.state or args.time_budget:
            raise PunctError("--stop takes only --exp and --why")
        from punct.engine.expdir import request_stop

        path = request_stop(args.exp, args.why)
        print(f"{path}: training ends after its current epoch (remove this file to train on)")
        return 0
    missing = [o for o, v in (("--config", args.config), ("--train", args.train), ("--valid", args.valid)) if not v]
    if missing:
        raise PunctError(f"missing {', '.join(missing)} (required unless --stop)")
    if args.why:
        raise PunctError("--why goes with --stop")
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
        train(cfg, args.train, args.valid, args.exp, command=command, state=args.state, time_budget=args.time_budget,
              device=args.device)
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


def _exit_rank(rc: int) -> None:
    """End a torchrun rank without running C++ static destructors. Even after
    destroy_process_group, a rank aborted now and then at interpreter exit ("terminate
    called without an active exception", SIGABRT, no Python frame left: a gloo thread
    still joinable when its owner was destroyed), failing a job whose files were all
    written; a short run (a resumed run that stops at once) hit it in 2 of 15 tries.
    Everything is flushed first; nothing after this point has work to do."""
    import logging

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


if __name__ == "__main__":
    rc = main()
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        _exit_rank(rc)
    sys.exit(rc)
