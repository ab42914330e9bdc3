"""Carry the reference punctuation onto ASR hypothesis words (stage 5).

    python -m punct.bin.transfer --ref data/X/test --hyp data/X/test_hyp [--report exp/X/transfer_test/report.json]

REF is a data directory with text and labels; HYP a hypothesis data directory
with the same utterance ids (text, word_times; from punct.bin.asr_decode).
Utterance by utterance the two word sequences are aligned by edit distance and
each reference mark is put on its hypothesis word (punct.data.transfer.transfer_marks:
a mark of a deleted word moves to the hypothesis word before it). Writes
HYP/labels (one label per hypothesis word), validates HYP, marks HYP/labels
done, and writes the summed TransferStats (word errors, marks carried, moved,
dropped) to --report as JSON and to the log.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, require_inputs, run

log = logging.getLogger("punct.bin.transfer")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.transfer", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--ref", required=True, help="reference data directory (text, labels)")
    p.add_argument("--hyp", required=True, help="hypothesis data directory (text, word_times); gets labels")
    p.add_argument("--report", default=None, help="write the transfer statistics here as JSON")
    p.add_argument("--force", action="store_true", help="redo when HYP/labels is done")
    add_common(p)
    return p


def transfer_datadir(ref: Path, hyp: Path) -> dict:
    """Write HYP/labels from REF's marks; return the summed statistics as a dict."""
    from punct.data.datadir import load_utterances, validate_datadir
    from punct.errors import PunctError
    from punct.data.tables import write_table
    from punct.data.transfer import TransferStats, transfer_marks

    refs = {u.id: u for u in load_utterances(ref, require_labels=True)}
    hyps = load_utterances(hyp, require_labels=False)
    missing = sorted(set(refs) - {u.id for u in hyps})
    extra = sorted({u.id for u in hyps} - set(refs))
    if extra:
        raise PunctError(f"utterance {extra[0]!r} is not in the reference ({len(extra)} such)", hyp / "text")
    if missing:
        raise PunctError(f"reference utterance {missing[0]!r} has no hypothesis ({len(missing)} such)", hyp / "text")
    labels: dict[str, list[str]] = {}
    total = TransferStats()
    for u in hyps:
        words, st = transfer_marks(refs[u.id].words, u.words)
        labels[u.id] = [w.label for w in words]
        total = total + st
    write_table(hyp / "labels", labels)
    validate_datadir(hyp, require_labels=True)
    return total.to_dict()


def _main(args: argparse.Namespace) -> int:
    from punct.fsutil import is_done, mark_done, write_json

    ref, hyp = Path(args.ref), Path(args.hyp)
    require_inputs([ref, hyp], "data directory")
    require_inputs([ref / "text", ref / "labels", hyp / "text"])
    if args.report and Path(args.report).is_dir():  # found before HYP/labels is written, not after
        from punct.errors import PunctError

        raise PunctError("--report is a directory; give the report's file name", args.report)
    if is_done(hyp / "labels") and (hyp / "labels").is_file() and not args.force:
        log.info("%s/labels is finished; skipping (--force to redo)", hyp)
        return 0
    stats = transfer_datadir(ref, hyp)
    if args.report:
        write_json(Path(args.report), stats)
    mark_done(hyp / "labels")
    wer = stats.get("wer")
    log.info("%s -> %s/labels: %d reference marks: %d carried, %d moved (their word was deleted), %d dropped; "
             "WER %s%% (%d sub, %d del, %d ins over %d words)", ref, hyp, stats["marks"], stats["carried"],
             stats["moved"], stats["dropped"], "n/a" if wer is None else f"{wer:.2f}", stats["substitutions"],
             stats["deletions"], stats["insertions"], stats["ref_words"])
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.transfer")


if __name__ == "__main__":
    sys.exit(main())
