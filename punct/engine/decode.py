"""Decoding a data directory: its utterances as streams of the model's ids (and per-word
features), through the one inference path (punct.engine.infer: windows, batches,
posteriors); one model or an ensemble (the weighted mean of the members' posteriors, with
a decision bias); and the tuning of an ensemble's weights and bias on a labelled set.
"""
from __future__ import annotations

import functools
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import torch

from punct.engine.infer import class_bias, run_streams
from punct.errors import PunctError
from punct.text.labels import LABELS, MARK_LABELS, O, label_id, mark_of
from punct.text.words import Utterance, Word

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)


def predict_streams(model: torch.nn.Module, streams: list[list[int]], window: int = 200, batch_size: int = 128,
                    inputs=None, feats: Sequence | None = None, workers: int = 1) -> list[list[int]]:
    """Label ids for every word of every stream of word ids, windows following predicted boundaries.

    The ids are those of the model's featurizer (``vocab.encode`` of ``load_model``);
    ``inputs`` is that featurizer, by default ``model.punct_inputs`` (set by
    ``load_model``), else the ids are passed as they are (``model(ids=, mask=)``).
    ``feats``: for a model with per-word features, one raw feature array per stream
    (``FeatureInputs.load_features``), windowed in step with the ids. ``workers``: decoding
    threads (parallel segments, punct.engine.infer)."""
    return run_streams(model, streams, window, batch_size, inputs, feats, workers=workers)[0]


def stream_features(model: torch.nn.Module, data_dir: str | Path, utts: list[Utterance]) -> list | None:
    """The raw per-word features of ``utts`` (of ``data_dir``) that ``model`` reads, one
    array per utterance; None for a model without features."""
    return inputs_features(getattr(model, "punct_inputs", None), data_dir, utts)


def inputs_features(inputs, data_dir: str | Path, utts: list[Utterance]) -> list | None:
    """The raw per-word features of ``utts`` (of ``data_dir``) that the featurizer ``inputs``
    reads, one array per utterance; None for inputs without features."""
    if not getattr(inputs, "columns", None):
        return None
    from punct.engine.word_features import check_rows

    by_utt = inputs.load_features(data_dir, utts)
    check_rows(by_utt, utts, data_dir)
    return [by_utt[u.id] for u in utts]


def _in_streams(utts: list[Utterance], data_dir: str | Path) -> list[Utterance]:
    """``utts`` (of ``data_dir``) with their recordings, in their time order, as ``punct restore``
    reads a data directory (punct.io.kaldidir.in_recordings), so that consecutive segments of a
    speaker are one decoding stream; shallow copies (the same words)."""
    from punct.io.kaldidir import in_recordings

    return in_recordings(list(utts), Path(data_dir) / "segments")


def _in_order(utts: list[Utterance], done: list[Utterance]) -> list[Utterance]:
    """The utterances of ``done`` in the order of ``utts`` (by id)."""
    by_id = {u.id: u for u in done}
    return [by_id[u.id] for u in utts]


def load_restorer(model_path: str | Path, window: int | None = None, batch_size: int | None = None,
                  threads: int | None = None, workers: int | None = None, runtime: str | None = None):
    """The Restorer (punct.engine.restorer) that decodes a data directory with ``model_path``:
    the one that ``punct restore`` runs, with the same runtime choice and defaults (1 thread;
    ``workers``: the usable cores over the threads, whose segments of a long stream decide
    the labels near their cuts, punct.engine.infer)."""
    from punct.engine.restorer import Restorer

    return Restorer.load(model_path, window=window, batch_size=batch_size, runtime=runtime,
                         threads=threads or 1, workers=workers)


