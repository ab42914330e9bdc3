"""A model's posteriors as per-word data: the soft labels a student learns from (distillation).

``write_posteriors(model, DIR, name)`` decodes data directory DIR as ``punct decode`` does
(punct.engine.decode.run_streams: the model's own window, batch size, featurizer and
features) and stores, per word, the posteriors of the mark after it and, for a model with
a case head, those of its case class, as feature set NAME of DIR (punct.prosody.features:
``NAME.ark``, ``NAME.scp``, ``NAME.names``, ``NAME.done``). The columns are
``mark_O mark_COMMA mark_PERIOD mark_QUESTION`` (punct.text.labels.LABELS), then
``case_LOWER case_CAP case_UPPER case_MIXED`` (punct.text.labels.CASES) when there is a case head.

A teacher decodes millions of words at a few hundred words a second, so a run is resumable.
The utterances are decoded in chunks of about ``chunk_words`` words, cut in the directory's
order (the same chunks in every run); each chunk is written atomically to
``DIR/.NAME.parts/NNNNN.npz`` when it ends, and a rerun skips the chunks already written as
long as the model, the directory's text and the decoding settings are those of
``.NAME.parts/key.json``; chunks of another model or settings are an error (``force``
starts over), as they may hold hours of decoding. Since every run decodes the same chunks the
same way, a run resumed after a kill writes the file an uninterrupted run writes. The set
is written once every chunk is there, then the parts are removed.

The posteriors are those of decoding (punct.engine.infer, the windows and their cuts as
punct decode makes them): a teacher trained with ``mark_weights`` (a rare mark's loss
weighted w times, its odds about w times too high) has them taken out of its logits there
(``mark_offset``), so a student learns the marks as often as they occur.

``read_soft_targets(DIR, name)`` gives them back as {utt: float32 [n_words, columns]} with
the column layout (``SoftLayout``); the training slices carry them (punct.engine.batching).
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from punct.errors import PunctError
from punct.text.labels import CASES, LABELS

log = logging.getLogger(__name__)

MARK_PREFIX, CASE_PREFIX = "mark_", "case_"
#: log a progress line at least this often (seconds), besides one per chunk
PROGRESS_SECONDS = 60.0


def soft_columns(case: bool) -> list[str]:
    """The column names of a posterior set: the marks', then the case classes' (``case``)."""
    return [MARK_PREFIX + x for x in LABELS] + ([CASE_PREFIX + x for x in CASES] if case else [])


@dataclass(frozen=True)
class SoftLayout:
    """Where the soft targets of a posterior set are: the mark posteriors first, the case
    posteriors after them when the set has them."""

    case: bool

    @property
    def width(self) -> int:
        return len(LABELS) + (len(CASES) if self.case else 0)

    @classmethod
    def of(cls, names: list[str], where: Path | None = None) -> "SoftLayout":
        """The layout of a set with column ``names`` (a PunctError for any other columns)."""
        for case in (False, True):
            if list(names) == soft_columns(case):
                return cls(case)
        raise PunctError(f"not a posterior set: its columns are {' '.join(names)}, expected "
                         f"{' '.join(soft_columns(True))} (without the case columns for a model without a case head)",
                         where)


def plan_chunks(n_words: list[int], chunk_words: int) -> list[tuple[int, int]]:
    """Utterance index ranges [a, b) of about ``chunk_words`` words each, in order (an
    utterance is never split; one longer than a chunk is a chunk alone)."""
    if chunk_words < 1:
        raise ValueError(f"chunk_words must be at least 1, got {chunk_words}")
    out, a, n = [], 0, 0
    for i, k in enumerate(n_words):
        if n and n + k > chunk_words:
            out.append((a, i))
            a, n = i, 0
        n += k
    if a < len(n_words):
        out.append((a, len(n_words)))
    return out


def _identity(path: Path) -> dict[str, Any]:
    """What the decoded chunks were made from: the file's size and sha256 (not its place or
    time, which a fresh clone or another machine changes), so that the chunks of the same
    teacher on the same text go on in another session or directory."""
    from punct.fsutil import file_sha256

    return {"size": path.stat().st_size, "sha256": file_sha256(path)}


def _eta(seconds: float) -> str:
    m = int(seconds // 60)
    return f"{m // 60} h {m % 60:02d} min" if m >= 60 else f"{m} min {int(seconds % 60):02d} s"


def write_posteriors(model_path: str | Path, data_dir: str | Path, name: str = "teacher", chunk_words: int = 50000,
                     window: int | None = None, batch_size: int | None = None, force: bool = False,
                     precision: str = "auto") -> dict[str, Any]:
    """Write the posteriors of the model in ``model_path`` for every word of ``data_dir`` as its
    feature set ``name`` (see the module docstring), resuming a killed run; returns what was
    done: words, words decoded by this run, seconds, words_per_s, columns, chunks.
    ``precision`` "bf16" runs the matrix products in bfloat16 (torch.autocast, as punct
    restore's torch-bf16: about twice the words/s of a transformer tagger on a CPU with native
    bfloat16), "fp32" does not, "auto" takes bf16 for the transformer taggers on such a CPU."""
    from punct.data.datadir import load_utterances
    from punct.engine.checkpoint import load_model
    from punct.engine.decode import stream_features
    from punct.engine.infer import decode_window_of, run_streams
    from punct.engine.runtime import bf16_by_default
    from punct.fsutil import atomic_write, mark_done
    from punct.prosody.features import load_word_features, write_features

    model_path, data_dir = Path(model_path), Path(data_dir)
    model, vocab, ck = load_model(model_path)
    tc = ck.get("train_config", {}) or {}
    window = window or decode_window_of(tc)
    batch_size = batch_size or int(tc.get("batch_size", 128))
    case = bool(getattr(model, "case_head", False))
    if precision not in ("auto", "fp32", "bf16"):
        raise PunctError(f"precision must be auto, fp32 or bf16, got {precision!r}")
    if precision == "auto":
        precision = "bf16" if bf16_by_default(ck) else "fp32"
    model.punct_bf16 = precision == "bf16"  # punct.engine.infer.run_batch runs it under torch.autocast
    columns = soft_columns(case)
    utts = load_utterances(data_dir, require_labels=False)
    sizes = [len(u.words) for u in utts]
    chunks = plan_chunks(sizes, chunk_words)
    parts = data_dir / f".{name}.parts"
    key = {"model": _identity(model_path), "text": _identity(data_dir / "text"), "chunk_words": chunk_words,
           "window": window, "batch_size": batch_size, "columns": columns, "precision": precision}
    key_path = parts / "key.json"
    if parts.is_dir():
        try:
            old = json.loads(key_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        if old != key and not force:
            changed = ", ".join(k for k in key if (old or {}).get(k) != key[k]) or "unreadable key.json"
            raise PunctError(f"the decoded chunks here were made with another {changed} (hours of decoding: rerun "
                             "with the same model and settings to finish them, or --force to start over)", parts)
        if force:
            log.info("%s: --force: starting over", parts)
            shutil.rmtree(parts)
    parts.mkdir(exist_ok=True)
    if not key_path.is_file():
        with atomic_write(key_path) as f:
            json.dump(key, f, indent=1)
    feats = stream_features(model, data_dir, utts)
    total = sum(sizes)
    have = {c for c in range(len(chunks)) if (parts / f"{c:05d}.npz").is_file()}
    words_before = sum(sum(sizes[a:b]) for c, (a, b) in enumerate(chunks) if c in have)
    if have:
        log.info("%s: %d of %d chunks (%d of %d words) decoded by an earlier run; decoding the rest", parts, len(have),
                 len(chunks), words_before, total)
    log.info("posteriors of %s (%s%s) on %s: %d utterances, %d words in %d chunks; %d-word windows, batches of %d, %s",
             model_path, ck.get("model"), ", with case" if case else "", data_dir, len(utts), total, len(chunks),
             window, batch_size, precision)
    t0 = time.monotonic()
    last_log = t0
    done_now = 0
    for c, (a, b) in enumerate(chunks):
        if c in have:
            continue
        streams = [vocab.encode(u.texts) for u in utts[a:b]]
        _, post = run_streams(model, streams, window, batch_size, feats=None if feats is None else feats[a:b],
                              probs=True, case=case)
        arr = np.concatenate(post) if post else np.zeros((0, len(columns)), np.float32)
        with atomic_write(parts / f"{c:05d}.npz", "wb", encoding=None) as f:
            np.savez(f, post=arr.astype(np.float32), lengths=np.asarray(sizes[a:b], dtype=np.int64))
        done_now += int(arr.shape[0])
        now = time.monotonic()
        left = total - words_before - done_now
        rate = done_now / max(now - t0, 1e-9)
        if c + 1 == len(chunks) or now - last_log >= PROGRESS_SECONDS or done_now == arr.shape[0]:
            last_log = now
            log.info("chunk %d/%d: %d of %d words, %.0f words/s, about %s left", c + 1, len(chunks),
                     total - left, total, rate, _eta(left / max(rate, 1e-9)))
    seconds = time.monotonic() - t0
    if getattr(model, "punct_logit_offset", None) is not None:
        log.info("the teacher trained with mark_weights %s: decoding took them out of its posteriors",
                 tc.get("mark_weights"))
    out: dict[str, np.ndarray] = {}
    for c, (a, b) in enumerate(chunks):
        path = parts / f"{c:05d}.npz"
        with np.load(path) as z:
            arr, lengths = z["post"], z["lengths"]
        if lengths.tolist() != sizes[a:b] or arr.shape != (sum(sizes[a:b]), len(columns)):
            raise PunctError(f"chunk {c} does not fit the utterances of the directory (delete {parts} and rerun)", path)
        for u, part in zip(utts[a:b], np.split(arr, np.cumsum(lengths)[:-1])):
            out[u.id] = part
    write_features(data_dir, name, out, columns)
    load_word_features(data_dir, [name])  # read back: every utterance of text, one row per word
    mark_done(data_dir / name)
    shutil.rmtree(parts)
    log.info("%s: %d words -> %s.{ark,scp,names} (columns %s); %d words decoded by this run in %.0f s",
             data_dir, total, data_dir / name, " ".join(columns), done_now, seconds)
    return {"words": total, "decoded": done_now, "seconds": round(seconds, 1),
            "words_per_s": round(done_now / max(seconds, 1e-9), 1), "columns": columns, "chunks": len(chunks)}


def read_soft_targets(data_dir: str | Path, name: str) -> tuple[dict[str, np.ndarray], SoftLayout]:
    """({utt: float32 [n_words, width]}, layout) of posterior set ``name`` of ``data_dir``
    (``write_posteriors``), checked against the words of its ``text`` and its columns."""
    from punct.prosody.features import feature_files, load_word_features, read_names

    data_dir = Path(data_dir)
    scp = feature_files(data_dir, name)[1]
    if not scp.is_file():
        raise PunctError(f"no soft targets {name!r} here (punct posteriors --model TEACHER --data {data_dir} "
                         f"--name {name} writes them)", scp)
    layout = SoftLayout.of(read_names(data_dir, name), scp)
    return load_word_features(data_dir, [name]), layout


def distill_loss_sum(logits, hard, soft, keep, weight: float, temperature: float = 1.0, class_weights=None,
                     kl_weighted: bool = False):
    """The summed loss of the words where ``keep`` ``[B,T]`` is True: ``1 - weight`` times the
    cross-entropy of ``logits`` ``[B,T,C]`` to the reference classes ``hard`` ``[B,T]`` (-100:
    none) plus ``weight`` times the KL divergence from the teacher's posteriors ``soft``
    ``[B,T,C]`` to the student's, both softened by ``temperature`` T and scaled by T^2 (Hinton
    et al. 2015). Without ``soft`` (or with weight 0) it is the plain cross-entropy.
    ``class_weights`` ``[C]`` weighs each word's cross-entropy by its reference class and, with
    ``kl_weighted``, each word's KL term by the class weight the teacher expects there
    (sum of p_c w_c)."""
    import torch
    import torch.nn.functional as F

    C = logits.shape[-1]
    hard = hard.masked_fill(~keep, -100)
    ce = F.cross_entropy(logits.reshape(-1, C), hard.reshape(-1), weight=class_weights, ignore_index=-100,
                         reduction="sum")
    if soft is None or weight == 0.0:
        return ce
    logq = F.log_softmax(logits[keep] / temperature, -1)
    logp = torch.log(soft[keep].float().clamp_min(1e-8))
    if temperature != 1.0:
        logp = F.log_softmax(logp / temperature, -1)
    else:
        logp = logp - torch.logsumexp(logp, -1, keepdim=True)  # rows that do not quite sum to 1
    p = logp.exp()
    per_word = (p * (logp - logq)).sum(-1)
    if kl_weighted and class_weights is not None:
        per_word = per_word * (p @ class_weights.to(p.dtype))
    kl = per_word.sum() * temperature ** 2
    return (1.0 - weight) * ce + weight * kl if weight < 1.0 else kl
