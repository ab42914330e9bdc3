#!/usr/bin/env python3
"""Prepare the Earnings recipe: Earnings-22 for training and tuning, Earnings-21 for testing.

Writes under ``--out-dir`` (see recipes/earnings/README.md):

``e22_train`` ``e22_dev``  Earnings-22 force-aligned references: words, labels, the
                           times of every aligned word in ``word_times`` (``-`` for the
                           words the aligner could not place: about 30% of them) and
                           each word's speaker in ``word_speakers`` (the corpus's
                           ``speaker`` column: a change of speaker is a boundary cue);
                           ``--dev-every K`` puts every K-th call (in file-name order)
                           into ``e22_dev`` (at least one call, also with ``--max-calls``)
``ted``                    TED talks (``--ted-dir``, a data directory prepared by
                           recipes/iwslt2011/prepare.py) re-tokenized like ASR output
``ted_e22``                ``ted`` + ``e22_train`` (words and labels only: a text corpus)
``distill``                every ``--distill-every``-th TED talk + ``e22_train`` (1.8M words):
                           the set the accurate tier's posteriors are written for, on which
                           the default model is distilled (a third of ted_e22: the teacher
                           decodes about 700 words/s on 2 cores)
``e21_ref``                Earnings-21 punctuated references (one utterance per call)
``e21_<system>``           a hypothesis per ASR system: ``kaldi_libri`` and ``kaldi_rev``
                           from the Kaldi CTMs (``text``, ``word_times``, no labels: the
                           reference marks are transferred in stage 5), and the commercial
                           engines' own output with their own punctuation as labels
                           (``amazon google microsoft speechmatics``; Rev's own
                           output has no punctuation in this corpus)

Every word of a reference or an engine's output is written in one spelling for all sets
(punct.data.transfer.normalize_word:
lower case, no abbreviation dots, no marks or hyphens at the edges), and
contractions are one token (``we're``, as ASR systems write them; the TED
preparation splits them as the IWSLT test set does, so ``ted`` joins them
back). A token that normalizes to nothing gives its mark to the word before. The Kaldi
CTMs' words stay as the recognizer wrote them (``<unk>``), as ``punct restore`` reads them.
Each set is built under a temporary name, validated, renamed into place and
marked done; a set already done is skipped unless ``--force true``.
"""
from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
from collections import Counter
from pathlib import Path

if importlib.util.find_spec("punct") is None:  # run as a script without PYTHONPATH: the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.data.datadir import load_utterances, validate_datadir, write_datadir
from punct.errors import PunctError
from punct.fsutil import atomic_dir, is_done, mark_done, write_json
from punct.text.labels import MIXED, O, apply_case, case_of, stronger
from punct.text.textnorm import CLITICS
from punct.data.transfer import normalize_word
from punct.text.words import Utterance, Word

log = logging.getLogger("punct.recipes.earnings")

#: commercial engines' own output: name -> folder under earnings21/output/.
#: Rev's own outputs (rev/kaldi/nlp, rev/espnet/nlp) carry no punctuation at all
#: in this copy of the corpus (every punctuation field is empty), so Rev is not
#: among the engines whose punctuation is scored.
ENGINES = {
    "amazon": "amazon",
    "google": "google",
    "microsoft": "microsoft",
    "speechmatics": "speechmatics",
}
#: Kaldi CTMs: name -> folder under earnings21/output/
KALDI = {
    "kaldi_libri": "kaldi_org/librispeech/ctm",
    "kaldi_rev": "rev/kaldi/ctm",
}


def spelling(written: str, key: str) -> str | None:
    """The true-case spelling of the normalized word ``key`` from the token as written
    (``"Apple's,"`` -> ``Apple's``, ``"U.S."`` -> ``US``; ``MIXED`` keeps the token's
    letters when they spell ``key``); None when that is ``key`` itself."""
    case = case_of(written)
    if case == MIXED:
        core = normalize_word(written)
        sp = "".join(c for c in written if c.isalnum() or c in "'&") if core == key else key
        sp = sp if sp.lower() == key else key
    else:
        sp = apply_case(key, case)
    return sp if sp != key else None


def normalize_words(words: list[Word]) -> tuple[list[Word], int]:
    """Words in the recipe's spelling (their true case in ``written``); tokens that
    normalize to nothing are dropped (their mark goes to the word before). Returns
    (words, number dropped)."""
    out: list[Word] = []
    dropped = 0
    for w in words:
        t = normalize_word(w.text)
        if not t or not any(c.isalnum() for c in t):
            dropped += 1
            if out and w.label != O:
                out[-1].label = stronger(out[-1].label, w.label)
            continue
        out.append(Word(text=t, label=w.label, start=w.start, end=w.end, conf=w.conf, speaker=w.speaker,
                        written=spelling(w.written or w.text, t)))
    return out, dropped