def posteriors(model_path: str | Path, data_dir: str | Path, utts: list[Utterance] | None = None,
               window: int | None = None, batch_size: int | None = None, info: dict | None = None,
               restorer=None, runtime: str | None = None):
    """(utterances, [float32 [n_words, len(LABELS)] per utterance], [bool [n_words] or None]):
    the posteriors of the model in ``model_path`` for every word of ``data_dir`` (``utts``, if
    given, in their order), decoded as ``decode`` does (before the end of each input is made a
    sentence end), and which words lacked acoustic evidence (None: a model without features).
    Non-speech tokens have the posteriors of no mark. ``info``, if given, receives the
    checkpoint's model name and epoch (when torch runs it) and the seconds the decoding took
    (without loading the model and the words). ``restorer``: the model already loaded."""
    import numpy as np

    from punct.engine.restorer import output_streams
    from punct.engine.word_features import FeatureSource

    from punct.data.datadir import load_utterances

    r = restorer or load_restorer(model_path, window, batch_size, runtime=runtime)
    if utts is None:
        utts = load_utterances(data_dir, require_labels=False)
    t0 = time.monotonic()
    out, streams = output_streams(_in_streams(utts, data_dir), True, False)
    rows = None if r.inputs is None else r.feature_rows(out, None, FeatureSource(data_dir=data_dir))
    probs = r.word_posteriors(streams, out, rows=rows)
    if info is not None:
        ck = getattr(r.model, "punct_info", None) or {}
        info.update(model=ck.get("model"), epoch=ck.get("epoch"), seconds=time.monotonic() - t0)
    no_mark = np.eye(len(LABELS), dtype=np.float32)[label_id(O)]
    by_id = {u.id: u for u in out}
    per_utt, missing = [], None if rows is None else []
    for u in utts:
        words = by_id[u.id].words
        per_utt.append(np.stack([probs.get(id(w), no_mark) for w in words]) if words
                       else np.zeros((0, len(LABELS)), np.float32))
        if missing is not None:
            missing.append(np.array([bool(rows[1][id(w)][1][-1] > 0.5) for w in words], dtype=bool))
    return utts, per_utt, missing


def decode(model_path: str | Path, data_dir: str | Path, window: int | None = None, batch_size: int | None = None,
           threads: int | None = None, stats: dict | None = None, workers: int | None = None,
           runtime: str | None = None, end_sentence: bool = True) -> list[Utterance]:
    """Punctuate the words of data directory ``data_dir`` with the model in ``model_path`` as
    ``punct restore DIR`` does (punct.engine.restorer: its word handling, runtime, features and
    ends of input); returns the utterances with predicted labels (the input labels, if any, are
    replaced). ``stats``, if given, receives words, seconds (and the process's cpu_seconds),
    words_per_s, model, window, batch_size, runtime."""
    from punct.data.datadir import load_utterances
    from punct.engine.word_features import FeatureSource

    r = load_restorer(model_path, window, batch_size, threads, workers, runtime)
    utts = load_utterances(data_dir, require_labels=False)
    n_words = sum(len(u.words) for u in utts)
    t0, c0 = time.monotonic(), time.process_time()
    hyp = _in_order(utts, r.restore(_in_streams(utts, data_dir), end_sentence=end_sentence,
                                    features=FeatureSource(data_dir=data_dir), quiet=True))
    dt, cpu = time.monotonic() - t0, time.process_time() - c0
    log.info("decoded %d utterances, %d words in %.1f s (%.0f words/s, %s)", len(utts), n_words, dt,
             n_words / max(dt, 1e-9), r.runtime)
    if stats is not None:
        ck = getattr(r.model, "punct_info", None) or {}
        stats.update(words=n_words, seconds=round(dt, 3), words_per_s=round(n_words / max(dt, 1e-9), 1),
                     model=ck.get("model"), model_epoch=ck.get("epoch"), window=r.window, batch_size=r.batch_size,
                     threads=torch.get_num_threads(), workers=r.workers, runtime=r.runtime, cpu_seconds=round(cpu, 3))
        if ck.get("averaged_epochs"):  # a checkpoint average (TrainConfig average_best)
            stats["model_averaged_epochs"] = ck["averaged_epochs"]
    return [_plain(u) for u in hyp]


def _plain(u: Utterance) -> Utterance:
    """A decoded utterance as ``write_decode`` writes it: each word's text, label and times."""
    return Utterance(id=u.id, words=[Word(text=w.text, label=w.label, start=w.start, end=w.end) for w in u.words],
                     speaker=u.speaker)


