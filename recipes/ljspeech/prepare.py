#!/usr/bin/env python3
"""Prepare LJ Speech (chapters LJ001-LJ002 in ../shared/data/ljspeech) as Kaldi-style data directories.

One utterance per clip, id = the clip id (``LJ001-0001``), one speaker ``LJ``,
``wav.scp`` pointing at the FLAC file (punct.audio reads it and resamples to
16 kHz). The punctuated reference is metadata.csv's *normalized* text (numbers
spelled out as read), tokenized with punct.text.textnorm.tokenize_punctuated, so
every word gets the label of the mark after it. Parentheses in LJ Speech hold
spoken words, so they are not dropped as stage notes (normalize_written would
drop a parenthesised span of up to six words): only the brackets go.

Sets are contiguous blocks of clips in corpus order (the clips are consecutive
sentences of one book, so neighbouring clips never straddle two sets): by
default ``train`` the first 80%, ``dev`` the next 10%, ``test`` the rest.
``--splits lj:1 --max-utts 12`` makes a single 12-clip set (the quick recipe).
``--passage true`` joins each set's clips, in order, into one utterance named after the
set, without audio: the book as one text to punctuate, where no clip boundary gives a
sentence end away (``--splits book:1 --passage true``: a read-prose test set that no
model here trains on).
Each set is built under a temporary name, validated, renamed into place and
marked done; a set already done is skipped unless ``--force true``.

Usage: python recipes/ljspeech/prepare.py --corpus-dir ../shared/data --out-dir data/ljspeech
See recipes/ljspeech/README.md.
"""
from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
from pathlib import Path

if importlib.util.find_spec("punct") is None:  # run as a script without PYTHONPATH: the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.data.datadir import validate_datadir
from punct.errors import PunctError
from punct.fsutil import atomic_dir, is_done, iter_lines, mark_done
from punct.data.tables import spk2utt_from_utt2spk, write_table
from punct.text.textnorm import tokenize_punctuated, unescape_html
from punct.text.words import Word

log = logging.getLogger("punct.recipes.ljspeech")

SPEAKER = "LJ"


def read_metadata(path: Path) -> list[tuple[str, str]]:
    """(clip id, normalized text) of every line of metadata.csv (``id|text|normalized``)."""
    out = []
    seen = set()
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) != 3:
            raise PunctError(f"expected 'id|text|normalized text', got {len(fields)} fields", path, lineno)
        clip, text = fields[0].strip(), fields[2].strip()
        if not clip or any(c.isspace() for c in clip):
            raise PunctError(f"bad clip id {clip!r}", path, lineno)
        if clip in seen:
            raise PunctError(f"duplicate clip id {clip!r}", path, lineno)
        seen.add(clip)
        out.append((clip, text))
    if not out:
        raise PunctError("no clips", path)
    return out


def tokenize(text: str) -> list[Word]:
    """Words with labels of one clip's normalized text (brackets removed, their words kept)."""
    return tokenize_punctuated(unescape_html(text))


def parse_splits(spec: str) -> list[tuple[str, float]]:
    """``train:0.8,dev:0.1,test:0.1`` -> [(name, share)]; shares are normalized to sum to 1."""
    out = []
    for item in spec.split(","):
        name, _, share = item.partition(":")
        try:
            value = float(share)
        except ValueError:
            raise PunctError(f"bad --splits item {item!r} (expected NAME:SHARE)") from None
        if not name or value <= 0:
            raise PunctError(f"bad --splits item {item!r} (expected NAME:SHARE with SHARE > 0)")
        out.append((name, value))
    if len({n for n, _ in out}) != len(out):
        raise PunctError(f"--splits names a set twice: {spec!r}")
    total = sum(v for _, v in out)
    return [(n, v / total) for n, v in out]


def assign(clips: list[str], splits: list[tuple[str, float]]) -> dict[str, list[str]]:
    """Contiguous blocks of ``clips`` with the given shares (the last set takes the rest)."""
    out: dict[str, list[str]] = {}
    start = 0
    acc = 0.0
    for i, (name, share) in enumerate(splits):
        acc += share
        end = len(clips) if i == len(splits) - 1 else int(round(acc * len(clips)))
        out[name] = clips[start:end]
        start = end
    return out


