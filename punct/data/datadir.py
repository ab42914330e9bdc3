"""Kaldi-style data directories: read, write and validate.

A data directory holds UTF-8 text files of ``key value...`` lines, sorted with
``LC_ALL=C`` (byte order), unique keys, one key set across the files. punct uses:

``text``      ``<utt> w1 w2 ...``   the words, lower case, no marks (Kaldi's text); read in
                                    any case (a word spelled otherwise is kept as ``Word.written``)
``labels``    ``<utt> L1 L2 ...``   one label per word of ``text`` (punct.text.labels)
``utt2spk``   ``<utt> <spk>``       Kaldi; the utterance id when the speaker is unknown
``spk2utt``   ``<spk> <utt>...``    Kaldi, derived from utt2spk

Optional per-word files (one field per word of ``text``):

``word_times``    ``<utt> s,e s,e ...``  start and end of each word in seconds from
                  the start of the recording; ``-`` (UNTIMED) for a word without
                  times (a word the aligner could not place), so a set may be
                  partly timed. Written when at least one word of the set is timed.
``word_speakers`` ``<utt> spk spk ...``  the speaker of each word (``-``: unknown),
                  for recordings with several speakers in one utterance (an
                  earnings call); written when at least one word has a speaker.
``written``       ``<utt> W1 W2 ...``  each word as the source spelled it (``Apple``,
                  ``IBM``, ``iPhone``; its lower case is the word of ``text``): the
                  true case a case head learns (punct.text.labels.case_of); written when
                  at least one word of the set is spelled otherwise than in ``text``.

Later stages add ``wav.scp``, ``segments`` and feature scp files;
``validate_datadir`` checks whichever of them exist. ``punct restore`` writes its data
directory with ``text`` in the input's spelling (or with the marks) and carries the
input directory's Kaldi files over (``carry_kaldi_files``). The table files themselves
are read and written by ``punct.data.tables``.
"""
from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Callable, Iterable

from punct.errors import PunctError
from punct.text.labels import LABELS, is_label
from punct.data.tables import (iter_table, read_segments, read_table, read_wav_scp, spk2utt_from_utt2spk, time_problem,
                          write_table)
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

#: Files whose keys are utterance ids and must share one key set.
UTT_FILES = ("text", "labels", "utt2spk", "segments", "word_times", "word_speakers", "written")
#: The ``word_times`` (and ``word_speakers``) field of a word without times (speaker).
UNTIMED = "-"


def format_word_time(w: Word) -> str:
    """``start,end`` with 3 decimals, or UNTIMED when the word lacks either time."""
    if w.start is None or w.end is None:
        return UNTIMED
    return f"{w.start:.3f},{w.end:.3f}"


def parse_word_time(field: str) -> tuple[float | None, float | None]:
    """``"1.2,1.5"`` -> (1.2, 1.5); UNTIMED -> (None, None); ValueError (saying what
    was expected) for anything else: not two numbers, not finite, negative, end before start."""
    if field == UNTIMED:
        return None, None
    parts = field.split(",")
    if len(parts) != 2:
        raise ValueError(f"bad time {field!r} (expected START,END in seconds or {UNTIMED} for an untimed word)")
    try:
        s, e = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"bad time {field!r} (expected START,END in seconds or {UNTIMED} for an untimed word)") from None
    if not (math.isfinite(s) and math.isfinite(e)):
        raise ValueError(f"bad time {field!r} (not a finite number)")
    if s < 0:
        raise ValueError(f"bad time {field!r} (negative start)")
    if time_problem(e) is not None:
        raise ValueError(f"bad time {field!r} (end {time_problem(e)})")
    if e < s:
        raise ValueError(f"bad time {field!r} (end before start)")
    return s, e


def _speaker_field(spk: str | None) -> str:
    """A speaker as one ``word_speakers`` field: white space made ``_``; None, empty or ``-`` -> UNTIMED."""
    if spk is None or not spk.strip():
        return UNTIMED
    return "_".join(spk.split())