def tune_class_bias(probs, ref_ids, step: float = 0.1, limit: float = 2.0, rounds: int = 3
                    ) -> tuple[list[float], float, float]:
    """The bias (one number per mark, MARK_LABELS order, each a multiple of ``step`` in
    [-limit, limit]) with the best overall F1 of ``biased_labels(probs)`` against
    ``ref_ids``, by coordinate ascent from no bias (``rounds`` sweeps over the marks; a
    change must raise F1, so no bias wins ties). Returns (bias, its F1, F1 without bias)."""
    import numpy as np

    if step <= 0 or limit < 0:
        raise ValueError("tune_class_bias needs step > 0 and limit >= 0")
    logp = np.log(np.maximum(np.asarray(probs, dtype=np.float64), 1e-30))
    ref = np.asarray(ref_ids)
    grid = [k * step for k in range(-round(limit / step), round(limit / step) + 1)]
    b = np.zeros(len(LABELS))
    base = best = overall_f1(ref, logp.argmax(-1))
    for _ in range(rounds):
        moved = False
        for k in range(1, len(LABELS)):
            for g in grid:
                c = b.copy()
                c[k] = g
                f1 = overall_f1(ref, (logp + c).argmax(-1))
                if f1 > best + 1e-9:
                    best, b, moved = f1, c, True
        if not moved:
            break
    return [round(float(x), 6) for x in b[1:]], best, base


def bias_text(bias) -> str:
    """``COMMA +0.4 PERIOD +0.8 QUESTION +0.3`` for one number per mark (MARK_LABELS order)."""
    return " ".join(f"{m} {x:+.2g}" for m, x in zip(MARK_LABELS, bias))


def decode_ensemble(model_paths: Sequence[str | Path], data_dir: str | Path, weights: Sequence[float] | None = None,
                    threads: int | None = None, stats: dict | None = None, bias=None, runtime: str | None = None,
                    end_sentence: bool = True) -> list[Utterance]:
    """Punctuate ``data_dir`` with several models: each decodes the words as ``decode`` does
    (its own window, batch size and features), and every word takes the label of the
    weighted mean of the models' posteriors (``weights``: one positive number per model,
    default equal), shifted by ``bias`` (``class_bias``; None: the plain argmax); the end of
    each input then ends a sentence as in ``punct restore`` (``end_sentence``). One model
    decodes so as well: its own labels, or with a bias. ``stats`` as for ``decode``, with
    ``members``, ``weights`` and ``bias``."""
    from punct.data.datadir import load_utterances
    from punct.engine.restorer import EnsembleRestorer
    from punct.engine.word_features import FeatureSource

    paths = [str(p) for p in model_paths]
    ens = EnsembleRestorer.load(paths, weights, bias=bias, runtime=runtime, threads=threads or 1)
    utts = load_utterances(data_dir, require_labels=False)
    n_words = sum(len(u.words) for u in utts)
    t0 = time.monotonic()
    hyp = _in_order(utts, ens.restore(_in_streams(utts, data_dir), end_sentence=end_sentence,
                                      features=FeatureSource(data_dir=data_dir)))
    dt = time.monotonic() - t0  # the members' decoding, timed as decode times one model (without loading)
    log.info("ensemble of %d models: decoded %d utterances, %d words in %.1f s (%.0f words/s)",
             len(paths), len(utts), n_words, dt, n_words / max(dt, 1e-9))
    if stats is not None:
        stats.update(words=n_words, seconds=round(dt, 3), words_per_s=round(n_words / max(dt, 1e-9), 1),
                     model="ensemble", members=paths, weights=[round(x, 6) for x in ens.weights],
                     member_epochs=[(getattr(m.model, "punct_info", None) or {}).get("epoch") for m in ens.members],
                     threads=torch.get_num_threads())
        if ens.bias.any():
            stats["bias"] = dict(zip(MARK_LABELS, (round(float(x), 6) for x in ens.bias[1:])))
    return [_plain(u) for u in hyp]


def overall_f1(ref_ids, hyp_ids) -> float:
    """Overall F1 (percent) of label id arrays as punct.scoring.score counts it: a hit is a mark
    predicted where the reference has the same mark; a wrong mark is both a false alarm
    and a miss; 0 when there is nothing to find or predict."""
    import numpy as np

    ref, hyp = np.asarray(ref_ids), np.asarray(hyp_ids)
    same = hyp == ref
    tp = int(np.count_nonzero(same & (ref != 0)))
    fp = int(np.count_nonzero((hyp != 0) & ~same))
    fn = int(np.count_nonzero((ref != 0) & ~same))
    return 200.0 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0


