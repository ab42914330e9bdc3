"""The one inference path: how streams of token ids are cut into windows, how windows are
batched through a model (torch or an ONNX graph), and how posteriors are turned into labels
and combined across models. Every decoder goes through it: ``punct decode`` and training's
validation (``run_streams``), ``punct restore`` and its ensembles (punct.engine.restorer),
a second stage over pauses (any model with per-word features) and the soft labels of a teacher.

Windows follow predicted sentence boundaries (Tilk & Alumäe 2016; punctuator2's
``punctuator.py``): a window of up to ``window`` tokens is run, its predictions are accepted up
to the last predicted sentence end (``accept_count``) and the next window starts after it; a
window with no sentence end gives all but its last token; one that reaches the end of its
stream gives all of it. Beyond punctuator2, at least half a window is accepted: a model that
predicts an end only near the start of every window (an untrained one does) would otherwise
cost a window per token. Windows of many streams are batched together.

Streams are fed lazily (``iter_decode``), at most ``window + 1`` tokens held per stream, so
the labels do not depend on how the input is fed.

Parallel segments (``workers`` > 1): a stream's windows wait for each other, so a one-hour
recording (one stream) would run on one core, and batching windows does not make the attention
of a T-BRNN cheaper per word (its cost grows with the window, not the batch). Instead long
streams are cut into up to ``workers`` segments, each decoded as above with ``window // 2``
tokens of context read on each side, the segments decoded by as many threads (both runtimes
release the GIL while they compute), and the labels handed back in stream order. Only the words
near a cut can differ from one-segment decoding, as windows started elsewhere see them (and
their window starts need not meet again: each start is the last sentence end its window saw);
streams shorter than ``SEGMENT_WINDOWS`` windows a worker are not cut.

Posteriors (softmax) and case classes are computed only for the rows a caller asks for
(``Accepted``), not for every window position.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from punct.errors import PunctError
from punct.text.labels import CASES, LABELS, MARK_LABELS, PERIOD, QUESTION, SENTENCE_END, label_id

if TYPE_CHECKING:
    import numpy as np

_EOS = frozenset(label_id(lab) for lab in SENTENCE_END)
#: a stream is cut into segments of at least this many windows (module docstring)
SEGMENT_WINDOWS = 4


# ----------------------------------------------------------------------------- windows

def decode_window_of(train_config: dict) -> int:
    """The decoding window a checkpoint's training config asks for: ``decode_window``,
    else its training slice length."""
    return int(train_config.get("decode_window") or train_config.get("slice_length", 200))


def accept_count(pred: Sequence[int], at_end: bool) -> int:
    """How many predictions of a window to accept (module docstring)."""
    n = len(pred)
    if at_end:
        return n
    for k in range(n - 2, -1, -1):
        if pred[k] in _EOS:
            return max(k + 1, n // 2)
    return max(1, n - 1)


# ----------------------------------------------------------------------------- batches

class Batch:
    """The logits of one batch of windows, and what is read from them on demand: labels for
    every window position (an argmax), posteriors and case classes for the rows asked for.
    A torch model's posteriors are torch's softmax, an ONNX graph's numpy's (as each runtime
    computed them for every row before)."""

    def __init__(self, logits: Any, case_logits: Any, lengths: Sequence[int], is_torch: bool, bias=None):
        """``bias``: the model's decision bias over LABELS (``punct_decision_bias``), added to the
        logits of the labels' argmax only."""
        self.logits, self.case_logits, self.lengths, self.is_torch = logits, case_logits, list(lengths), is_torch
        decide = logits
        if bias is not None and is_torch:
            import torch

            decide = logits + torch.from_numpy(bias[: logits.shape[-1]])
        elif bias is not None:  # an ONNX graph's numpy logits: no torch on that path
            decide = logits + bias[: logits.shape[-1]]
        best = decide.argmax(-1).tolist()
        self.labels = [best[r][:n] for r, n in enumerate(self.lengths)]

    def posteriors(self, r: int, a: int, b: int, case: bool = False) -> "np.ndarray":
        """float32 [b - a, len(LABELS)] softmax of rows a..b of window ``r`` (``case``: followed
        by the case head's softmax, [b - a, len(LABELS) + len(CASES)])."""
        parts = [self.logits[r, a:b]] + ([self.case_logits[r, a:b]] if case else [])
        if self.is_torch:
            import torch

            return torch.cat([torch.softmax(x.float(), -1) for x in parts], -1).numpy()
        import numpy as np

        out = []
        for x in parts:
            e = np.exp(x - x.max(-1, keepdims=True))
            out.append((e / e.sum(-1, keepdims=True)).astype(np.float32))
        return np.concatenate(out, -1) if case else out[0]

    def cases(self, r: int, a: int, b: int) -> list[int]:
        """The case class ids (argmax of the case logits) of rows a..b of window ``r``."""
        return self.case_logits[r, a:b].argmax(-1).tolist()


