"""Decode a data directory (or one job's part of it) into ASR hypotheses with word times.

    python -m punct.bin.asr_decode --data data/X/test/split2/1 --out-dir exp/X/asr_test/part.1
    python -m punct.bin.asr_decode --merge 2 --data data/X/test --out-dir exp/X/asr_test --hyp-dir data/X/test_hyp

The first form decodes every utterance of DATA whole (pocketsphinx, conf/asr.yaml)
into OUT: text, word_times, word_conf, hyp.ctm, report.json (punct.align.batch),
and marks OUT done. ``--merge N`` joins OUT/part.1..N into OUT and builds the
hypothesis data directory HYP (wav.scp, segments, utt2spk, spk2utt copied from
DATA; text, word_times, word_conf and ctm from the decoder; no labels until the
punctuation transfer of stage 5), validates it and marks it done. When DATA has
a reference ``text`` the word error rate is scored into OUT/scoring/: with the
project's scorer (punct.scoring.score; ``wer.json``) and, when Debian's sctk is
installed, with NIST sclite (``ref.stm``, ``hyp.ctm``, ``sclite.txt``).
"""
from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, require_inputs, run

log = logging.getLogger("punct.bin.asr_decode")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.asr_decode", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--data", required=True, help="data directory: wav.scp, optional segments and text")
    p.add_argument("--out-dir", required=True, help="output directory (a job's part, or the merged result with --merge)")
    p.add_argument("--hyp-dir", default=None, help="with --merge: the hypothesis data directory to build")
    p.add_argument("--config", default=None, help="YAML config (conf/asr.yaml); default: built-in defaults")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value (repeatable)")
    p.add_argument("--merge", type=at_least(0, 100_000), default=0, metavar="N", help="merge OUT/part.1..N instead of decoding")
    p.add_argument("--force", action="store_true", help="redo finished outputs")
    add_common(p)
    return p


# ---------------------------------------------------------------- merge


def merge(data: Path, out: Path, nj: int, hyp_dir: Path | None) -> None:
    """Merge the finished jobs' parts under OUT (text, word times and confidences, CTM,
    report); with HYP_DIR also build the hypothesis data directory and score its WER."""
    from punct.data.datadir import validate_datadir
    from punct.errors import PunctError
    from punct.fsutil import atomic_dir, is_done, mark_done, write_json
    from punct.data.splits import merge_ctms, merge_tables, part_dirs, read_reports, sum_reports
    from punct.scoring.wer import score_wer

    parts = part_dirs(out, nj)
    for p in parts:
        if not is_done(p):
            raise PunctError("job output is not finished (no .done)", p)
    for name in ("text", "word_times", "word_conf"):
        merge_tables([p / name for p in parts], out / name)
    merge_ctms([p / "hyp.ctm" for p in parts], out / "hyp.ctm")
    report = sum_reports(read_reports(p / "report.json" for p in parts))
    write_json(out / "report.json", report)
    log.info("%s: %d utterances decoded, %d words, %d empty; %.1f s of audio in %.1f s of job time",
             data, report.get("utterances", 0), report.get("words", 0), report.get("empty_hypotheses", 0),
             report.get("audio_seconds", 0.0), report.get("seconds", 0.0))
    if hyp_dir is None:
        mark_done(out)
        return
    # an earlier merge's hypothesis directory (ctm and word_conf are its own)
    with atomic_dir(hyp_dir, ours=lambda p: (p / "ctm").is_file() and (p / "word_conf").is_file()) as tmp:
        for name in ("wav.scp", "segments", "utt2spk", "spk2utt"):
            if (data / name).is_file():
                shutil.copyfile(data / name, tmp / name)
        for name in ("text", "word_times", "word_conf"):
            shutil.copyfile(out / name, tmp / name)
        shutil.copyfile(out / "hyp.ctm", tmp / "ctm")
        validate_datadir(tmp, require_labels=False)
    mark_done(hyp_dir)
    if (data / "text").is_file():
        score_wer(data, hyp_dir, out / "scoring")
    mark_done(out)
    log.info("hypothesis data directory: %s (text, word_times, word_conf, ctm; labels come with stage 5)", hyp_dir)


def _main(args: argparse.Namespace) -> int:
    data, out = Path(args.data), Path(args.out_dir)
    require_inputs([data], "data directory")
    if args.merge:
        merge(data, out, args.merge, Path(args.hyp_dir) if args.hyp_dir else None)
        return 0
    require_inputs([data / "wav.scp"])
    from punct.align.batch import decode_datadir
    from punct.align.decoder import AsrConfig
    from punct.config import load_config
    from punct.fsutil import done_marker, is_done, mark_done
    from punct.data.tables import read_table

    if is_done(out) and (out / "text").is_file() and not args.force and (data / "text").is_file():
        if {k for k, _, _ in read_table(out / "text")} == {k for k, _, _ in read_table(data / "text")}:
            log.info("%s is finished; skipping (--force to redo)", out)
            return 0
    cfg = load_config(args.config, AsrConfig, args.overrides)
    done_marker(out).unlink(missing_ok=True)
    decode_datadir(data, out, cfg)
    mark_done(out)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.asr_decode")


if __name__ == "__main__":
    sys.exit(main())
