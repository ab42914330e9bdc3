"""A recognizer for live pipelines: decode audio files one after the other with pocketsphinx
(punct.align.decoder, conf/asr.yaml) and print each one's words as CTM lines as soon as it is
decoded, as an online decoder prints them, the files one recording with times that run on.

    punct recognize ../shared/data/ljspeech/wavs/LJ001-00{01..20}.flac \\
        | punct restore --live - -o talk.srt

``--realtime`` waits for each file's duration before its words come out, as a microphone
would; ``--gap`` seconds of silence are counted between files. Lines are flushed at once.
"""
from __future__ import annotations

import argparse
import sys
import time

from punct.bin.common import ArgumentParser, add_common, finite_float, require_inputs, run


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct recognize", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("audio", nargs="+", help="audio files (any format punct.audio reads), in the order spoken")
    p.add_argument("--recording", default="live", help="the CTM's file field (default live)")
    p.add_argument("--gap", type=finite_float(0, 60), default=0.5, help="seconds between files (default 0.5)")
    p.add_argument("--realtime", action="store_true", help="pace the output as the audio would come")
    p.add_argument("--config", default=None, help="YAML config (conf/asr.yaml); default: built-in defaults")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.align.decoder import AsrConfig, Recognizer
    from punct.audio import TARGET_RATE, read_audio
    from punct.config import load_config
    from punct.io.ctm import format_time

    require_inputs(args.audio, "audio file")
    cfg = load_config(args.config, AsrConfig)
    rec = Recognizer(cfg)
    offset, t0 = 0.0, time.monotonic()
    for path in args.audio:
        audio = read_audio(path)
        dur = len(audio) / TARGET_RATE
        if args.realtime:  # the file's words come once it has been spoken
            time.sleep(max(0.0, t0 + offset + dur - time.monotonic()))
        for w in rec.decode(audio, utt=str(path), offset=offset):
            sys.stdout.write(f"{args.recording} 1 {format_time(w.start)} {format_time(max(w.end - w.start, 0.0))} "
                             f"{w.text} {format_time(w.conf)}\n")
        sys.stdout.flush()
        offset += dur + args.gap
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, build_parser().parse_args(argv), prog="punct recognize")


if __name__ == "__main__":
    sys.exit(main())