def run_batch(model, wins: Sequence[Sequence[int]], feats: Sequence | None = None, inputs=None,
              case: bool = False) -> Batch:
    """One batch of windows (token id lists; ``feats``: one raw feature array per window, for a
    model with per-word features) through ``model``: a torch model, fed by its featurizer
    ``inputs`` (None: ids and mask as they are), or an ONNX graph (punct.engine.runtime.OnnxModel).
    ``case``: the model's case logits too (it has a case head)."""
    import numpy as np

    T = max(len(w) for w in wins)
    lengths = np.array([len(w) for w in wins], dtype=np.int64)
    fw = None
    if feats is not None:
        fw = np.zeros((len(wins), T, np.asarray(feats[0]).shape[1]), dtype=np.float32)
        for r, f in enumerate(feats):
            fw[r, : len(f)] = f
    offset = getattr(model, "punct_logit_offset", None)  # punct.text.labels.mark_offset of the model's training
    bias = getattr(model, "punct_decision_bias", None)  # punct.text.labels.bias_offset of the file's tuned bias
    if hasattr(model, "session"):  # an ONNX graph
        logits, case_logits = model.run(_padded_ids(wins, T), lengths, fw)
        if case and case_logits is None:
            raise PunctError("internal error: case logits asked of a graph without a case head", model.path)
        if offset is not None:
            logits = logits + offset[: logits.shape[-1]]
        return Batch(logits, case_logits, lengths, is_torch=False, bias=bias)
    import contextlib

    import torch

    # runtime torch-bf16 (punct.engine.runtime): the matrix products in bfloat16, the logits back in float32
    bf16 = torch.autocast("cpu", dtype=torch.bfloat16) if getattr(model, "punct_bf16", False) else contextlib.nullcontext()
    with torch.no_grad(), bf16:
        if inputs is None:
            ids = torch.zeros(len(wins), T, dtype=torch.long)
            mask = torch.zeros(len(wins), T, dtype=torch.bool)
            for r, w in enumerate(wins):
                ids[r, : len(w)] = torch.tensor(w, dtype=torch.long)
                mask[r, : len(w)] = True
            out = model(ids, mask, return_case=True) if case else model(ids, mask)
        else:
            ids = _padded_ids(wins, T)
            kw = inputs.tensors(ids, lengths) if fw is None else inputs.tensors(ids, lengths, feats=fw)
            out = model(**kw, return_case=True) if case else model(**kw)
    logits, case_logits = out if case else (out, None)
    logits = logits.float()
    case_logits = None if case_logits is None else case_logits.float()
    if offset is not None:
        logits = logits + torch.from_numpy(offset[: logits.shape[-1]])
    return Batch(logits, case_logits, lengths, is_torch=True, bias=bias)


def _padded_ids(wins: Sequence[Sequence[int]], T: int) -> "np.ndarray":
    import numpy as np

    ids = np.zeros((len(wins), T), dtype=np.int64)
    for r, w in enumerate(wins):
        ids[r, : len(w)] = w
    return ids