def weight_grid(n: int, step: float) -> list[tuple[float, ...]]:
    """Every weighting of ``n`` members in multiples of ``step`` that sums to 1 and gives each
    member a positive weight."""
    import itertools

    if not 0 < step <= 1:  # also NaN
        raise PunctError(f"the weight step must be above 0 and at most 1, got {step}")
    k = round(1 / step)
    if k < n or abs(k * step - 1) > 1e-9:
        raise PunctError(f"a weight step of {step} cannot give {n} members positive weights summing to 1 "
                         f"(use 1/N for a whole N >= {n})")
    return [tuple(c / k for c in combo) for combo in itertools.product(range(1, k + 1), repeat=n) if sum(combo) == k]


def tuning_posteriors(model_paths: Sequence[str | Path], dev_dir: str | Path):
    """(reference label ids, [float64 posteriors [n_words, len(LABELS)] per model]) of the
    labelled data directory ``dev_dir``, every model decoding it as ``decode`` does: what
    ``tune_ensemble_weights`` and ``tune_class_bias`` choose from."""
    import numpy as np

    from punct.data.datadir import load_utterances

    if not (Path(dev_dir) / "labels").is_file():
        raise PunctError("the tuning set needs reference labels", Path(dev_dir) / "labels")
    utts = load_utterances(dev_dir)
    ref = np.array([label_id(lab) for u in utts for lab in u.labels])
    return ref, [cached_posteriors(p, dev_dir, utts) for p in model_paths]


#: the folder beside a model where ``cached_posteriors`` keeps its decodes of tuning sets
POSTERIOR_CACHE = "posteriors"


def cached_posteriors(model_path: str | Path, data_dir: str | Path, utts) -> "np.ndarray":
    """The float64 posteriors [n_words, len(LABELS)] of ``posteriors(model_path, data_dir)``,
    kept in ``POSTERIOR_CACHE/`` beside the model under a key of the model file and every file
    of the data directory (path, size, modification time) and of punct's own code (its
    contents, so a changed model or featurizer never reads old posteriors): an ensemble's
    tuning decodes a tuning set once per member, not once per ensemble. A folder that cannot be written
    (a shipped model) only means no cache."""
    import hashlib
    import json

    import numpy as np

    from punct.fsutil import atomic_write

    from punct.engine.infer import default_workers
    from punct.engine.runtime import runtime_choice

    model_path, data_dir = Path(model_path), Path(data_dir)
    key = {"model": _file_identity(model_path), "runtime": runtime_choice(), "workers": default_workers(1),
           "data": [_file_identity(f) for f in sorted(data_dir.iterdir()) if f.is_file()], "code": code_digest()}
    digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    path = model_path.parent / POSTERIOR_CACHE / f"{data_dir.name}-{digest}.npz"
    n_words = sum(len(u.words) for u in utts)
    if path.is_file():
        try:
            with np.load(path) as z:
                probs = z["probs"]
            if probs.shape == (n_words, len(LABELS)):
                log.info("posteriors of %s on %s: from %s", model_path, data_dir, path)
                return probs.astype(np.float64)
        except (OSError, ValueError, KeyError) as e:
            log.warning("ignoring an unreadable posterior cache %s (%s)", path, e)
    probs = np.concatenate(posteriors(model_path, data_dir, utts)[1]).astype(np.float64)
    try:
        path.parent.mkdir(exist_ok=True)
        with atomic_write(path, mode="wb") as f:
            np.savez(f, probs=probs.astype(np.float32))
    except OSError as e:
        log.warning("posteriors of %s not cached (%s)", model_path, e)
    return probs


