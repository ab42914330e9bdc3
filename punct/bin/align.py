"""Force-align a data directory (or one job's part of it) to word and phone times.

    python -m punct.bin.align --data data/X/train/split2/1 --out-dir exp/X/align_train/part.1
    python -m punct.bin.align --merge 2 --data data/X/train --out-dir exp/X/align_train
    python -m punct.bin.align --prepare-lts

The first form aligns DATA (wav.scp, optional segments, text) into OUT: word_times,
words.ctm, phones.ctm, textgrid/<utt>.TextGrid, report.json (punct.align.batch),
and marks OUT done; a finished OUT whose word_times covers DATA/text is skipped
unless --force. ``--merge N`` joins OUT/part.1..N into OUT, installs
OUT/word_times as DATA/word_times, validates DATA and marks both done.
``--prepare-lts`` trains the letter-to-sound fallback once (cached), so that
parallel jobs do not each train it.
"""
from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, require_inputs, run

log = logging.getLogger("punct.bin.align")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.align", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--data", help="data directory: wav.scp, text, optional segments")
    p.add_argument("--out-dir", help="output directory (a job's part, or the merged result with --merge)")
    p.add_argument("--config", default=None, help="YAML config (conf/align.yaml); default: built-in defaults")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value (repeatable)")
    p.add_argument("--merge", type=at_least(0, 100_000), default=0, metavar="N", help="merge OUT/part.1..N instead of aligning")
    p.add_argument("--prepare-lts", action="store_true", help="train (or find) the letter-to-sound rules and exit")
    p.add_argument("--no-textgrid", action="store_true", help="do not write one TextGrid per utterance")
    p.add_argument("--force", action="store_true", help="redo finished outputs")
    add_common(p)
    return p


def load_cfg(args: argparse.Namespace):
    """The AlignConfig of ``--config`` with the command line's overrides."""
    from punct.align.aligner import AlignConfig
    from punct.config import load_config

    return load_config(args.config, AlignConfig, args.overrides)


def part_is_done(data: Path, out: Path) -> bool:
    """True when ``out`` is marked done and its word_times has exactly the utterances of ``data/text``."""
    from punct.fsutil import is_done
    from punct.data.tables import read_table

    if not is_done(out) or not (out / "word_times").is_file():
        return False
    return {k for k, _, _ in read_table(out / "word_times")} == {k for k, _, _ in read_table(data / "text")}


def prepare_lts(cfg, data: Path | None) -> None:
    """Train the letter-to-sound rules once (cached) if ``data/text`` (or, without data, anything)
    may need them, so that parallel jobs find them ready instead of each training them."""
    from punct.align.aligner import model_paths
    from punct.align.dictionary import read_dictionary
    from punct.align.g2p import LetterToSound, load_or_train
    from punct.align.lexicon import Lexicon
    from punct.data.tables import read_table

    _, dict_path, _ = model_paths(cfg.hmm, cfg.dict)
    if data is not None:
        require_inputs([data / "text"])
        needed: list[bool] = []

        def probe() -> LetterToSound:
            needed.append(True)
            return LetterToSound({})

        lex = Lexicon(read_dictionary(dict_path), probe)
        for _, words, lineno in read_table(data / "text"):
            lex.map_tokens(words, data / "text", lineno)
            if needed:
                break
        if not needed:
            log.info("%s: every word is in the dictionary or spelled out; no letter-to-sound rules needed", data)
            return
    load_or_train(dict_path, cfg.lts_model or None)
    log.info("letter-to-sound rules ready")


def merge(data: Path, out: Path, nj: int) -> None:
    """Merge the finished jobs' parts under OUT into OUT (word_times, CTMs, TextGrids,
    report) and install word_times into DATA; fails if a job has not finished."""
    from punct.data.datadir import validate_datadir
    from punct.errors import PunctError
    from punct.fsutil import is_done, mark_done, write_json
    from punct.data.splits import merge_ctms, merge_tables, move_tree_files, part_dirs, read_reports, sum_reports

    parts = part_dirs(out, nj)
    for p in parts:
        if not is_done(p):
            raise PunctError("job output is not finished (no .done)", p)
    merge_tables([p / "word_times" for p in parts], out / "word_times")
    merge_ctms([p / "words.ctm" for p in parts], out / "words.ctm")
    merge_ctms([p / "phones.ctm" for p in parts], out / "phones.ctm")
    move_tree_files(parts, "textgrid", out)
    report = sum_reports(read_reports(p / "report.json" for p in parts))
    write_json(out / "report.json", report)
    shutil.copyfile(out / "word_times", data / ".word_times.tmp")
    (data / ".word_times.tmp").replace(data / "word_times")
    validate_datadir(data, require_labels=False)
    mark_done(out)
    mark_done(data / "word_times")
    log.info("%s: %d utterances, %d words aligned (%d needed letter-to-sound, %d utterances failed); "
             "%.1f s of audio in %.1f s of job time -> %s/word_times, %s/{words,phones}.ctm, %s/textgrid/",
             data, report.get("utterances", 0), report.get("words", 0), report.get("lts_words", 0),
             report.get("failed_utterances", 0), report.get("audio_seconds", 0.0), report.get("seconds", 0.0),
             data, out, out)


def _main(args: argparse.Namespace) -> int:
    from punct.errors import PunctError

    cfg = load_cfg(args)
    if args.prepare_lts:
        prepare_lts(cfg, Path(args.data) if args.data else None)
        return 0
    if not args.data or not args.out_dir:
        raise PunctError("--data and --out-dir are required (or --prepare-lts)")
    data, out = Path(args.data), Path(args.out_dir)
    require_inputs([data], "data directory")
    if args.merge:
        merge(data, out, args.merge)
        return 0
    require_inputs([data / "text", data / "wav.scp"])
    if part_is_done(data, out) and not args.force:
        log.info("%s is finished; skipping (--force to redo)", out)
        return 0
    from punct.align.batch import align_datadir
    from punct.fsutil import done_marker, mark_done

    done_marker(out).unlink(missing_ok=True)
    align_datadir(data, out, cfg, textgrids=not args.no_textgrid)
    mark_done(out)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.align")


if __name__ == "__main__":
    sys.exit(main())