# ----------------------------------------------------------------------------- streams

@dataclass
class Accepted:
    """The accepted part of one window of stream ``stream``: its ``labels`` (label ids, in stream
    order), and on demand the posteriors of its rows (``Batch``)."""

    stream: int
    labels: list[int]
    batch: Batch
    row: int
    offset: int = 0  # the window position of the first accepted token

    def posteriors(self, a: int = 0, b: int | None = None, case: bool = False) -> "np.ndarray":
        """float32 posteriors of accepted tokens a..b (default: all), [., len(LABELS)] (+ case)."""
        o = self.offset
        return self.batch.posteriors(self.row, o + a, o + (len(self.labels) if b is None else b), case)


def default_workers(threads: int = 1) -> int:
    """Decoding threads (``iter_decode``'s workers) for a runtime of ``threads`` threads each:
    the usable cores shared out, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores // max(1, threads)))


def iter_decode(model, sources: Sequence[Iterable], window: int, batch_size: int = 32, with_feats: bool = False,
                case: bool = False, inputs=None, workers: int = 1) -> Iterator[Accepted]:
    """Decode streams of token ids given as iterables; yield an ``Accepted`` per window, in
    stream order within each stream. ``with_feats``: the sources yield ``(id, feature row)``
    pairs, windowed together. ``inputs``: a torch model's featurizer (default its
    ``punct_inputs``); ``case``: its case logits are kept (``Accepted.posteriors(case=True)``). ``workers``
    > 1: parallel segments (module docstring; the sources are read whole first)."""

    if window < 2:
        raise ValueError("window must be at least 2 words")
    if batch_size < 1:  # none would ever be taken: a loop without end
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if not hasattr(model, "session"):
        if inputs is None:
            inputs = getattr(model, "punct_inputs", None)
        if not with_feats and getattr(inputs, "columns", None):
            raise PunctError("this model reads per-word features (pause, prosody): none were given with the words")
        model.eval()
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers > 1:
        yield from _iter_parallel(model, sources, window, batch_size, with_feats, case, inputs, workers)
    else:
        yield from _iter_sequential(model, sources, window, batch_size, with_feats, case, inputs)


def _iter_sequential(model, sources, window, batch_size, with_feats, case, inputs) -> Iterator[Accepted]:
    """``iter_decode`` in one thread: windows that follow sentence ends, batched across streams."""
    import numpy as np

    its = [iter(s) for s in sources]
    bufs: list[list] = [[] for _ in its]
    exhausted = [False] * len(its)
    active = list(range(len(its)))
    while active:
        for i in active:
            # window + 1 tokens tell whether the window reaches the end of the stream
            while len(bufs[i]) <= window and not exhausted[i]:
                try:
                    bufs[i].append(next(its[i]))
                except StopIteration:
                    exhausted[i] = True
        active = [i for i in active if bufs[i]]
        still = []
        for c in range(0, len(active), batch_size):
            chunk = active[c : c + batch_size]
            wins = [bufs[i][:window] for i in chunk]
            feats = None
            if with_feats:
                feats = [np.stack([row for _, row in w]) for w in wins]
                wins = [[t for t, _ in w] for w in wins]
            batch = run_batch(model, wins, feats, inputs, case)
            for r, i in enumerate(chunk):
                p = batch.labels[r]
                k = accept_count(p, exhausted[i] and len(bufs[i]) <= window)
                del bufs[i][:k]
                yield Accepted(i, p[:k], batch, r)
                if bufs[i] or not exhausted[i]:
                    still.append(i)
        active = still


def segments(n: int, window: int, workers: int) -> list[tuple[int, int, int, int]]:
    """The segments of a stream of ``n`` tokens (module docstring): (first, end) of the tokens
    decoded, (first, end) of those kept; one segment for a stream under ``SEGMENT_WINDOWS`` windows a worker."""
    k = max(1, min(workers, n // (SEGMENT_WINDOWS * window)))
    ctx = window // 2
    cuts = [n * j // k for j in range(k + 1)]
    return [(max(0, a - ctx), min(n, b + ctx), a, b) for a, b in zip(cuts, cuts[1:])]


def _iter_parallel(model, sources, window, batch_size, with_feats, case, inputs, workers) -> Iterator[Accepted]:
    """``iter_decode`` over parallel segments: the segments shared out to ``workers`` threads by
    size, each thread decoding its share as ``_iter_sequential`` does."""
    from concurrent.futures import ThreadPoolExecutor

    items = [list(s) for s in sources]
    jobs = [(i, *seg) for i, it in enumerate(items) if it for seg in segments(len(it), window, workers)]
    if len(jobs) <= 1:  # nothing to share out
        yield from _iter_sequential(model, items, window, batch_size, with_feats, case, inputs)
        return
    shares: list[list[int]] = [[] for _ in range(min(workers, len(jobs)))]
    sizes = [0] * len(shares)
    for j in sorted(range(len(jobs)), key=lambda j: jobs[j][1] - jobs[j][2]):
        g = sizes.index(min(sizes))
        shares[g].append(j)
        sizes[g] += jobs[j][2] - jobs[j][1]
    got: list[list[Accepted]] = [[] for _ in jobs]

    def run(share: list[int]) -> None:
        srcs = [items[jobs[j][0]][jobs[j][1]: jobs[j][2]] for j in share]
        for acc in _iter_sequential(model, srcs, window, batch_size, with_feats, case, inputs):
            got[share[acc.stream]].append(acc)

    with ThreadPoolExecutor(len(shares)) as ex:
        for f in [ex.submit(run, sh) for sh in shares]:
            f.result()
    for (i, lo, _, a, b), accs in zip(jobs, got):
        pos = lo
        for acc in accs:
            s, pos = pos, pos + len(acc.labels)
            x, y = max(s, a), min(pos, b)
            if x < y:
                yield Accepted(i, acc.labels[x - s: y - s], acc.batch, acc.row, acc.offset + x - s)


def run_streams(model, streams: list[list[int]], window: int = 200, batch_size: int = 128,
                inputs=None, feats: Sequence | None = None, probs: bool = False, case: bool = False,
                workers: int = 1):
    """(label ids, posteriors) of every token of every stream of a data set (``iter_decode`` over
    whole streams); posteriors are float32 [n, len(LABELS)] arrays when ``probs``, else None;
    with ``case`` (and ``probs``, a model with a case head) each row continues with the case
    head's softmax. ``feats``: one raw feature array per stream, a row per token. ``workers``:
    parallel segments (``iter_decode``)."""
    import numpy as np

    if feats is not None:
        if inputs is None and getattr(model, "punct_inputs", None) is None:
            raise ValueError("features need the model's featurizer (inputs)")
        if len(feats) != len(streams) or any(len(f) != len(s) for f, s in zip(feats, streams)):
            raise ValueError("feats must hold one row per word of every stream")
    if case and not probs:
        raise ValueError("case posteriors come with probs=True")
    sources = [s if feats is None else zip(s, f) for s, f in zip(streams, feats or streams)]
    out: list[list[int]] = [[] for _ in streams]
    post: list[list] = [[] for _ in streams]
    for acc in iter_decode(model, sources, window, batch_size, with_feats=feats is not None, case=case, inputs=inputs,
                           workers=workers):
        out[acc.stream].extend(acc.labels)
        if probs:
            post[acc.stream].append(acc.posteriors(case=case))
    if not probs:
        return out, None
    width = len(LABELS) + (len(CASES) if case else 0)
    return out, [np.concatenate(p) if p else np.zeros((0, width), np.float32) for p in post]


# ----------------------------------------------------------------------------- combination

def ensemble_weights(weights: Sequence[float] | None, n: int, source: str | Path | None = None,
                     what: str = "") -> list[float]:
    """The weights of an ``n``-member ensemble, normalised to sum to 1 (default: equal); a
    PunctError for a count other than ``n`` or a weight that is not a positive number, naming
    ``source`` (the file the weights came from) and prefixed by ``what`` (the option that gave
    them), so that a command checks its options with this rule before it loads any model."""
    if n < 1:
        raise ValueError("an ensemble needs at least one model")
    w = [1.0] * n if weights is None else [float(x) for x in weights]
    prefix = f"{what}: " if what else ""
    if len(w) != n:
        raise PunctError(f"{prefix}{len(w)} weights for {n} models (one per model)", source)
    if any(not (x > 0 and math.isfinite(x)) for x in w):
        raise PunctError(f"{prefix}ensemble weights must be positive numbers, got {w}", source)
    return [x / sum(w) for x in w]


def class_bias(bias, source: str | Path | None = None, what: str = ""):
    """The decision bias as a float64 array over LABELS (0 for O), from one number per mark
    (a sequence in MARK_LABELS order or a {mark: number} mapping; None: all 0), or a PunctError
    naming ``source`` and prefixed by ``what``. A word's label is the argmax of log posterior
    + bias (``biased_labels``): a positive bias asks for more of a mark, trading its precision
    for recall."""
    import numpy as np

    prefix = f"{what}: " if what else ""
    if bias is None:
        return np.zeros(len(LABELS))
    if isinstance(bias, dict):
        unknown = sorted(set(bias) - set(MARK_LABELS))
        if unknown:
            raise PunctError(f"{prefix}unknown mark(s) {unknown} in the bias (marks: {', '.join(MARK_LABELS)})",
                             source)
        values = [bias.get(m, 0.0) for m in MARK_LABELS]
    else:
        values = list(bias)
        if len(values) != len(MARK_LABELS):
            raise PunctError(f"{prefix}{len(values)} bias values for {len(MARK_LABELS)} marks (one each for "
                             f"{', '.join(MARK_LABELS)})", source)
    if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) for x in values):
        raise PunctError(f"{prefix}bias values must be finite numbers, got {values}", source)
    return np.array([0.0] + [float(x) for x in values])


def biased_labels(probs, bias=None):
    """Label ids of posteriors ``probs`` [n, len(LABELS)]: the argmax of log posterior plus
    ``bias`` (``class_bias``); with no bias (or all zeros), the plain argmax."""
    import numpy as np

    probs = np.asarray(probs, dtype=np.float64)
    b = class_bias(None) if bias is None else np.asarray(bias, dtype=np.float64)
    if not b.any():
        return probs.argmax(-1)
    return (np.log(np.maximum(probs, 1e-30)) + b).argmax(-1)


def weighted_mean(members: Sequence["np.ndarray"], weights: Sequence[float]) -> "np.ndarray":
    """The float64 weighted mean of the members' posteriors of the same words (``weights``
    summing to 1, ``ensemble_weights``): what an ensemble decides from."""
    import numpy as np

    total = None
    for p, wt in zip(members, weights):
        total = wt * np.asarray(p).astype(np.float64) if total is None else total + wt * p
    return total


def sentence_end_label(probs, bias=None) -> str:
    """PERIOD or QUESTION, whichever has the higher log posterior plus ``bias`` (``class_bias``)
    in ``probs`` [len(LABELS)]: the mark that ends an input, where a sentence ends whatever
    the model's argmax (ties go to PERIOD)."""
    import numpy as np

    p = np.log(np.maximum(np.asarray(probs, dtype=np.float64), 1e-30))
    b = np.zeros(len(p)) if bias is None else np.asarray(bias, dtype=np.float64)
    q, d = label_id(QUESTION), label_id(PERIOD)
    return QUESTION if p[q] + b[q] > p[d] + b[d] else PERIOD
