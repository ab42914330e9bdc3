"""Write a case lexicon into a model file with a case head: the words its training text spells one way.

    python -m punct.bin.set_case_lexicon --model models/default.pt --from data/earnings/ted_e22
    python -m punct.bin.set_case_lexicon --model FILE --clear

The lexicon ({lower-case word: Capitalized, ALL CAPS or mixed}) holds the words of the data
directory's ``written`` file spelled in one class other than lower case in at least
--min-share of their --min-count or more occurrences inside a sentence
(punct.data.datadir.case_lexicon_of): names, acronyms and brands (Paris, CEO, LNG, iPhone).
``punct restore`` spells such a word so wherever it occurs, whatever the case head guessed
(punct.text.casing.decided_cases): a small head misses the rarer ones. Training a model with a
case head stores its training set's lexicon already; this adds one to a file trained before,
or replaces it. The file is rewritten atomically, its other contents unchanged.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, finite_float, require_inputs, run
from punct.errors import PunctError

log = logging.getLogger("punct.bin.set_case_lexicon")


def build_parser() -> argparse.ArgumentParser:
    from punct.data.datadir import LEXICON_MIN_COUNT, LEXICON_MIN_SHARE

    p = ArgumentParser(prog="punct.bin.set_case_lexicon", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--model", required=True, help="model file with a case head (rewritten in place)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--from", dest="data", metavar="DATA_DIR",
                     help="the data directory the model was trained on (its 'written' and 'labels')")
    how.add_argument("--clear", action="store_true", help="remove the file's lexicon (the case head alone)")
    p.add_argument("--min-count", type=at_least(1), default=LEXICON_MIN_COUNT,
                   help=f"occurrences inside a sentence a word needs (default {LEXICON_MIN_COUNT})")
    p.add_argument("--min-share", type=finite_float(0.5, 1.0), default=LEXICON_MIN_SHARE,
                   help=f"share of them in its one spelling (default {LEXICON_MIN_SHARE})")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.data.datadir import DataSet, case_lexicon_of
    from punct.engine import checkpoint as ckpt

    require_inputs([args.model], "model file")
    lexicon = None
    if args.data is not None:
        data = Path(args.data)
        require_inputs([data / "text", data / "labels", data / "written"], "data directory file")
        lexicon = case_lexicon_of(DataSet(data).utterances, args.min_count, args.min_share)
    path = Path(args.model)
    if not getattr(ckpt.load_model(path)[0], "case_head", False):  # a two-stage model's is its stage one's
        raise PunctError("the model has no case head: a case lexicon would not be used", path)
    ck = ckpt.load(path, fill_stage1=False)
    ck.pop("case_lexicon", None)
    if lexicon:
        ck["case_lexicon"] = lexicon
    ckpt.save(path, ck)
    ckpt.load_model(path)  # it still decodes (a second stage: beside its stage one)
    if lexicon:
        from collections import Counter

        kinds = Counter(lexicon.values())
        log.info("%s: case lexicon of %d words from %s (%s)", path, len(lexicon), args.data,
                 ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    else:
        log.info("%s: no case lexicon", path)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.set_case_lexicon")


if __name__ == "__main__":
    sys.exit(main())