def write_datadir(path: str | Path, utts: Iterable[Utterance], text_of: Callable[[Word], str] | None = None) -> None:
    """Write ``text``, ``labels``, ``utt2spk``, ``spk2utt``; ``word_times`` when any word
    is timed, ``word_speakers`` when any word has a speaker (UNTIMED ``-`` for the others)
    and ``written`` when any word's spelling (``Word.written``) is not its ``text``.

    ``text_of`` makes each word's field of ``text`` (``punct restore`` writes the input's
    spelling, or the spelling with the mark); ``written`` is then left out. Default: the
    lower-case ``Word.text`` that models read."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    text: dict[str, list[str]] = {}
    labels: dict[str, list[str]] = {}
    utt2spk: dict[str, str] = {}
    times: dict[str, list[str]] = {}
    speakers: dict[str, list[str]] = {}
    written: dict[str, list[str]] = {}
    any_timed = any_speaker = any_written = False
    for u in utts:
        if u.id in text:
            raise PunctError(f"duplicate utterance id {u.id!r}", path)
        for w in u.words:
            if not w.text or any(c.isspace() for c in w.text):
                raise PunctError(f"utterance {u.id!r}: invalid word {w.text!r}", path)
        text[u.id] = [w.text for w in u.words] if text_of is None else [text_of(w) for w in u.words]
        if text_of is not None:
            bad = next((t for t in text[u.id] if not t or any(c.isspace() for c in t)), None)
            if bad is not None:
                raise PunctError(f"utterance {u.id!r}: invalid word {bad!r}", path)
        labels[u.id] = [w.label for w in u.words]
        utt2spk[u.id] = u.speaker or u.id
        times[u.id] = [format_word_time(w) for w in u.words]
        any_timed = any_timed or any(t != UNTIMED for t in times[u.id])
        speakers[u.id] = [_speaker_field(w.speaker) for w in u.words]
        any_speaker = any_speaker or any(f != UNTIMED for f in speakers[u.id])
        written[u.id] = [w.written if w.written and w.written.lower() == w.text else w.text for w in u.words]
        any_written = any_written or (text_of is None and written[u.id] != text[u.id])
    if not text:
        raise PunctError("no utterances to write", path)
    write_table(path / "text", text)
    write_table(path / "labels", labels)
    write_table(path / "utt2spk", utt2spk)
    write_table(path / "spk2utt", spk2utt_from_utt2spk(utt2spk))
    if any_timed:
        write_table(path / "word_times", times)
    if any_speaker:
        write_table(path / "word_speakers", speakers)
    if any_written:
        write_table(path / "written", written)


def load_utterances(path: str | Path, require_labels: bool = True) -> list[Utterance]:
    """Read a data directory into Utterances (words with labels, and times if present)."""
    path = Path(path)
    return _utterances(path, _read_utt_tables(path, require_labels))


def _read_utt_tables(path: Path, require_labels: bool) -> dict[str, list[tuple[str, list[str], int]]]:
    """The per-utterance tables of a data directory that ``load_utterances`` reads (text,
    labels, word_times, word_speakers, written, utt2spk), each as read_table's rows; absent files are
    left out, except text, and labels when they are required."""
    if not path.is_dir():
        raise PunctError("data directory not found", path)
    tables = {"text": read_table(path / "text")}
    if not (path / "labels").is_file() and require_labels:
        raise PunctError("file not found", path / "labels")
    for name in ("labels", "word_times", "word_speakers", "written"):
        if (path / name).is_file():
            tables[name] = read_table(path / name)
    if (path / "utt2spk").is_file():
        tables["utt2spk"] = read_table(path / "utt2spk", min_fields=1, allow_empty_value=False)
    return tables


def _word(field: str, label: str) -> Word:
    """A word of ``text``: lower-cased, its spelling kept in ``written`` when that is not lower
    case (a ``text`` in the input's case, as ``punct restore`` writes and Kaldi's LibriSpeech
    recipe has it)."""
    low = field.lower()
    return Word(text=low, label=label, written=field if low != field else None)


def _utterances(path: Path, tables: dict[str, list[tuple[str, list[str], int]]]) -> list[Utterance]:
    """Utterances from the tables of ``_read_utt_tables`` (PATH names the files in errors)."""
    text = tables["text"]
    labels = {k: (v, n) for k, v, n in tables.get("labels", [])}
    times = {k: (v, n) for k, v, n in tables.get("word_times", [])}
    speakers = {k: (v, n) for k, v, n in tables.get("word_speakers", [])}
    written = {k: (v, n) for k, v, n in tables.get("written", [])}
    spk = {k: v[0] for k, v, _ in tables.get("utt2spk", [])}
    utts = []
    for key, words, lineno in text:
        labs = ["O"] * len(words)
        if labels:
            if key not in labels:
                raise PunctError(f"utterance {key!r} has no labels", path / "labels")
            labs, ln = labels[key]
            if len(labs) != len(words):
                raise PunctError(f"{len(labs)} labels for {len(words)} words of {key!r}", path / "labels", ln)
            for lab in labs:
                if not is_label(lab):
                    raise PunctError(f"unknown label {lab!r} (expected one of {' '.join(LABELS)})", path / "labels", ln)
        ws = [_word(w, lab) for w, lab in zip(words, labs)]
        if key in times:
            tv, ln = times[key]
            if len(tv) != len(words):
                raise PunctError(f"{len(tv)} times for {len(words)} words of {key!r}", path / "word_times", ln)
            for i, (w, t) in enumerate(zip(ws, tv)):
                try:
                    w.start, w.end = parse_word_time(t)
                except ValueError as e:
                    raise PunctError(f"word {i + 1} of {key!r}: {e}", path / "word_times", ln) from None
        if key in speakers:
            sv, ln = speakers[key]
            if len(sv) != len(words):
                raise PunctError(f"{len(sv)} speakers for {len(words)} words of {key!r}", path / "word_speakers", ln)
            for w, spk_ in zip(ws, sv):
                w.speaker = None if spk_ == UNTIMED else spk_
        if key in written:
            wv, ln = written[key]
            if len(wv) != len(words):
                raise PunctError(f"{len(wv)} spellings for {len(words)} words of {key!r}", path / "written", ln)
            for i, (w, sp) in enumerate(zip(ws, wv)):
                if sp.lower() != w.text:
                    raise PunctError(f"word {i + 1} of {key!r}: {sp!r} is not a spelling of {w.text!r}", path / "written", ln)
                w.written = sp if sp != w.text else None
        utts.append(Utterance(id=key, words=ws, speaker=spk.get(key)))
    if not utts:
        raise PunctError("data directory has no utterances", path / "text")
    return utts


def mixed_spellings(path: str | Path, min_count: int = 2) -> dict[str, str]:
    """{lower-case word: its most frequent MIXED spelling (punct.text.labels.case_of: ``iPhone``,
    ``McDonald``)} in the ``written`` file of data directory ``path``, for the spellings seen at
    least ``min_count`` times (ties: the first in byte order); {} without a ``written`` file.
    What a case head's MIXED class is spelled as (punct.text.casing.true_case)."""
    from punct.data.tables import iter_table

    f = Path(path) / "written"
    if not f.is_file():
        return {}
    return mixed_spellings_of((sp for _, _, value in iter_table(f) for sp in value.split()), min_count)


