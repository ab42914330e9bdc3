"""Compute per-word pause features of a data directory from its word times.

    python -m punct.bin.pause_feats --data data/X/test
Reads DIR/text, DIR/word_times (and DIR/segments, DIR/utt2spk, DIR/word_speakers
when present: segments of one recording are chained so pauses cross segment
boundaries, and a change of speaker between words is flagged); writes
DIR/pause.ark, DIR/pause.scp, DIR/pause.names (punct.prosody.features) and
marks DIR/pause.done. Skipped when done, unless --force. Words without times
(``-`` in word_times) get the flags of punct.prosody.pause; with
``--allow-untimed`` a directory without word_times gets features too, every
word flagged untimed (so a pause model can decode it, falling back to words).
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, finite_float, require_inputs, run

log = logging.getLogger("punct.bin.pause_feats")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.pause_feats", description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="data directory with text and word_times")
    p.add_argument("--name", default="pause", help="feature set name: DIR/NAME.{ark,scp,names} (default: pause)")
    p.add_argument("--cap", type=finite_float(0.0, 3600.0), default=None, help="longest pause in seconds (default: punct.prosody.pause.PAUSE_CAP)")
    p.add_argument("--force", action="store_true", help="recompute even when DIR/NAME.done exists")
    p.add_argument("--allow-untimed", action="store_true",
                   help="a directory without word_times is not an error: every word is flagged untimed")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.data.datadir import load_utterances
    from punct.errors import PunctError
    from punct.fsutil import is_done, mark_done
    from punct.prosody.features import load_word_features, write_features
    from punct.prosody.pause import PAUSE_CAP, PAUSE_FEATURES, pause_features
    from punct.data.tables import read_table

    d = Path(args.data)
    require_inputs([d], "data directory")
    require_inputs([d / "text"] + ([] if args.allow_untimed else [d / "word_times"]))
    done = d / args.name
    if is_done(done) and not args.force:
        log.info("%s: %s features done, skipping (--force to redo)", d, args.name)
        return 0
    utts = load_utterances(d, require_labels=False)
    if (d / "segments").is_file():
        for key, vals, lineno in read_table(d / "segments"):
            if len(vals) != 3:
                raise PunctError("expected 'utterance recording start end'", d / "segments", lineno)
        reco = {k: v[0] for k, v, _ in read_table(d / "segments")}
        for u in utts:
            u.recording = reco.get(u.id)
    cap = PAUSE_CAP if args.cap is None else args.cap
    if cap <= 0:
        raise PunctError(f"--cap must be positive, got {cap}")
    feats = pause_features(utts, cap=cap)
    n_words = sum(m.shape[0] for m in feats.values())
    untimed = int(sum(m[:, PAUSE_FEATURES.index("untimed")].sum() for m in feats.values()))
    changes = int(sum(m[:, PAUSE_FEATURES.index("speaker_change_after")].sum() for m in feats.values()))
    write_features(d, args.name, feats, PAUSE_FEATURES)
    load_word_features(d, [args.name])  # read back: every utterance of text, one row per word
    mark_done(done)
    log.info("%s: %d utterances, %d words (%d without times, %d speaker changes) -> %s.{ark,scp,names}", d, len(feats),
             n_words, untimed, changes, d / args.name)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.pause_feats")


if __name__ == "__main__":
    sys.exit(main())
