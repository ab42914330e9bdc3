"""Per-word pitch and energy features of a data directory (or one job's part of it).

    python -m punct.bin.prosody_feats --data data/X/test/split2/1 --out-dir exp/X/prosody_test/part.1
    python -m punct.bin.prosody_feats --merge 2 --data data/X/test --out-dir exp/X/prosody_test

The first form tracks pitch and energy of every utterance of DATA (wav.scp,
optional segments, text, word_times, utt2spk) with conf/prosody.yaml and pools
them per word into raw values (semitones, dB): OUT/raw.{ark,scp,names},
OUT/stats.json (the speakers' moments), OUT/report.json; then marks OUT done.
``--merge N`` adds up the speakers' moments of OUT/part.1..N, z-normalizes every
word per speaker (punct.prosody.pooling) and writes DATA/prosody.{ark,scp,names}
(punct.prosody.features), marked DATA/prosody.done. Without a split, run the
first form with ``--out-dir`` and then ``--merge 1`` on ``--out-dir``'s parent
holding ``part.1``.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, at_least, require_inputs, run

log = logging.getLogger("punct.bin.prosody_feats")

FEATURE_SET = "prosody"


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.prosody_feats", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--data", required=True, help="data directory: wav.scp, text, word_times (segments, utt2spk)")
    p.add_argument("--out-dir", required=True, help="output directory (a job's part, or the stage's directory with --merge)")
    p.add_argument("--config", default=None, help="YAML config (conf/prosody.yaml); default: built-in defaults")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value (repeatable), e.g. pitch.tracker=praat")
    p.add_argument("--merge", type=at_least(0, 100_000), default=0, metavar="N", help="normalize and merge OUT/part.1..N into DATA")
    p.add_argument("--force", action="store_true", help="redo finished outputs")
    add_common(p)
    return p


def load_cfg(args: argparse.Namespace):
    """The ProsodyConfig of ``--config`` with the command line's overrides."""
    from punct.config import load_config
    from punct.prosody.pooling import ProsodyConfig

    return load_config(args.config, ProsodyConfig, args.overrides)


def merge(data: Path, out: Path, nj: int, cfg) -> None:
    """Merge the finished jobs' raw features under OUT and normalise them per speaker
    with the speaker statistics of all jobs together."""
    from punct.errors import PunctError
    from punct.fsutil import is_done, mark_done, write_json
    from punct.prosody.features import read_features, write_features
    from punct.prosody.pooling import WORD_FEATURES, SpeakerStats, normalize_all
    from punct.data.splits import part_dirs, read_reports, sum_reports
    from punct.data.tables import read_table

    raw = {}
    stats = SpeakerStats()
    parts = part_dirs(out, nj)
    for p in parts:
        if not is_done(p):
            raise PunctError("job output is not finished (no .done)", p)
        feats, names = read_features(p, "raw")
        if tuple(names) != WORD_FEATURES:
            raise PunctError(f"columns {names} differ from {list(WORD_FEATURES)} (made by another version?)", p / "raw.names")
        for k in feats:
            if k in raw:
                raise PunctError(f"utterance {k!r} is in more than one part", p / "raw.scp")
        raw.update(feats)
        stats.merge(SpeakerStats.from_json(json.loads((p / "stats.json").read_text(encoding="utf-8"))))
    keys = {k for k, _, _ in read_table(data / "text")}
    if set(raw) != keys:
        diff = sorted(keys ^ set(raw))
        raise PunctError(f"the parts cover other utterances than text (e.g. {diff[0]!r})", data / "text")
    utt2spk = {k: v[0] for k, v, _ in read_table(data / "utt2spk")} if (data / "utt2spk").is_file() else {}
    final = normalize_all(raw, utt2spk, stats, cfg)
    write_features(data, FEATURE_SET, final, WORD_FEATURES)
    mark_done(data / FEATURE_SET)
    report = sum_reports(read_reports(p / "report.json" for p in parts))
    report["speakers"] = {spk: {"pitch_mean_st": round(stats.pitch[spk].mean_sd(cfg.pitch_sd_floor)[0], 3),
                                "pitch_sd_st": round(stats.pitch[spk].mean_sd(cfg.pitch_sd_floor)[1], 3),
                                "energy_mean_db": round(stats.energy[spk].mean_sd(cfg.energy_sd_floor)[0], 3),
                                "energy_sd_db": round(stats.energy[spk].mean_sd(cfg.energy_sd_floor)[1], 3)}
                          for spk in sorted(stats.pitch)}
    write_json(out / "report.json", report)
    mark_done(out)
    log.info("%s: %d words of %d utterances (%d unvoiced, %d silent); %.1f s of audio in %.1f s of job time -> "
             "%s/%s.{ark,scp,names}", data, report.get("words", 0), report.get("utterances", 0),
             report.get("unvoiced_words", 0), report.get("silent_words", 0), report.get("audio_seconds", 0.0),
             report.get("seconds", 0.0), data, FEATURE_SET)


def _main(args: argparse.Namespace) -> int:
    cfg = load_cfg(args)
    data, out = Path(args.data), Path(args.out_dir)
    require_inputs([data], "data directory")
    if args.merge:
        merge(data, out, args.merge, cfg)
        return 0
    require_inputs([data / "text", data / "word_times", data / "wav.scp"])
    from punct.fsutil import done_marker, is_done, mark_done, write_json
    from punct.prosody.features import write_features
    from punct.prosody.pooling import WORD_FEATURES, extract_raw
    from punct.data.tables import read_table

    if is_done(out) and (out / "raw.scp").is_file() and not args.force:
        if {k for k, _, _ in read_table(out / "raw.scp")} == {k for k, _, _ in read_table(data / "text")}:
            log.info("%s is finished; skipping (--force to redo)", out)
            return 0
    done_marker(out).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    raw, stats, report = extract_raw(data, cfg)
    write_features(out, "raw", raw, WORD_FEATURES)
    write_json(out / "stats.json", stats.to_json())
    write_json(out / "report.json", report)
    mark_done(out)
    log.info("%s: %d utterances, %d words (%d unvoiced, %d silent), %.1f s of audio in %.1f s (%s)", data,
             report["utterances"], report["words"], report["unvoiced_words"], report["silent_words"],
             report["audio_seconds"], report["seconds"], report["tracker"])
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.prosody_feats")


if __name__ == "__main__":
    sys.exit(main())