def join_clitics(words: list[Word]) -> list[Word]:
    """``we 're`` -> ``we're``: a clitic token joins the word before it (its mark wins if stronger)."""
    out: list[Word] = []
    for w in words:
        if out and w.text in CLITICS:
            prev = out[-1]
            if prev.written or w.written:  # I + 'm -> I'm
                prev.written = (prev.written or prev.text) + (w.written or w.text)
            prev.text += w.text
            prev.label = stronger(prev.label, w.label)
            if w.end is not None:
                prev.end = w.end
            continue
        out.append(w)
    return out


def _text_only(words: list[Word]) -> list[Word]:
    """The words with their labels and spelling only (no times or speakers)."""
    return [Word(text=w.text, label=w.label, written=w.written) for w in words]


def read_calls(files: list[Path], fmt: str, keep_times: bool, normalize: bool = True) -> tuple[list[Utterance], dict]:
    """One utterance per call file, read with punct.io (``nlp`` or ``ctm``) and normalized.

    ``keep_times``: keep each word's times (a word the aligner could not place has
    none) and speaker; otherwise words and labels only. ``normalize=False``: the tokens as
    the recognizer wrote them (``<unk>``, ``customers'``), as ``punct restore`` reads its CTM,
    so that the recipe decodes the words a user's restore does (stage 5 matches them to the
    reference by their normalized keys all the same)."""
    from punct.io import read_any

    utts: list[Utterance] = []
    stats: Counter = Counter()
    for f in files:
        for u in read_any(f, fmt):
            words, dropped = normalize_words(u.words) if normalize else (list(u.words), 0)
            stats["tokens_dropped"] += dropped
            if not words:
                log.warning("%s: no words after normalization: skipped", f)
                stats["calls_skipped"] += 1
                continue
            if keep_times:
                timed = sum(1 for w in words if w.start is not None and w.end is not None)
                stats["timed_words"] += timed
                stats["untimed_words"] += len(words) - timed
                stats["timed_calls"] += int(timed == len(words))
                stats["speaker_changes"] += sum(1 for a, b in zip(words, words[1:])
                                                if a.speaker is not None and b.speaker is not None and a.speaker != b.speaker)
            else:
                words = _text_only(words)
            utts.append(Utterance(id=u.id, words=words))
    return utts, dict(stats)


def build_set(out: Path, name: str, utts: list[Utterance], extra: dict, force: bool, require_labels: bool = True) -> None:
    """Write one data directory atomically, validate it, write stats.json, mark it done."""
    target = out / name
    if is_done(target) and not force:
        log.info("%s: already done, skipped (use --force true to rebuild)", target)
        return
    if not utts:
        raise PunctError("no utterances for this set", target)
    labels = Counter(w.label for u in utts for w in u.words)
    with atomic_dir(target) as tmp:
        write_datadir(tmp, utts)
        n = validate_datadir(tmp, require_labels=require_labels)
        stats = dict(extra, utterances=len(utts), words=n, labels=dict(sorted(labels.items())))
        write_json(tmp / "stats.json", stats, indent=2)
    mark_done(target)
    log.info("%s: %d utterances, %d words, labels %s", target, len(utts), n,
             " ".join(f"{k}={v}" for k, v in sorted(labels.items())))


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="recipes/earnings/prepare.py", description=__doc__.splitlines()[0])
    p.add_argument("--corpus-dir", required=True, help="folder holding earnings21/ and earnings22/")
    p.add_argument("--out-dir", required=True, help="data/earnings")
    p.add_argument("--ted-dir", default=None, help="a TED data directory from recipes/iwslt2011/prepare.py (omit: no ted sets)")
    p.add_argument("--dev-every", type=int, default=8, help="every K-th Earnings-22 call goes to e22_dev (default 8: 16 calls)")
    p.add_argument("--distill-every", type=int, default=5,
                   help="every K-th TED talk goes into the distillation set 'distill' (default 5)")
    p.add_argument("--max-calls", type=int, default=0, help="use only the first N calls of each corpus (0: all; quick tests)")
    p.add_argument("--e21-only", action="store_true", help="only the Earnings-21 sets (e.g. the quick recipe's showcase)")
    p.add_argument("--force", default="false", choices=["true", "false"], help="rebuild sets that are done")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    corpus = Path(args.corpus_dir)
    out = Path(args.out_dir)
    force = args.force == "true"
    e22 = corpus / "earnings22" / "transcripts" / "force_aligned_nlp_references"
    e21 = corpus / "earnings21"
    require_inputs([e21 / "transcripts" / "nlp_references"] + ([] if args.e21_only else [e22]), "corpus folder")
    if args.dev_every < 2:
        raise PunctError(f"--dev-every must be at least 2, got {args.dev_every}")
    if args.distill_every < 1:
        raise PunctError(f"--distill-every must be at least 1, got {args.distill_every}")
    out.mkdir(parents=True, exist_ok=True)

    def limit(files: list[Path]) -> list[Path]:
        return files[: args.max_calls] if args.max_calls else files

    if not args.e21_only:
        _prepare_e22(args, e22, out, force, limit)
    _prepare_e21(e21, out, force, limit)
    return 0