def mixed_spellings_of(spellings: Iterable[str], min_count: int = 2) -> dict[str, str]:
    """``mixed_spellings`` of the written words ``spellings`` (one item per word)."""
    from collections import Counter

    from punct.text.labels import MIXED, case_of

    counts: Counter[str] = Counter(sp for sp in spellings if case_of(sp) == MIXED)
    best: dict[str, tuple[int, str]] = {}
    for sp, n in sorted(counts.items()):
        low = sp.lower()
        if n >= min_count and (low not in best or n > best[low][0]):
            best[low] = (n, sp)
    return {low: sp for low, (_, sp) in sorted(best.items())}


#: ``case_lexicon`` keeps a word seen inside sentences at least this often...
LEXICON_MIN_COUNT = 5
#: ...and spelled in one capitalised class at least this share of those times
LEXICON_MIN_SHARE = 0.95


def case_lexicon_of(utts: Iterable[Utterance], min_count: int = LEXICON_MIN_COUNT,
                    min_share: float = LEXICON_MIN_SHARE) -> dict[str, str]:
    """{lower-case word: case class} for the words of ``utts`` (read with a ``written`` file:
    their spellings, and labels) spelled in one class other than LOWER (CAP, UPPER, MIXED: punct.text.labels.case_of)
    in at least ``min_share`` of their ``min_count`` or more occurrences inside a sentence (not
    first in an utterance or after a sentence end, where written text capitalises any word):
    names, acronyms and brands (Paris, LNG, iPhone), which a small case head misses when rare."""
    from collections import Counter, defaultdict

    from punct.text.labels import LOWER, SENTENCE_END, case_of

    counts: defaultdict[str, Counter] = defaultdict(Counter)
    for u in utts:
        prev = None
        for w in u.words:
            if prev is not None and prev.label not in SENTENCE_END:
                sp = w.written or w.text  # written: None where it is the text
                counts[sp.lower()][case_of(sp)] += 1
            prev = w
    out = {}
    for low, c in sorted(counts.items()):
        n = sum(c.values())
        cls, k = c.most_common(1)[0]
        if n >= min_count and cls != LOWER and k >= min_share * n:
            out[low] = cls
    return out


class DataSet:
    """A data directory whose utterances are read once, on first use, and shared by what a
    training needs of them (the featurizer's vocabulary, the slices, the case head's
    spellings); ``drop`` releases them once those are made. A path-like: ``os.fspath`` of it
    is the directory."""

    def __init__(self, path: str | Path, require_labels: bool = True):
        self.path = Path(path)
        self.require_labels = require_labels
        self._utts: list[Utterance] | None = None

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return str(self.path)

    @property
    def utterances(self) -> list[Utterance]:
        if self._utts is None:
            self._utts = load_utterances(self.path, self.require_labels)
        return self._utts

    def mixed_spellings(self, min_count: int = 2) -> dict[str, str]:
        """``mixed_spellings`` of this directory, from the utterances read (its ``written``)."""
        if not (self.path / "written").is_file():
            return {}
        return mixed_spellings_of((w.written for u in self.utterances for w in u.words if w.written), min_count)

    def case_lexicon(self) -> dict[str, str]:
        """``case_lexicon_of`` this directory's utterances ({} without a ``written`` file)."""
        if not (self.path / "written").is_file():
            return {}
        return case_lexicon_of(self.utterances)

    def drop(self) -> None:
        self._utts = None


