"""Score the punctuation of a hypothesis against a reference.

    punct score REF HYP [--ref-format F] [--hyp-format F] [--json] [--out-dir DIR]
                        [--count-dropped] [--bootstrap N [--block-words W] [--level L] [--seed S]]

REF and HYP are each a data directory (also a decode output directory), an
IWSLT ``word<TAB>LABEL`` file, punctuated text (``.txt``, ``text.punct``) or an
Earnings ``.nlp`` file; the format is told from the name or the content unless
given. When the words differ (ASR output) they are aligned by edit distance and
the reference marks carried onto the hypothesis words. Prints the score table
(or JSON) on stdout; with --out-dir writes report.txt, report.json,
confusion.txt, errors.txt and report.html (punct.scoring.report) there. With --bootstrap N the report adds
confidence intervals of F1 and SER from N resamples of blocks of words
(punct.scoring.significance); ``punct compare`` tests two hypotheses against each
other. Never imports torch.

When both sides are cased (each has capital and small letters), the report adds case
P/R/F1 per class (case CAP, UPPER, MIXED; LOWER is no event) and overall on the same
word alignment (a deleted reference word counts as lower case, an inserted hypothesis
word against a lower-case reference), and mark+case: F1 over the words with a mark or
a case other than LOWER, a word right only when both its mark and its case are.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, finite_float, progress_wanted, require_inputs, run

log = logging.getLogger("punct.bin.score")


def build_parser() -> argparse.ArgumentParser:
    from punct.io import format_names

    p = ArgumentParser(prog="punct score", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="formats: " + ", ".join(["datadir", *format_names()]) + "\n\n"
                                + __doc__.strip().split("\n\n")[-1])
    add_input_options(p, {"hyp": "hypothesis: data directory (e.g. a decode output), file or folder of files"})
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")
    p.add_argument("--out-dir", default=None, help="also write report.txt, report.json, confusion.txt, errors.txt "
                   "and report.html (figures, intervals, errors in context; one self-contained file) here")
    add_significance_options(p, "--bootstrap", "also give confidence intervals of F1 and SER from N bootstrap "
                             "resamples of blocks of words (e.g. 1000; default: none)")
    add_common(p)
    return p


def add_input_options(p: argparse.ArgumentParser, hyps: dict[str, str]) -> None:
    """REF, the hypotheses (name -> help) and how they are read and aligned; shared with punct compare."""
    p.add_argument("ref", help="reference: data directory, file or folder of files")
    for name, text in hyps.items():
        p.add_argument(name, help=text)
    p.add_argument("--ref-format", default=None, help="format of REF (default: from its name or content)")
    p.add_argument("--hyp-format", default=None, help="format of the hypotheses (default: from name or content)")
    p.add_argument("--count-dropped", action="store_true",
                   help="count the reference marks the word alignment could not place (the report's 'dropped') "
                        "as missed marks; by default they are reported but not scored")


def add_significance_options(p: argparse.ArgumentParser, flag: str, help_n: str, default: int | None = None) -> None:
    """The bootstrap's options, shared with punct compare."""
    from punct.scoring import significance as sig

    p.add_argument(flag, dest="resamples", type=at_least(1, 1_000_000), default=default, metavar="N", help=help_n)
    p.add_argument("--block-words", type=at_least(1, 10_000_000), default=sig.BLOCK_WORDS, metavar="W",
                   help=f"words per resampled block, cut inside each utterance (default {sig.BLOCK_WORDS})")
    p.add_argument("--level", type=finite_float(0.0, 1.0), default=sig.LEVEL, help=f"coverage of the intervals (default {sig.LEVEL})")
    p.add_argument("--seed", type=at_least(0, 2**32 - 1), default=1, help="seed of the resampling (default 1)")


#: what ``--out-dir`` holds: a folder with only these (and the output mark) is an older report
REPORT_FILES = frozenset({"report.txt", "report.json", "confusion.txt", "errors.txt"})