def _prepare_e22(args: argparse.Namespace, e22: Path, out: Path, force: bool, limit) -> None:
    """Earnings-22 training and tuning calls, and the TED text in the same spelling."""
    files22 = limit(sorted(e22.glob("*.nlp")))
    if not files22:
        raise PunctError("no *.nlp files", e22)
    dev_files = [f for i, f in enumerate(files22) if i % args.dev_every == args.dev_every - 1]
    if not dev_files and len(files22) >= 2:  # fewer calls than --dev-every (--max-calls): the last one
        dev_files = files22[-1:]
    train_files = [f for f in files22 if f not in set(dev_files)]
    if not (is_done(out / "e22_train") and is_done(out / "e22_dev")) or force:
        train, st = read_calls(train_files, "nlp", keep_times=True)
        build_set(out, "e22_train", train, dict(st, source=str(e22), calls=len(train_files)), force)
        dev, st = read_calls(dev_files, "nlp", keep_times=True)
        build_set(out, "e22_dev", dev, dict(st, source=str(e22), calls=len(dev_files),
                                            call_ids=[f.stem.split(".")[0] for f in dev_files]), force)

    # TED text in the same spelling, and TED + Earnings-22
    if args.ted_dir:
        ted_dir = Path(args.ted_dir)
        require_inputs([ted_dir], "TED data directory")
        require_inputs([ted_dir / "text"], "TED text file")
        if not is_done(out / "ted") or force:
            ted = []
            for u in load_utterances(ted_dir):
                words, _ = normalize_words(join_clitics(u.words))
                ted.append(Utterance(id=u.id, words=words))
            build_set(out, "ted", ted, {"source": str(ted_dir)}, force)
        if any(not is_done(out / s) for s in ("ted_e22", "distill")) or force:
            # text corpora for the lexical models: the Earnings-22 times and speakers stay in e22_train
            ted = load_utterances(out / "ted")
            calls = [Utterance(id=u.id, words=_text_only(u.words)) for u in load_utterances(out / "e22_train")]
            build_set(out, "ted_e22", ted + calls, {"source": f"{out / 'ted'} + {out / 'e22_train'}"}, force)
            k = args.distill_every
            build_set(out, "distill", ted[::k] + calls,
                      {"source": f"every {k}th talk of {out / 'ted'} + {out / 'e22_train'}"}, force)


def _prepare_e21(e21: Path, out: Path, force: bool, limit) -> None:
    """Earnings-21: references, Kaldi CTMs, engines' own output."""
    ref_files = limit(sorted((e21 / "transcripts" / "nlp_references").glob("*.nlp")))
    if not ref_files:
        raise PunctError("no *.nlp files", e21 / "transcripts" / "nlp_references")
    calls = [f.stem for f in ref_files]
    if not is_done(out / "e21_ref") or force:
        ref, st = read_calls(ref_files, "nlp", keep_times=False)
        build_set(out, "e21_ref", ref, dict(st, source=str(ref_files[0].parent), calls=len(ref_files)), force)
    for name, sub in KALDI.items():
        folder = e21 / "output" / sub
        files = [folder / f"{c}.ctm" for c in calls]
        require_inputs(files, "CTM file")
        if not is_done(out / f"e21_{name}") or force:
            hyp, st = read_calls(files, "ctm", keep_times=True, normalize=False)
            for u in hyp:  # labels come from the reference in stage 5, not from the CTM
                for w in u.words:
                    w.label = O
            build_set(out, f"e21_{name}", hyp, dict(st, source=str(folder), calls=len(files)), force)
    for name, sub in ENGINES.items():
        folder = e21 / "output" / sub
        files = [folder / f"{c}.nlp" for c in calls]
        require_inputs(files, "engine output")
        if not is_done(out / f"e21_{name}") or force:
            hyp, st = read_calls(files, "nlp", keep_times=False)
            build_set(out, f"e21_{name}", hyp, dict(st, source=str(folder), calls=len(files)), force)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="recipes/earnings/prepare.py")


if __name__ == "__main__":
    sys.exit(main())
