"""Force-align one recording to its transcript: ``punct align AUDIO TRANSCRIPT -o OUT``.

AUDIO is any file soundfile reads (WAV, FLAC, OGG, MP3, ...; any rate, mono or
not). TRANSCRIPT is a text file written as people write (punctuation, capitals,
numbers, contractions): it is tokenized with punct.text.textnorm, and the tokens are
mapped to the pronouncing dictionary; words missing from it are pronounced by
the letter-to-sound fallback (the log says how many). OUT is a CTM (``.ctm``:
``<audio stem> 1 start duration word posterior``) or a TextGrid (``.TextGrid``:
tiers ``words`` and ``phones``), chosen by its extension; ``--phones-ctm``
also writes the phone times. A transcript token with no letter or digit (``@@``)
is an error naming the line.
"""
from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, require_inputs, run

log = logging.getLogger("punct.bin.align_one")

#: Characters a transcript may use between words without being a word: marks, quotes, brackets.
MARK_CHARS = set(",.?!;:-\u2010\u2011\u2012\u2013\u2014\u2015\u2026'\"\u2018\u2019\u201c\u201d\u00ab\u00bb()[]{}\u266a&/")
_ALNUM_RE = re.compile(r"[^\W_]")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct align", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("audio", help="the recording (any format soundfile reads)")
    p.add_argument("transcript", help="its transcript, a UTF-8 text file (punctuation and capitals allowed)")
    p.add_argument("-o", "--out", required=True, help="output: FILE.ctm or FILE.TextGrid")
    p.add_argument("--phones-ctm", default=None, help="also write the phone times as a CTM")
    p.add_argument("--config", default=None, help="YAML config (conf/align.yaml); default: built-in defaults")
    p.add_argument("--spread-if-failed", action="store_true",
                   help="when the words cannot be aligned (silent audio, a transcript that does not fit), write "
                        "them spread over the audio with confidence 0 and exit 0 (default: an error, exit 1)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value (repeatable)")
    add_common(p)
    return p


def read_transcript(path: Path) -> list[str]:
    """Tokens of a punctuated transcript; a chunk that is neither a word nor marks is an error."""
    from punct.errors import PunctError
    from punct.text.textnorm import normalize_written

    try:
        raw = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise PunctError(f"transcript is not valid UTF-8 (byte {e.start})", path) from None
    for lineno, line in enumerate(raw.splitlines(), 1):
        for chunk in line.split():
            if not _ALNUM_RE.search(chunk) and not set(chunk) <= MARK_CHARS:
                raise PunctError(f"transcript token {chunk!r} has no letters or digits", path, lineno)
    tokens = [w.text for w in normalize_written(raw)]
    if not tokens:
        raise PunctError("transcript has no words", path)
    return tokens


def _main(args: argparse.Namespace) -> int:
    from punct.errors import PunctError

    audio, transcript, out = Path(args.audio), Path(args.transcript), Path(args.out)
    require_inputs([audio], "audio file")
    require_inputs([transcript], "transcript")
    from punct.fsutil import check_not_input

    check_not_input(out, [audio, transcript])
    if args.phones_ctm:
        check_not_input(args.phones_ctm, [audio, transcript, out], "--phones-ctm")
    ext = out.name.lower().rsplit(".", 1)[-1] if "." in out.name else ""
    if ext not in ("ctm", "textgrid"):
        raise PunctError("cannot tell the output format from the name (use .ctm or .TextGrid)", out)
    tokens = read_transcript(transcript)

    from punct.align.aligner import AlignConfig, ForcedAligner
    from punct.align.output import write_phone_ctm, write_textgrid, write_word_ctm
    from punct.audio import TARGET_RATE, read_audio
    from punct.config import load_config

    cfg = load_config(args.config, AlignConfig, args.overrides)
    x = read_audio(audio)
    utt = re.sub(r"\s+", "_", audio.stem) or "audio"
    al = ForcedAligner(cfg).align(x, tokens, utt, where=transcript)
    if al.failed:
        if not args.spread_if_failed:
            raise PunctError(f"cannot align the transcript: {al.reason} (--spread-if-failed writes the words "
                             "spread evenly instead)", audio)
        log.warning("%s: %s; times are spread evenly (confidence 0)", audio, al.reason)
    if ext == "ctm":
        write_word_ctm([(al, utt)], out)
    else:
        write_textgrid(al, out, duration=len(x) / TARGET_RATE)
    if args.phones_ctm:
        write_phone_ctm([(al, utt)], args.phones_ctm)
    lts = sorted(set(al.lts_tokens))
    log.info("%s: %d words aligned over %.2f s -> %s; %d needed the letter-to-sound fallback%s",
             audio, len(al.words), len(x) / TARGET_RATE, out, al.n_lts, (": " + " ".join(lts[:20])) if lts else "")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct align")


if __name__ == "__main__":
    sys.exit(main())