def tune_ensemble_weights(model_paths: Sequence[str | Path], dev_dir: str | Path, step: float = 0.1,
                          tuning: tuple | None = None) -> tuple[list[float], float, list[dict]]:
    """The weights of ``model_paths``' ensemble with the best overall F1 on ``dev_dir`` (which
    must have labels), over ``weight_grid``; returns (weights, their F1, one row per weighting).
    Equal weights are tried as well, and win ties. ``tuning``: ``tuning_posteriors`` of the
    same models and set, if already computed."""
    import numpy as np

    ref, probs = tuning if tuning is not None else tuning_posteriors(model_paths, dev_dir)
    n = len(probs)
    equal = tuple([1.0 / n] * n)
    rows, best, best_f1 = [], equal, -1.0
    for w in [equal] + [g for g in weight_grid(n, step) if not np.allclose(g, equal)]:
        f1 = overall_f1(ref, sum(x * p for x, p in zip(w, probs)).argmax(-1))
        rows.append({"weights": [round(x, 6) for x in w], "f1": round(f1, 3)})
        if f1 > best_f1 + 1e-9:
            best, best_f1 = w, f1
    log.info("ensemble weights tuned on %s (%d weightings): %s, overall F1 %.2f (equal weights: %.2f)",
             dev_dir, len(rows), " ".join(f"{x:.3g}" for x in best), best_f1, rows[0]["f1"])
    return list(best), best_f1, rows


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the contents of every Python file of the punct package: what decoding
    computes can change only with it."""
    import hashlib

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha1()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _file_identity(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def tuning_key(model_paths: Sequence[str | Path], dev_dir: str | Path, step: float) -> dict:
    """What tuned ensemble weights depend on: the members' files, the tuning set's text and
    labels (each by path, size and modification time) and the grid step."""
    dev = Path(dev_dir)
    return {"members": [_file_identity(Path(p)) for p in model_paths],
            "on": [_file_identity(dev / name) for name in ("text", "labels")], "step": step}


def read_weights_file(path: str | Path) -> dict:
    """A weights file: the JSON object that ``save_tuned_weights`` writes (or a
    ``decode_stats.json`` of an ensemble decode, whose ``tuned_weights`` holds one); its
    ``weights`` must be a list of positive numbers, and its ``bias``, if any, a
    {mark: number} object (``class_bias``)."""
    import math

    from punct.fsutil import loads_json

    path = Path(path)
    try:
        data = loads_json(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise PunctError(f"not a weights file (JSON with a 'weights' list): {e}", path) from None
    if isinstance(data, dict) and isinstance(data.get("tuned_weights"), dict):
        data = data["tuned_weights"]
    w = data.get("weights") if isinstance(data, dict) else None
    if not isinstance(w, list) or not w or not all(  # as ensemble_weights checks them, with the file named
            isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 and math.isfinite(x) for x in w):
        raise PunctError("not a weights file: it needs a 'weights' list of positive numbers", path)
    if "bias" in data:
        if not isinstance(data["bias"], dict):
            raise PunctError("not a weights file: its 'bias' must map marks to numbers", path)
        class_bias(data["bias"], source=path)
    return data


def load_tuned_weights(path: str | Path, key: dict) -> dict | None:
    """The record saved in ``path`` if it was tuned for ``key`` (the same members, tuning
    set and step, unchanged since), else None."""
    path = Path(path)
    if not path.is_file():
        return None
    data = read_weights_file(path)
    return data if data.get("key") == key and len(data["weights"]) == len(key["members"]) else None


def save_tuned_weights(path: str | Path, key: dict, tuned: dict) -> None:
    """Write TUNED (weights, bias) to PATH with the KEY they were tuned for, atomically."""
    import json

    from punct.fsutil import atomic_write

    with atomic_write(Path(path)) as f:
        json.dump(dict(tuned, key=key), f, indent=1)
        f.write("\n")


def punctuated_text(utt: Utterance) -> str:
    """``word word, word.``: each word followed by the mark of its label."""
    return " ".join(w.text + mark_of(w.label) for w in utt.words)


def write_decode(out_dir: str | Path, utts: list[Utterance]) -> None:
    """A data directory of the predictions (``text``, ``labels``, ...) plus ``text.punct``."""
    from punct.data.datadir import write_datadir
    from punct.data.tables import write_table

    out_dir = Path(out_dir)
    write_datadir(out_dir, utts)
    write_table(out_dir / "text.punct", {u.id: punctuated_text(u) for u in utts})
