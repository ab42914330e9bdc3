#!/usr/bin/env python3
"""Prepare the IWSLT2011 TED benchmark as Kaldi-style data directories.

Writes ``<out-dir>/test2011`` and ``<out-dir>/dev2012`` from the benchmark files
(``word<TAB>LABEL`` per line) and ``<out-dir>/<train-name>`` from the TED talk
transcripts (``ted/talks/*.md``), tokenized like the test set by punct.text.textnorm.
Each set is built under a temporary name, validated, renamed into place and
marked done; a set already done is skipped unless ``--force``.

Usage: python recipes/iwslt2011/prepare.py --corpus-dir DIR --out-dir data/iwslt2011
           [--train-words N] [--dev-words N] [--test-words N] [--train-name NAME]
See recipes/iwslt2011/README.md.
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import logging
import math
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator

if importlib.util.find_spec("punct") is None:  # run as a script without PYTHONPATH: the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.data.datadir import load_utterances, validate_datadir, write_datadir
from punct.errors import PunctError
from punct.fsutil import atomic_dir, is_done, mark_done, write_json
from punct.io.iwslt import read_words
from punct.text.labels import DEFAULT_MARK_MAP, LABELS, SENTENCE_END
from punct.overlap import heldout_overlap
from punct.text.textnorm import normalize_written
from punct.text.words import Utterance, Word

log = logging.getLogger("punct.recipes.iwslt2011")

BENCHMARK_SETS = ("test2011", "dev2012")
#: Header lines of the talk files that are not speech.
_HEADER_RE = re.compile(r"^\s*(Translator|Reviewer|Transcriber|Translated by|Reviewed by)\s*:", re.I)
_UNSAFE_ID_RE = re.compile(r"[^A-Za-z0-9_-]+")


# ---------------------------------------------------------------- benchmark sets


def read_benchmark(path: Path) -> tuple[list[Word], int]:
    """Read ``word<TAB>LABEL`` lines (punct.io.iwslt); return the words and the number of
    empty-word lines, whose mark went to the previous word. A label outside the set or a
    malformed line raises PunctError naming the file and line."""
    return read_words(path)


def split_sentences(words: list[Word], name: str, target: int = 1000) -> list[Utterance]:
    """Cut a word stream into utterances of about ``target`` words, only after PERIOD/QUESTION.

    Ids are ``<name>-0001``...; concatenating the utterances gives back the stream.
    """
    utts: list[Utterance] = []
    cur: list[Word] = []
    for w in words:
        cur.append(w)
        if len(cur) >= target and w.label in SENTENCE_END:
            utts.append(Utterance(id=f"{name}-{len(utts) + 1:04d}", words=cur))
            cur = []
    if cur:
        utts.append(Utterance(id=f"{name}-{len(utts) + 1:04d}", words=cur))
    return utts


def take_words(utts: Iterable[Utterance], limit: int) -> list[Utterance]:
    """Whole utterances in order until ``limit`` words are reached (0 = all)."""
    out: list[Utterance] = []
    total = 0
    for u in utts:
        if limit and total >= limit:
            break
        out.append(u)
        total += len(u)
    return out


# ---------------------------------------------------------------- training talks


def safe_ids(stems: list[str]) -> list[str]:
    """Utterance ids from file stems: only [A-Za-z0-9_-], unique (a numeric suffix if needed)."""
    seen: set[str] = set()
    out = []
    for s in stems:
        base = _UNSAFE_ID_RE.sub("_", s).strip("_") or "talk"
        uid, k = base, 1
        while uid in seen:
            k += 1
            uid = f"{base}-{k}"
        seen.add(uid)
        out.append(uid)
    return out


def talk_text(path: Path) -> str:
    """The speech text of one talk file: header lines dropped, broken lines joined."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.strip() for ln in f]
    return " ".join(ln for ln in lines if ln and not _HEADER_RE.match(ln))


def parse_mark_map(spec: str) -> dict[str, str]:
    """``"MARK=LABEL ..."`` (``--=O :=COMMA``) -> the default mark map with those entries
    replaced (punct.text.labels.DEFAULT_MARK_MAP); LABEL O removes the mark."""
    table = dict(DEFAULT_MARK_MAP)
    for item in spec.split():
        mark, sep, label = item.rpartition("=")
        if not sep or not mark:
            raise PunctError(f"--mark-map: expected MARK=LABEL, got {item!r}")
        if label not in LABELS:
            raise PunctError(f"--mark-map: {item!r}: label must be one of {' '.join(LABELS)}")
        table[mark] = label
    return table


