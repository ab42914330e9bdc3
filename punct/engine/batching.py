"""Training slices and mini-batches (Tilk & Alumäe 2016; punctuator2 ``data.py``).

All utterances of a set are read as one word stream (in data-directory order,
as punctuator2 reads its text files). A slice of up to ``length`` words starts
at a sentence start; it ends where the window ends, and the next slice starts
right after the last sentence end (PERIOD/QUESTION) inside it, so the
unfinished sentence at the end of a slice is carried into the next one.
punctuator2 keeps the carried words in the first slice's loss too
(``tail_in_loss: true``); ``false`` leaves them out of it there.
A sentence longer than a slice is skipped as punctuator2 does
(``long_sentences: skip``) or cut into slice-sized pieces (``cut``).
The last, shorter slice of the stream is kept (punctuator2 drops it).

Slices are precomputed once as numpy arrays (``ids`` int32, ``labels`` int8
with -1 = no loss / padding, ``lengths`` int32) and cached as ``.npz``. A
featurizer with per-word features (punct.engine.inputs.FeatureInputs) adds
``feats`` float32 [N, L, F+1]: each word's raw feature row, cut by the same
bounds as its id (padding rows 0), cached with them; the cache key then also
names the feature files. With ``cases``, each word's case class (punct.text.labels.CASES,
from the set's ``written`` file; IGNORE where the set has none) is cut in step as
``cases`` int8 [N, L], the targets of a model's case head. With ``soft`` (a teacher's
posterior set of the directory, punct.engine.soft_labels), each word's posteriors are cut in
step as ``soft`` float32 [N, L, W] (0 on padding), a student's soft targets (distillation).
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from punct.text.labels import CASE_TO_ID, LABELS, SENTENCE_END, case_of, label_id

log = logging.getLogger(__name__)

IGNORE = -1
_EOS_IDS = np.array(sorted(label_id(lab) for lab in SENTENCE_END), dtype=np.int8)


@dataclass
class Slices:
    """A training or validation set cut into fixed-length rows of word ids, labels and features."""

    ids: np.ndarray  # int32 [N, L], 0 (= <pad>) on padding
    labels: np.ndarray  # int8 [N, L], IGNORE on padding and on words left out of the loss
    lengths: np.ndarray  # int32 [N]
    feats: np.ndarray | None = None  # float32 [N, L, F] per-word features (FeatureInputs), 0 on padding
    cases: np.ndarray | None = None  # int8 [N, L] case class ids (a case head's targets), IGNORE off the loss
    soft: np.ndarray | None = None  # float32 [N, L, W] a teacher's posteriors (punct.engine.soft_labels), 0 on padding

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    @property
    def n_loss_words(self) -> int:
        return int((self.labels >= 0).sum())


def slice_bounds(
    labels: np.ndarray, length: int, tail_in_loss: bool = True, long_sentences: str = "skip"
) -> list[tuple[int, int, int]]:
    """Slices of a label stream as (start, end, loss_end): words [start, end) are
    input, [start, loss_end) are in the loss."""
    if long_sentences not in ("skip", "cut"):
        raise ValueError(f"long_sentences must be 'skip' or 'cut', got {long_sentences!r}")
    n = len(labels)
    ends = np.flatnonzero(np.isin(labels, _EOS_IDS))  # positions of sentence-final words
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < n:
        end = min(i + length, n)
        if end == n:
            out.append((i, n, n))
            break
        k = np.searchsorted(ends, end) - 1  # last sentence end < end
        if k >= 0 and ends[k] >= i:
            last = int(ends[k])
            out.append((i, end, end if tail_in_loss else last + 1))
            i = last + 1
        elif long_sentences == "cut":
            out.append((i, end, end))
            i = end
        else:  # skip the rest of this sentence
            k = np.searchsorted(ends, end)
            if k >= len(ends):
                break
            i = int(ends[k]) + 1
    return out


def make_slices(
    word_ids: Sequence[int] | np.ndarray,
    label_ids: Sequence[int] | np.ndarray,
    length: int,
    tail_in_loss: bool = True,
    long_sentences: str = "skip",
    feats: np.ndarray | None = None,
    case_ids: Sequence[int] | np.ndarray | None = None,
    soft: np.ndarray | None = None,
) -> Slices:
    """Cut a word/label stream into training slices (see the module docstring);
    ``feats`` [n_words, F], ``case_ids`` [n_words] and ``soft`` [n_words, W], if given, are
    cut in step with the words."""
    w = np.asarray(word_ids, dtype=np.int32)
    y = np.asarray(label_ids, dtype=np.int8)
    if feats is not None:
        feats = np.asarray(feats, dtype=np.float32)
        if feats.ndim != 2 or feats.shape[0] != len(w):
            raise ValueError(f"{feats.shape} feature rows for {len(w)} words")
    if soft is not None:
        soft = np.asarray(soft, dtype=np.float32)
        if soft.ndim != 2 or soft.shape[0] != len(w):
            raise ValueError(f"{soft.shape} soft target rows for {len(w)} words")
    bounds = slice_bounds(y, length, tail_in_loss, long_sentences)
    L = max([e - s for s, e, _ in bounds], default=1)
    ids = np.zeros((len(bounds), L), dtype=np.int32)
    labels = np.full((len(bounds), L), IGNORE, dtype=np.int8)
    lengths = np.zeros(len(bounds), dtype=np.int32)
    f = None if feats is None else np.zeros((len(bounds), L, feats.shape[1]), dtype=np.float32)
    c = None if case_ids is None else np.full((len(bounds), L), IGNORE, dtype=np.int8)
    cy = None if case_ids is None else np.asarray(case_ids, dtype=np.int8)
    q = None if soft is None else np.zeros((len(bounds), L, soft.shape[1]), dtype=np.float32)
    for r, (s, e, le) in enumerate(bounds):
        ids[r, : e - s] = w[s:e]
        labels[r, : le - s] = y[s:le]
        lengths[r] = e - s
        if f is not None:
            f[r, : e - s] = feats[s:e]
        if c is not None:
            c[r, : le - s] = cy[s:le]
        if q is not None:
            q[r, : e - s] = soft[s:e]
    return Slices(ids, labels, lengths, f, c, q)


def stream_of(utts, vocab) -> tuple[np.ndarray, np.ndarray]:
    """Word ids and label ids of all utterances, concatenated (``vocab``: a
    Vocabulary or any featurizer of punct.engine.inputs: anything with ``encode``)."""
    lab_index = {lab: i for i, lab in enumerate(LABELS)}
    words: list[int] = []
    labs: list[int] = []
    for u in utts:
        words.extend(vocab.encode(u.texts))
        labs.extend(lab_index[lab] for lab in u.labels)
    return np.asarray(words, dtype=np.int32), np.asarray(labs, dtype=np.int8)


def case_stream(utts, has_spelling: bool) -> np.ndarray:
    """The case class id of every word of ``utts``, concatenated like ``stream_of``
    (from ``Word.written``); all IGNORE when the set has no ``written`` file."""
    n = sum(len(u.words) for u in utts)
    if not has_spelling:
        return np.full(n, IGNORE, dtype=np.int8)
    return np.fromiter((CASE_TO_ID[case_of(w.written or w.text)] for u in utts for w in u.words), dtype=np.int8, count=n)


def feature_stream(utts, vocab, data_dir: Path) -> np.ndarray | None:
    """The raw per-word features of all utterances, concatenated like ``stream_of``
    (None when the featurizer ``vocab`` reads no features)."""
    if not getattr(vocab, "columns", None):
        return None
    from punct.errors import PunctError

    by_utt = vocab.load_features(data_dir, utts)
    parts = []
    for u in utts:
        m = by_utt.get(u.id)
        if m is None or m.shape[0] != len(u.words):
            raise PunctError(f"utterance {u.id!r}: {'no' if m is None else m.shape[0]} feature rows for {len(u.words)} words",
                             data_dir)
        parts.append(m)
    return np.concatenate(parts) if parts else np.zeros((0, vocab.n_feats + 1), np.float32)


def soft_stream(utts, data_dir: Path, name: str) -> np.ndarray:
    """A teacher's posteriors (set ``name`` of ``data_dir``) of all utterances, concatenated
    like ``stream_of``: float32 [n_words, W]."""
    from punct.engine.soft_labels import read_soft_targets

    by_utt, layout = read_soft_targets(data_dir, name)
    parts = [by_utt[u.id] for u in utts]  # read_soft_targets checked every utterance's rows
    return np.concatenate(parts) if parts else np.zeros((0, layout.width), np.float32)


def _file_stamp(data_dir: Path, names: Sequence[str] = ("text", "labels")) -> list:
    return [[name, (data_dir / name).stat().st_size, (data_dir / name).stat().st_mtime_ns] for name in names
            if (data_dir / name).is_file() or name in ("text", "labels")]


def _feature_stamp(data_dir: Path, vocab) -> list | None:
    """The files the features of ``vocab`` come from (None: no features); the word
    times stand in for a pause set computed on the fly."""
    sets = getattr(vocab, "feature_sets", ()) if getattr(vocab, "columns", None) else ()
    if not sets:
        return None
    names = [f"{n}.{ext}" for n in sets for ext in ("scp", "ark", "names")] + ["word_times", "word_speakers"]
    return _file_stamp(data_dir, [n for n in names if (data_dir / n).is_file()])


def load_slices(
    data_dir: str | Path,
    vocab,
    length: int,
    tail_in_loss: bool = True,
    long_sentences: str = "skip",
    cache: str | Path | None = None,
    cases: bool = False,
    soft: str = "",
) -> Slices:
    """Slices of data directory ``data_dir`` (a path, or a punct.data.datadir.DataSet whose
    utterances are read once for the whole training); reuse ``cache`` (an .npz path) when it
    was made from the same files, vocabulary and slicing options; with ``cases``, the
    words' case classes too (``Slices.cases``); with ``soft`` (a posterior set's name), a
    teacher's posteriors (``Slices.soft``). ``vocab`` is a
    Vocabulary or a featurizer (punct.engine.inputs); give no cache for a featurizer
    whose ids are not ``closed`` (they index a lexicon filled while encoding)."""
    from punct.data.datadir import DataSet
    from punct.fsutil import atomic_write

    dataset = data_dir if isinstance(data_dir, DataSet) else DataSet(data_dir)
    data_dir = dataset.path
    key = {
        "data_dir": str(data_dir.resolve()),
        "files": _file_stamp(data_dir) if (data_dir / "labels").is_file() else None,
        "vocab": vocab.digest(),
        "length": length,
        "tail_in_loss": tail_in_loss,
        "long_sentences": long_sentences,
    }
    fstamp = _feature_stamp(data_dir, vocab)
    if fstamp is not None:  # only then: the caches of word-only models stay valid
        key["features"] = fstamp
    if cases:
        key["cases"] = _file_stamp(data_dir, ["written"] if (data_dir / "written").is_file() else [])
    if soft:
        key["soft"] = _file_stamp(data_dir, [f"{soft}.{ext}" for ext in ("scp", "ark", "names")
                                             if (data_dir / f"{soft}.{ext}").is_file()])
    if cache is not None:
        cache = Path(cache)
        key_path = cache.with_suffix(".json")
        if cache.is_file() and key_path.is_file():
            try:
                if json.loads(key_path.read_text()) == key:
                    with np.load(cache, allow_pickle=False) as z:
                        s = Slices(z["ids"], z["labels"], z["lengths"], z["feats"] if "feats" in z.files else None,
                                   z["cases"] if "cases" in z.files else None, z["soft"] if "soft" in z.files else None)
                    log.info("loaded %d slices of %s from cache %s", len(s), data_dir, cache)
                    return s
            except (OSError, ValueError, KeyError) as e:
                log.warning("ignoring unreadable slice cache %s: %s", cache, e)
    utts = dataset.utterances
    w, y = stream_of(utts, vocab)
    c = case_stream(utts, (data_dir / "written").is_file()) if cases else None
    q = soft_stream(utts, data_dir, soft) if soft else None
    s = make_slices(w, y, length, tail_in_loss, long_sentences, feats=feature_stream(utts, vocab, data_dir), case_ids=c,
                    soft=q)
    if c is not None and (c < 0).all():
        log.warning("%s has no 'written' file: no case targets", data_dir)
    # id 1 is <unk> (words) or the out-of-vocabulary vector (vectors); open lexicons have none
    n_unk = int((w == 1).sum()) if getattr(vocab, "closed", True) else 0
    log.info(
        "%s: %d utterances, %d words (%.2f%% <unk>) -> %d slices of <= %d words",
        data_dir, len(utts), len(w), 100.0 * n_unk / max(1, len(w)), len(s), length,
    )
    if cache is not None:
        with atomic_write(cache, "wb", encoding=None) as f:
            arrays = dict(ids=s.ids, labels=s.labels, lengths=s.lengths)
            if s.feats is not None:
                arrays["feats"] = s.feats
            if s.cases is not None:
                arrays["cases"] = s.cases
            if s.soft is not None:
                arrays["soft"] = s.soft
            np.savez(f, **arrays)
        with atomic_write(cache.with_suffix(".json")) as f:
            json.dump(key, f)
    return s


def epoch_order(n: int, batch_size: int, seed: int, epoch: int, shuffle: bool = True) -> list[np.ndarray]:
    """The batches (arrays of slice indices) of one epoch; a pure function of
    (seed, epoch), so a resumed run rebuilds the same order."""
    order = np.random.default_rng([seed, epoch]).permutation(n) if shuffle else np.arange(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def collate(slices: Slices, idx: np.ndarray):
    """Tensors of a batch: ids ``[b,T]`` long, mask ``[b,T]`` bool, targets ``[b,T]``
    long with -100 (ignored by cross_entropy) off the loss; T = longest slice."""
    import torch

    T = int(slices.lengths[idx].max())
    ids = torch.from_numpy(slices.ids[idx, :T].astype(np.int64))
    mask = torch.from_numpy(np.arange(T)[None, :] < slices.lengths[idx][:, None])
    y = slices.labels[idx, :T].astype(np.int64)
    y[y < 0] = -100
    return ids, mask, torch.from_numpy(y)


def batch_inputs(inputs, slices: Slices, idx: np.ndarray, device=None):
    """Like ``collate`` for any featurizer ``inputs`` (punct.engine.inputs): the
    model's keyword arguments (a dict with ``mask``, and ``cases`` ``[b,T]`` when the
    slices have case targets; ``soft`` ``[b,T,W]`` with a teacher's posteriors, which the
    loss takes out, punct.engine.loss.loss_sum_of), mask ``[b,T]``, targets ``[b,T]``;
    on ``device`` (a torch device; None: the CPU, where they are built)."""
    import torch

    T = int(slices.lengths[idx].max())
    if slices.feats is not None:
        kw = inputs.tensors(slices.ids[idx, :T], slices.lengths[idx], feats=slices.feats[idx, :T])
    else:
        kw = inputs.tensors(slices.ids[idx, :T], slices.lengths[idx])
    y = slices.labels[idx, :T].astype(np.int64)
    y[y < 0] = -100
    if slices.cases is not None:
        c = slices.cases[idx, :T].astype(np.int64)
        c[c < 0] = -100
        kw["cases"] = torch.from_numpy(c)
    if slices.soft is not None:
        kw["soft"] = torch.from_numpy(np.ascontiguousarray(slices.soft[idx, :T]))
    y = torch.from_numpy(y)
    if device is not None and torch.device(device).type != "cpu":
        kw = {k: v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        y = y.to(device, non_blocking=True)
    return kw, kw["mask"], y


def iter_batches(slices: Slices, batches: list[np.ndarray], start: int = 0) -> Iterator[tuple]:
    """The collated batches of SLICES, one per index array of BATCHES, from batch START on (a resumed epoch)."""
    for b in batches[start:]:
        yield collate(slices, b)