def report_dir(path: Path) -> bool:
    """True for a folder of an earlier report written without the output mark (``REPORT_FILES``,
    all of them and nothing else), which ``--out-dir`` may replace."""
    return {p.name for p in path.iterdir()} == REPORT_FILES


def pairs_by_id(ref: str, hyp: str) -> bool:
    """Two directories (folders of files, data directories) pair their utterances by id or file name."""
    return Path(ref).is_dir() and Path(hyp).is_dir()


def read_ref(path: str, args: argparse.Namespace) -> list:
    """The reference as utterances (a pipe, ``<(...)``, read once: ``punct.fsutil.spooled_input``)."""
    from punct.fsutil import spooled_input
    from punct.io import read_any

    with spooled_input(path) as f:
        return read_any(f, args.ref_format, "--ref-format")


def read_hyp(path: str, args: argparse.Namespace) -> list:
    """A hypothesis as utterances, read as ``read_ref`` reads the reference (``args.ref``)."""
    from punct.fsutil import spooled_input
    from punct.io import read_hypothesis

    with spooled_input(path) as f:
        return read_hypothesis(f, args.hyp_format, args.ref, "--hyp-format")


def _main(args: argparse.Namespace) -> int:
    from punct.fsutil import check_not_input, check_replaceable

    require_inputs([args.ref], "reference")
    require_inputs([args.hyp], "hypothesis")
    if args.out_dir:
        check_not_input(args.out_dir, [args.ref, args.hyp], "--out-dir")
        check_replaceable(args.out_dir, report_dir)
    from punct.scoring.score import aligned_slots, score_streams

    ref, hyp = read_ref(args.ref, args), read_hyp(args.hyp, args)
    log.info("reference %s: %d utterances, %d words; hypothesis %s: %d utterances, %d words",
             args.ref, len(ref), sum(len(u) for u in ref), args.hyp, len(hyp), sum(len(u) for u in hyp))
    streams, transfer = aligned_slots(ref, hyp, count_dropped=args.count_dropped, progress=progress_wanted(args),
                                      by_id=pairs_by_id(args.ref, args.hyp))
    report = score_streams(streams, transfer)
    if args.resamples is not None:
        from punct.scoring.significance import bootstrap_intervals

        report.bootstrap = bootstrap_intervals(streams, args.block_words, args.resamples, args.level, args.seed)
    if report.ref_marks == 0:
        log.warning("the reference has no marks: precision, recall, F1 and SER are undefined")
    if args.out_dir:
        from punct.fsutil import atomic_dir

        with atomic_dir(args.out_dir, report_dir) as tmp:
            report.write_dir(tmp)
            html_written = write_html(tmp / "report.html", report, streams, args)
        log.info("wrote %s/{report.txt,report.json,confusion.txt,errors.txt%s}", args.out_dir,
                 ",report.html" if html_written else "")
    sys.stdout.write(report.to_json() + "\n" if args.json else report.format_table())
    return 0


def write_html(path: Path, report, streams, args: argparse.Namespace) -> bool:
    """The HTML report (punct.scoring.report.score_html) with bootstrap intervals (those of
    --bootstrap, else the default resampling); False when matplotlib is missing."""
    import shlex

    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        log.warning("matplotlib is not installed: no report.html (pip install matplotlib)")
        return False
    from punct.fsutil import atomic_write
    from punct.scoring.report import score_html
    from punct.scoring.significance import bootstrap_intervals

    from punct.errors import PunctError

    iv = report.bootstrap
    if iv is None:
        try:
            iv = bootstrap_intervals(streams, args.block_words, RESAMPLES_FOR_HTML, args.level, args.seed)
        except PunctError as e:  # too few words to resample: the report goes without intervals
            log.info("report.html without intervals: %s", e)
    command = "punct score " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with atomic_write(path) as f:
        f.write(score_html(report, iv, str(args.ref), str(args.hyp), command))
    return True


#: resamples of the HTML report's intervals when --bootstrap is not given
RESAMPLES_FOR_HTML = 1000


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct score")


if __name__ == "__main__":
    sys.exit(main())