def _tokenize_talk(path: str, mark_map: dict[str, str] | None = None
                   ) -> tuple[str, list[tuple[str, str, str | None]] | None, str | None]:
    """Worker: (path, [(word, label, spelling or None)...] or None, error message or None)."""
    p = Path(path)
    try:
        text = talk_text(p)
    except UnicodeDecodeError as e:
        return path, None, f"not valid UTF-8 at byte {e.start}"
    if not text.strip():
        return path, [], None
    return path, [(w.text, w.label, w.written) for w in normalize_written(text, mark_map, keep_case=True)], None


def iter_talks(files: list[Path], nj: int, mark_map: dict[str, str] | None = None) -> Iterator[tuple[Path, list[Word]]]:
    """Tokenize talk files in order (``nj`` worker processes); yields (file, words)."""
    paths = [str(f) for f in files]
    work = functools.partial(_tokenize_talk, mark_map=mark_map)
    if nj <= 1 or len(paths) < 8:
        results: Iterable = map(work, paths)
        pool = None
    else:
        import multiprocessing as mp

        pool = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn").Pool(nj)
        results = pool.imap(work, paths, chunksize=4)
    try:
        for path, pairs, err in results:
            if err is not None:
                raise PunctError(err, path)
            yield Path(path), [Word(text=w, label=lab, written=sp) for w, lab, sp in pairs]
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def read_train(talks_dir: Path, limit: int, nj: int, skip: int = 0,
               mark_map: dict[str, str] | None = None) -> tuple[list[Utterance], dict]:
    """One utterance per talk, sorted by file name, whole talks until ``limit`` words (0 = all);
    with ``skip``, the whole talks that the first ``skip`` words' worth takes (what
    ``--train-words SKIP`` would train on) are passed over first: held-out talks of the same text."""
    files = sorted(talks_dir.glob("*.md"), key=lambda p: p.name)
    if not files:
        raise PunctError("no *.md talk files", talks_dir)
    ids = dict(zip(files, safe_ids([f.stem for f in files])))
    utts: list[Utterance] = []
    total = 0
    skipped = 0
    passed = 0  # words of the skipped talks
    progress = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        progress = tqdm(total=limit or None, unit="word", desc="train", file=sys.stderr)
    try:
        for path, words in iter_talks(files, nj, mark_map):
            if not words:
                log.warning("%s: empty talk (no words): skipped", path)
                skipped += 1
                continue
            if passed < skip:
                passed += len(words)
                continue
            utts.append(Utterance(id=ids[path], words=words))
            total += len(words)
            if progress is not None:
                progress.update(len(words))
            if limit and total >= limit:
                break
    finally:
        if progress is not None:
            progress.close()
    if not utts:
        raise PunctError("no talk has any words" if not skip else f"no talk left after skipping {passed} words",
                         talks_dir)
    return utts, {"talk_files": len(files), "talks_used": len(utts), "talks_skipped_empty": skipped,
                  "words_skipped": passed}


def words_per_sentence(utts: list[Utterance]) -> float:
    """The words of ``utts`` over their sentence ends (PERIOD, QUESTION); inf without one."""
    ends = sum(1 for u in utts for w in u.words if w.label in SENTENCE_END)
    return sum(len(u) for u in utts) / ends if ends else math.inf


def nearest_sentence_length(utts: list[Utterance], limit: int, target: float,
                            exclude: set[str] = frozenset()) -> tuple[list[Utterance], dict]:
    """The whole talks whose words per sentence (a sentence ends at PERIOD or QUESTION) are
    nearest ``target``, until ``limit`` words (0 = all), in file-name order; the talks of
    ``exclude`` (ids) are left out. TED transcripts end their sentences less often than the
    benchmark's text (16.1 words a sentence in ted/, 14.5 in dev2012): this picks the training
    talks that are punctuated like the text the model is for, by the validation set's statistics."""
    pool = [u for u in utts if u.id not in exclude]
    order = sorted(range(len(pool)), key=lambda i: (abs(words_per_sentence([pool[i]]) - target), i))
    keep, total = set(), 0
    for i in order:
        if limit and total >= limit:
            break
        keep.add(i)
        total += len(pool[i])
    picked = [u for i, u in enumerate(pool) if i in keep]
    wps = words_per_sentence(picked)
    return picked, {"sentence_length_target": target, "talks_excluded": len(utts) - len(pool),
                    "words_per_sentence": round(wps, 2) if math.isfinite(wps) else None}