def write_set(out: Path, clips: list[tuple[str, list[Word]]], wav_dir: Path, passage: str | None = None) -> int:
    """The set's data directory in ``out``: one utterance a clip with its audio, or with
    ``passage`` one utterance of that name holding every clip's words, text only."""
    if passage:  # its audio would be many files: there is none
        name = passage
        words = [w for _, ws in clips for w in ws]
        write_table(out / "text", {name: [w.text for w in words]})
        write_table(out / "labels", {name: [w.label for w in words]})
        write_table(out / "utt2spk", {name: SPEAKER})
        write_table(out / "spk2utt", {SPEAKER: [name]})
        return validate_datadir(out)
    text, labels, wav, utt2spk = {}, {}, {}, {}
    for clip, words in clips:
        text[clip] = [w.text for w in words]
        labels[clip] = [w.label for w in words]
        wav[clip] = str(wav_dir / f"{clip}.flac")
        utt2spk[clip] = SPEAKER
    write_table(out / "text", text)
    write_table(out / "labels", labels)
    write_table(out / "wav.scp", wav)
    write_table(out / "utt2spk", utt2spk)
    write_table(out / "spk2utt", spk2utt_from_utt2spk(utt2spk))
    return validate_datadir(out)


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus-dir", required=True, help="the shared corpora (holding ljspeech/)")
    p.add_argument("--out-dir", required=True, help="where the data directories go (data/ljspeech)")
    p.add_argument("--splits", default="train:0.8,dev:0.1,test:0.1", help="sets and their shares, in corpus order")
    p.add_argument("--max-utts", type=int, default=0, help="use only the first N clips (0 = all)")
    p.add_argument("--passage", default="false", choices=("true", "false"),
                   help="each set as one utterance of its clips' words in order, text only (default false)")
    p.add_argument("--force", default="false", choices=("true", "false"), help="rebuild sets that are done")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    root = Path(args.corpus_dir).resolve() / "ljspeech"
    meta, wav_dir = root / "metadata.csv", root / "wavs"
    require_inputs([root], "LJ Speech directory")
    require_inputs([meta, wav_dir])
    splits = parse_splits(args.splits)
    out_dir = Path(args.out_dir)
    todo = [n for n, _ in splits if args.force == "true" or not is_done(out_dir / n)]
    if not todo:
        log.info("%s: sets %s are done; skipping", out_dir, ", ".join(n for n, _ in splits))
        return 0
    rows = read_metadata(meta)
    if args.max_utts:
        rows = rows[: args.max_utts]
    missing = [c for c, _ in rows if not (wav_dir / f"{c}.flac").is_file()]
    if missing:
        raise PunctError(f"audio of clip {missing[0]} not found ({len(missing)} missing)", wav_dir / f"{missing[0]}.flac")
    tokens: dict[str, list[Word]] = {}
    empty = 0
    for clip, text in rows:
        words = tokenize(text)
        if not words:
            empty += 1
            log.warning("%s: clip %s has no words; left out", meta, clip)
            continue
        tokens[clip] = words
    sets = assign(list(tokens), splits)
    for name, clips in sets.items():
        if name not in todo:
            log.info("%s/%s is done; skipping", out_dir, name)
            continue
        if not clips:
            raise PunctError(f"set {name!r} gets no clips (--splits {args.splits}, {len(tokens)} clips)")
        with atomic_dir(out_dir / name) as tmp:
            n_words = write_set(tmp, [(c, tokens[c]) for c in clips], wav_dir,
                                passage=name if args.passage == "true" else None)
        mark_done(out_dir / name)
        marks = sum(w.label != "O" for c in clips for w in tokens[c])
        log.info("%s/%s: %d clips (%s .. %s), %d words, %d marks", out_dir, name, len(clips), clips[0], clips[-1],
                 n_words, marks)
    if empty:
        log.info("%d clips without words were left out", empty)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="recipes/ljspeech/prepare.py")


if __name__ == "__main__":
    sys.exit(main())