def validate_datadir(path: str | Path, require_labels: bool = True) -> int:
    """Check a data directory (sorting, keys, labels, counts); return the number of words."""
    path = Path(path)
    tables = _read_utt_tables(path, require_labels)  # each file read once, for the utterances and the checks
    utts = _utterances(path, tables)
    keys = {u.id for u in utts}
    segs = None
    for name in UTT_FILES:
        f = path / name
        if f.is_file():
            if name == "segments":  # <utt> <recording> <start> <end>: read by its own reader, once
                segs = read_segments(f)
                other = set(segs)
            else:  # read by _read_utt_tables (a file added to UTT_FILES alone fails here at once)
                other = {k for k, _, _ in tables[name]}
            if other != keys:
                extra = sorted(other - keys)[:1] or sorted(keys - other)[:1]
                raise PunctError(f"key set differs from text (e.g. {extra[0]!r})", f)
    if segs is not None and (path / "wav.scp").is_file():  # each recording in wav.scp
        wav = read_wav_scp(path / "wav.scp")
        lost = sorted(s.utt for s in segs.values() if s.recording not in wav)
        if lost:
            raise PunctError(f"recording {segs[lost[0]].recording!r} of utterance {lost[0]!r} has no wav.scp "
                             f"entry ({len(lost)} such)", path / "segments")
    for _, v, n in tables.get("utt2spk", []):
        if len(v) != 1:
            raise PunctError(f"expected '<utterance> <speaker>', got {len(v) + 1} fields", path / "utt2spk", n)
    if (path / "spk2utt").is_file() and "utt2spk" in tables:
        u2s = {k: v[0] for k, v, _ in tables["utt2spk"]}
        s2u = {k: v for k, v, _ in read_table(path / "spk2utt")}
        if s2u != spk2utt_from_utt2spk(u2s):
            raise PunctError("spk2utt does not match utt2spk", path / "spk2utt")
    return sum(len(u) for u in utts)


#: Kaldi files a data directory output carries from the input directory, by what they are keyed by
CARRIED_UTT_FILES = ("segments", "utt2dur", "utt2num_frames", "utt2lang", "feats.scp")
CARRIED_RECO_FILES = ("wav.scp", "reco2file_and_channel", "reco2dur")
CARRIED_SPK_FILES = ("spk2gender", "cmvn.scp")


def carry_kaldi_files(src: str | Path, dst: str | Path, utts: Iterable[Utterance]) -> list[str]:
    """Copy the Kaldi files of data directory ``src`` that ``dst`` (written for ``utts``) lacks:
    ``CARRIED_UTT_FILES`` for the utterances of ``utts``, ``CARRIED_RECO_FILES`` for their
    recordings (those of ``segments``; the utterances themselves without it),
    ``CARRIED_SPK_FILES`` for the speakers of ``dst/utt2spk``. Lines are copied as they are,
    those of other keys left out, in byte order. A file that lacks one of the keys is not
    carried (the directory would break Kaldi's one key set), with a warning. Returns the
    names of the files carried."""
    src, dst = Path(src), Path(dst)
    ids = [u.id for u in utts]
    segs = read_segments(src / "segments") if (src / "segments").is_file() else None
    if segs is not None and not all(i in segs for i in ids):
        missing = next(i for i in ids if i not in segs)
        log.warning("%s: utterance %r of the output is not in segments: no Kaldi files carried", src, missing)
        return []
    recos = {segs[i].recording for i in ids} if segs is not None else set(ids)
    spks = {v[0] for _, v, _ in read_table(dst / "utt2spk")} if (dst / "utt2spk").is_file() else set()
    carried = []
    for names, keys in ((CARRIED_UTT_FILES, set(ids)), (CARRIED_RECO_FILES, recos), (CARRIED_SPK_FILES, spks)):
        for name in names:
            f = src / name
            if not f.is_file() or (dst / name).exists():
                continue
            rows = {}
            for _, key, rest in iter_table(f, sorted_keys=False):
                if key in keys:
                    rows[key] = rest
            if set(rows) != keys:
                lost = sorted(keys - set(rows))[0]
                log.warning("%s has no line for %r: not carried to %s", f, lost, dst)
                continue
            write_table(dst / name, rows)
            carried.append(name)
    return carried