def sentence_length_arg(value: str) -> float:
    """``--sentence-length``: a number of words per sentence, or a data directory's own
    (its words over its PERIOD and QUESTION labels)."""
    path = Path(value)
    if path.is_dir():
        wps = words_per_sentence(load_utterances(path))
        if not math.isfinite(wps):
            raise PunctError("--sentence-length: no sentence ends in its labels", path / "labels")
        return round(wps, 2)
    try:
        length = float(value)
    except ValueError:
        raise PunctError(f"--sentence-length {value!r}: neither a number nor a data directory") from None
    if length < 0 or not math.isfinite(length):
        raise PunctError(f"--sentence-length must be a positive number of words, got {value}")
    return length


# ---------------------------------------------------------------- writing


def set_stats(utts: list[Utterance], extra: dict | None = None) -> dict:
    counts = Counter(w.label for u in utts for w in u.words)
    vocab = Counter(w.text for u in utts for w in u.words)
    stats = {
        "utterances": len(utts),
        "words": sum(len(u) for u in utts),
        "labels": {lab: counts.get(lab, 0) for lab in LABELS},
        "types": len(vocab),
        "types_min2": sum(1 for c in vocab.values() if c >= 2),
    }
    stats.update(extra or {})
    return stats


def write_set(out: Path, utts: list[Utterance], stats: dict) -> None:
    """Build ``out`` atomically: data files, validation, stats.json; then mark it done."""
    with atomic_dir(out) as tmp:
        write_datadir(tmp, utts)
        n = validate_datadir(tmp)
        if n != stats["words"]:
            raise PunctError(f"validation counted {n} words, expected {stats['words']}", out)
        write_json(tmp / "stats.json", stats, indent=2)
    mark_done(out)
    log.info("%s: %d utterances, %d words, labels %s", out, stats["utterances"], stats["words"],
             " ".join(f"{k}={v}" for k, v in stats["labels"].items()))


def train_overlap(out_dir: Path, train: list[Utterance]) -> dict:
    """``heldout_overlap`` of every benchmark set already prepared under OUT_DIR against the
    training talks (punct.overlap): the TED talks are gathered from the web, so a test talk
    could be among them; a warning says so when one is."""
    out = {}
    for name in BENCHMARK_SETS:
        if not is_done(out_dir / name):
            continue
        ov = heldout_overlap(load_utterances(out_dir / name), train)
        out[name] = ov
        msg = ("%s: %d of its %d distinct %d-grams (%.2f%%) are in the training text; %d of its %d utterances "
               "have more than half of theirs there")
        level = logging.WARNING if ov["utterances_seen"] or ov["shared_pct"] > 1.0 else logging.INFO
        log.log(level, msg, name, ov["shared"], ov["ngrams"], ov["n"], ov["shared_pct"], ov["utterances_seen"],
                ov["utterances"])
    return out


