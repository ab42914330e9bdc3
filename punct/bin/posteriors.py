"""Write a model's per-word posteriors into a data directory: a teacher's soft labels.

    python -m punct.bin.posteriors --model exp/earnings/mpnet/best.pt \
        --data data/earnings/ted_e22 --name teacher
Decodes the data directory as punct.bin.decode does (the model's window, batch size and
features) and writes, per word, the posteriors of the mark after it and, when the model
has a case head, those of its case class, as the feature set DIR/NAME.{ark,scp,names}
(columns mark_O ... mark_QUESTION [case_LOWER ... case_MIXED]), marked DIR/NAME.done.
A training config reads them with distill_from: NAME (punct.engine.soft_labels).
Resumable: chunks of --chunk-words words are kept in DIR/.NAME.parts/ as they end, and a
rerun after a kill decodes only the rest (progress and the time left are logged); chunks of
another model or settings are an error unless --force.
Skipped when DIR/NAME.done exists, unless --force.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import (MAX_BATCH, MAX_THREADS, MAX_WINDOW, ArgumentParser, add_common, at_least,
                               require_inputs, run)

log = logging.getLogger("punct.bin.posteriors")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.posteriors", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, help="the teacher: a model file (best.pt)")
    p.add_argument("--data", required=True, help="data directory to decode (text; features the model reads)")
    p.add_argument("--name", default="teacher", help="feature set name: DIR/NAME.{ark,scp,names} (default: teacher)")
    p.add_argument("--chunk-words", type=at_least(1), default=50000,
                   help="words per resumable chunk, what a kill can lose (default 50000: a few minutes of a "
                        "base-size encoder; the utterances of a chunk are decoded together, their windows batched)")
    p.add_argument("--window", type=at_least(2, MAX_WINDOW), default=None, help="words per decoding window (default: the model's)")
    p.add_argument("--batch-size", type=at_least(1, MAX_BATCH), default=None, help="windows per batch (default: the model's)")
    p.add_argument("--precision", choices=("auto", "fp32", "bf16"), default="auto",
                   help="bf16: matrix products in bfloat16 (about twice as fast for a transformer tagger on a CPU with "
                        "native bfloat16); auto (default): bf16 for the transformer taggers on such a CPU, else fp32")
    p.add_argument("--threads", type=at_least(1, MAX_THREADS), default=2, help="torch threads")
    p.add_argument("--force", action="store_true", help="decode again even when DIR/NAME.done exists, and start over when the decoded chunks of an "
                        "unfinished run were made with another model or settings (else an error)")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.errors import PunctError
    from punct.fsutil import is_done, output_lock

    d = Path(args.data)
    require_inputs([args.model], "model file")
    require_inputs([d], "data directory")
    require_inputs([d / "text"])
    if not args.name or any(c in args.name for c in "/\\ \t") or args.name.startswith("."):
        raise PunctError(f"--name must be a plain file name stem, got {args.name!r}")
    if is_done(d / args.name) and not args.force:
        log.info("%s: posteriors %s done, skipping (--force to redo)", d, args.name)
        return 0
    import torch

    from punct.engine.soft_labels import write_posteriors

    torch.set_num_threads(args.threads)
    with output_lock(d / args.name, "punct posteriors"):
        write_posteriors(args.model, d, args.name, chunk_words=args.chunk_words, window=args.window,
                         batch_size=args.batch_size, force=args.force,
                         precision=args.precision)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.posteriors")


if __name__ == "__main__":
    sys.exit(main())