def _bool(s: str) -> bool:
    v = s.lower()
    if v in ("1", "true", "yes", "y"):
        return True
    if v in ("0", "false", "no", "n"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {s!r}")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="prepare.py",
        description="Prepare IWSLT2011 (test2011, dev2012) and TED training talks as punct data directories.",
    )
    p.add_argument("--corpus-dir", required=True, type=Path,
                   help="folder holding iwslt2011/{test2011,dev2012} and ted/talks/*.md")
    p.add_argument("--out-dir", required=True, type=Path, help="output folder, e.g. data/iwslt2011")
    p.add_argument("--train-words", type=int, default=0,
                   help="whole talks in file-name order until N words (2100000 = the paper's budget; 0 = all)")
    p.add_argument("--skip-words", type=int, default=0,
                   help="first pass over the whole talks that --train-words N would take (N here), then take "
                        "--train-words more: TED talks held out from a --train-words N training set (default 0)")
    p.add_argument("--sentence-length", default="0",
                   help="take the whole talks whose words per sentence are nearest this first, until "
                        "--train-words: a number of words, or a prepared data directory whose own it is "
                        "(the validation set's: data/iwslt2011/dev2012, 14.48); 0 (default): file-name order")
    p.add_argument("--exclude-talks", type=Path,
                   help="with --sentence-length: leave out the talks of this data directory (e.g. ted_heldout)")
    p.add_argument("--mark-map", default="",
                   help="'MARK=LABEL ...': change how the talks' written marks map onto labels, e.g. "
                        "--mark-map='--=O -=O' drops dashes instead of making them COMMA (write it with '=' "
                        "when the value starts with '-'; default: Tilk and Alumae's mapping, "
                        "punct.text.labels.DEFAULT_MARK_MAP)")
    p.add_argument("--dev-words", type=int, default=0, help="prefix of whole dev2012 utterances, N words (0 = all)")
    p.add_argument("--test-words", type=int, default=0, help="prefix of whole test2011 utterances, N words (0 = all)")
    p.add_argument("--train-name", default="train", help="name of the training set folder (default: train)")
    p.add_argument("--utt-words", type=int, default=1000,
                   help="benchmark utterance length in words; cuts only after PERIOD/QUESTION (default 1000)")
    p.add_argument("--sets", default="test2011,dev2012,train",
                   help="comma-separated sets to prepare (default: test2011,dev2012,train)")
    p.add_argument("--nj", type=int, default=2, help="worker processes for tokenizing talks (default 2)")
    p.add_argument("--force", nargs="?", const=True, default=False, type=_bool,
                   help="rebuild sets already done (--force or --force true)")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    corpus: Path = args.corpus_dir
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in wanted:
        if s not in (*BENCHMARK_SETS, "train"):
            raise PunctError(f"unknown set {s!r} in --sets (expected test2011, dev2012, train)")
    for opt in ("train_words", "skip_words", "dev_words", "test_words"):
        if getattr(args, opt) < 0:
            raise PunctError(f"--{opt.replace('_', '-')} must be >= 0")
    if args.utt_words < 1:
        raise PunctError("--utt-words must be >= 1")
    args.sentence_length = sentence_length_arg(args.sentence_length)
    if args.sentence_length and args.skip_words:
        raise PunctError("--sentence-length picks talks from all of them: it does not go with --skip-words "
                         "(leave talks out with --exclude-talks)")
    if args.exclude_talks is not None and not args.sentence_length:
        raise PunctError("--exclude-talks goes with --sentence-length")
    mark_map = parse_mark_map(args.mark_map) if args.mark_map.strip() else None
    inputs = [corpus]
    inputs += [corpus / "iwslt2011" / s for s in BENCHMARK_SETS if s in wanted]
    if "train" in wanted:
        inputs.append(corpus / "ted" / "talks")
    require_inputs(inputs)
    if args.train_name in BENCHMARK_SETS or not re.fullmatch(r"[A-Za-z0-9_.-]+", args.train_name):
        raise PunctError(f"bad --train-name {args.train_name!r}")

    for name in BENCHMARK_SETS:
        if name not in wanted:
            continue
        out = args.out_dir / name
        if is_done(out) and not args.force:
            log.info("%s: already done, skipped (use --force to rebuild)", out)
            continue
        t0 = time.time()
        src = corpus / "iwslt2011" / name
        words, empty = read_benchmark(src)
        log.info("%s: %d words; %d empty-word lines gave their mark to the previous word", src, len(words), empty)
        limit = args.test_words if name == "test2011" else args.dev_words
        utts = take_words(split_sentences(words, name, args.utt_words), limit)
        stats = set_stats(utts, {"source": str(src), "empty_word_lines_fixed": empty, "words_requested": limit})
        write_set(out, utts, stats)
        log.info("%s: done in %.1f s", name, time.time() - t0)

    if "train" in wanted:
        out = args.out_dir / args.train_name
        if is_done(out) and not args.force:
            log.info("%s: already done, skipped (use --force to rebuild)", out)
            return 0
        t0 = time.time()
        talks = corpus / "ted" / "talks"
        if args.sentence_length:
            exclude: set[str] = set()
            if args.exclude_talks is not None:
                require_inputs([args.exclude_talks / "text"])
                exclude = {u.id for u in load_utterances(args.exclude_talks, require_labels=False)}
            utts, info = read_train(talks, 0, args.nj, 0, mark_map)
            utts, picked = nearest_sentence_length(utts, args.train_words, args.sentence_length, exclude)
            info.update(picked, talks_used=len(utts))
            log.info("%s: the %d talks nearest %g words per sentence (%s in them; %d talks left out)", talks,
                     len(utts), args.sentence_length, picked["words_per_sentence"], picked["talks_excluded"])
        else:
            utts, info = read_train(talks, args.train_words, args.nj, args.skip_words, mark_map)
        if mark_map is not None:
            info["mark_map"] = args.mark_map.split()
        stats = set_stats(utts, {"source": str(talks), "empty_word_lines_fixed": 0,
                                 "words_requested": args.train_words, **info})
        stats["heldout_overlap"] = train_overlap(args.out_dir, utts)
        log.info("%s: %d of %d talk files used (%d empty skipped), %d words, %d types, %d seen at least twice",
                 talks, info["talks_used"], info["talk_files"], info["talks_skipped_empty"], stats["words"],
                 stats["types"], stats["types_min2"])
        write_set(out, utts, stats)
        log.info("%s: done in %.1f s", args.train_name, time.time() - t0)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="prepare.py")


if __name__ == "__main__":
    sys.exit(main())
