"""The runtime that runs a model for ``punct restore``: torch, or ONNX Runtime without torch.

``PUNCT_RUNTIME`` (or ``punct restore --runtime``) chooses: ``torch``; ``torch-bf16`` (torch
with its matrix products in bfloat16, torch.autocast: on a CPU with native bfloat16
(AVX512-BF16, AMX) about twice as fast for the transformer taggers, and not exactly the same
labels, so only on request); ``onnx`` (float32
graph); ``onnx-int8`` (its weights quantized to int8 by onnxruntime's dynamic
quantization: smaller, and not the same labels, so only on request); ``auto`` (the
default): ``onnx`` when onnxruntime is installed and the model's family exports
(``ONNX_MODELS``), ``torch-bf16`` for the transformer taggers (``BF16_MODELS``) on a CPU with
native bfloat16, else ``torch``.

The ONNX graph is exported from the checkpoint once (torch is needed then) and cached
outside the repository as ``$PUNCT_CACHE/onnx/<sha256 of the model file>[.int8].onnx``
(``PUNCT_CACHE``, default ``~/.cache/punct``; ``PUNCT_ONNX_DIR`` names the folder itself),
written atomically; a changed model file has another digest and so another graph, and a cached file that does not load, or whose
recorded digest is not its name's, is exported again. A cache folder that cannot be written
(a read-only home in a container) gets a warning, and the graph is exported for the run only.
The graph takes the word ids, the window lengths and, for a model with per-word features, their raw values (the featurizer's
``select`` rows: normalization and the missing flag are inside the graph), and returns the
logits (and, for a model with a case head, its case logits as a second output); the
featurizer's state, the vocabulary, the decoding window and the spellings of the mixed case
travel in the graph's metadata, so a later run loads onnxruntime and numpy only.

Two parts of the torch model are traced in a form that exports with the same results
up to float rounding: the additive attention's scores are computed in a scripted loop over
blocks of ``ATTENTION_CHUNK`` queries (the blocked loop of punct.models.layers would be
unrolled for the traced input's shape), each a matrix product with the attention vector,
which onnxruntime runs faster than a broadcast product; the
bidirectional GRU always packs its rows (the same states when all rows are full), so
that one graph serves windows of any lengths.
"""
from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from punct.errors import PunctError
from punct.fsutil import file_sha256

log = logging.getLogger(__name__)

RUNTIMES = ("auto", "onnx", "onnx-int8", "torch", "torch-bf16")
#: the model families whose graphs export and are checked against torch (tests/engine/test_runtime.py)
ONNX_MODELS = frozenset({"tbrnn", "tbrnn_pre", "ta_brnn", "drnn_lwma", "drnn_lwma_pre", "ta_drnn"})
#: the families that ``auto`` runs as torch-bf16 on a CPU with native bfloat16: the transformer
#: taggers (the accurate tier and its second stage), about twice as fast with the same F1 (on
#: test2011, 5 of 12,626 labels differ from float32 torch: RESULTS.md, the accurate tier's runtimes);
#: their graphs gain nothing on ONNX Runtime, and int8 weights change their states too much
BF16_MODELS = frozenset({"transformer_tagger", "ta_transformer"})
FORMAT = "punct-onnx-1"
OPSET = 17
#: windows per batch of a graph in punct restore: the exported attention's blocks are sized for
#: one window (``ATTENTION_CHUNK``), and larger batches cost more CPU per word (on the 33
#: Earnings-21 calls, 7,600 words per CPU second one at a time, 5,500 in batches of 64)
ONNX_BATCH = 1
#: the most windows per batch torch runs by default (a checkpoint trained in smaller batches
#: decodes in those): decoding test2011 with the default model on one thread gave about 2,400
#: words per CPU second one window at a time, 4,200 in 4s and 4,900-5,500 from 8 to 128, the
#: same labels at every size (benchmarks/bench_feeder.py, RESULTS.md "One feeder"); 32 is on
#: that plateau and holds fewer windows in memory than 128
TORCH_BATCH = 32


def bf16_by_default(ck: dict) -> bool:
    """Whether "auto" runs the model of checkpoint ``ck`` in bfloat16: a transformer tagger on
    a CPU that has it natively (restore's auto runtime and the teacher's posteriors agree)."""
    from punct.engine.device import native_bf16

    return ck.get("model") in BF16_MODELS and native_bf16()


def runtime_choice(name: str | None = None) -> str:
    """``name``, else ``$PUNCT_RUNTIME``, else ``auto``; a PunctError for an unknown one."""
    name = name or os.environ.get("PUNCT_RUNTIME", "") or "auto"
    if name not in RUNTIMES:
        raise PunctError(f"unknown runtime {name!r} (PUNCT_RUNTIME or --runtime: one of {', '.join(RUNTIMES)})")
    return name


def onnx_available() -> bool:
    """True when onnxruntime can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None


def cache_dir() -> Path:
    """The folder of cached graphs: ``$PUNCT_ONNX_DIR``, else ``$PUNCT_CACHE/onnx`` (``~/.cache/punct``)."""
    if os.environ.get("PUNCT_ONNX_DIR"):
        return Path(os.environ["PUNCT_ONNX_DIR"])
    return Path(os.environ.get("PUNCT_CACHE") or Path.home() / ".cache" / "punct") / "onnx"


def onnx_path(digest: str, int8: bool = False) -> Path:
    """Where the graph of the model file with sha256 ``digest`` is cached."""
    return cache_dir() / f"{digest}{'.int8' if int8 else ''}.onnx"


# ----------------------------------------------------------------------------- export

def export_onnx(model_path: str | Path, out: str | Path, digest: str | None = None, int8: bool = False) -> Path:
    """Export the checkpoint ``model_path`` to the ONNX graph ``out`` (atomically), checked
    against torch on a random batch (same labels); ``int8`` quantizes its weights after."""
    import tempfile

    from punct.engine import onnx_export
    from punct.fsutil import atomic_write

    t0 = time.monotonic()
    digest = digest or file_sha256(model_path)
    with tempfile.TemporaryDirectory(prefix="punct-onnx-") as tmp:
        raw = Path(tmp) / "model.onnx"
        try:
            args, want = onnx_export.export(model_path, raw, {"format": FORMAT, "source_sha256": digest, "int8": int8},
                                            ONNX_MODELS, OPSET)
        except (PunctError, OSError):
            raise
        except Exception as e:  # the tracer's or onnx's errors: not a user's input error, but auto falls back on it
            lines = [x for x in str(e).strip().splitlines() if x.strip()]
            raise PunctError(f"ONNX export failed ({type(e).__name__}: {lines[0][:160] if lines else ''})",
                             model_path) from None
        if int8:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            q = Path(tmp) / "model.int8.onnx"
            quantize_dynamic(str(raw), str(q), weight_type=QuantType.QInt8)
            raw = q
        got = OnnxModel(raw, expect_digest=digest).run(*args)
        mask = np.arange(args[0].shape[1])[None, :] < args[1][:, None]
        for what, g, w in (("labels", got[0], want[0]), ("case classes", got[1], want[1])):
            agree = 1.0 if w is None else float((g.argmax(-1) == w)[mask].mean())
            if agree < 1.0 and not int8:
                raise PunctError(f"the exported graph's {what} differ from torch's on {1 - agree:.1%} of a test batch",
                                 model_path)
        data = raw.read_bytes()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(out, "wb", encoding=None) as f:
        f.write(data)
    log.info("exported %s to ONNX%s in %.1f s: %s", model_path, " (int8)" if int8 else "", time.monotonic() - t0, out)
    return out


# ----------------------------------------------------------------------------- running

class OnnxModel:
    """An exported graph in an onnxruntime session: ``logits(ids, lengths[, feats])``, and what
    the restorer needs beside it (``punct_inputs``, ``vocab``, ``window``, ``batch_size``)."""

    runtime = "onnx"

    def __init__(self, path: str | Path, threads: int = 1, expect_digest: str | None = None):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
            meta = json.loads(self.session.get_modelmeta().custom_metadata_map["punct"])
        except Exception as e:  # onnxruntime raises its own types for an unreadable file
            raise PunctError(f"not a readable punct ONNX graph ({type(e).__name__}: {str(e).strip()[:160]})", path) from None
        if meta.get("format") != FORMAT or (expect_digest is not None and meta.get("source_sha256") != expect_digest):
            raise PunctError("an ONNX graph of another model or format", path)
        from punct.engine.inputs import inputs_from_checkpoint

        self.path = Path(path)
        self.meta = meta
        self.int8 = bool(meta.get("int8"))
        self.punct_inputs = inputs_from_checkpoint({"inputs": meta["inputs"], "vocab": meta["vocab"]})
        self.vocab = getattr(self.punct_inputs, "vocab", self.punct_inputs)
        self.window = int(meta["window"])
        self.batch_size = int(meta["batch_size"])
        self.columns = bool(getattr(self.punct_inputs, "columns", None))
        #: the graph's second output is the case head's logits (punct.text.labels.CASES)
        self.case_head = bool(meta.get("case_head"))
        self.mixed_spellings = dict(meta.get("mixed_spellings") or {})
        self.case_lexicon = dict(meta.get("case_lexicon") or {})
        from punct.text.labels import mark_offset

        #: the log-odds correction of a model trained with mark_weights (punct.engine.infer.run_batch)
        self.punct_logit_offset = mark_offset(meta.get("mark_weights"))
        from punct.text.labels import bias_offset

        #: the decision bias of the file it was exported from (punct.bin.set_bias)
        self.punct_decision_bias = bias_offset(meta.get("decision_bias"))
        #: which checkpoint this is (punct.engine.checkpoint.load_model sets the same on a torch model)
        self.punct_info = {k: meta.get(k) for k in ("model", "epoch", "averaged_epochs")}

    def run(self, ids: np.ndarray, lengths: np.ndarray, feats: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray | None]:
        """(float32 logits [B,T,len(LABELS)], case logits [B,T,len(CASES)] or None without a case
        head) for int ids [B,T], lengths [B] (and raw feats [B,T,F+1])."""
        f = {"ids": np.asarray(ids, dtype=np.int64), "lengths": np.asarray(lengths, dtype=np.int64)}
        if self.columns:
            if feats is None:
                raise PunctError("this model reads per-word features (pause): none were given with the words")
            f["feats"] = np.asarray(feats, dtype=np.float32)
        out = self.session.run(None, f)
        return out[0], (out[1] if self.case_head else None)

    def logits(self, ids: np.ndarray, lengths: np.ndarray, feats: np.ndarray | None = None) -> np.ndarray:
        """The mark logits of ``run``."""
        return self.run(ids, lengths, feats)[0]


def load_onnx(model_path: str | Path, threads: int = 1, int8: bool = False) -> OnnxModel:
    """The cached graph of ``model_path`` in a session, exported first when it is missing,
    of another model or unreadable (module docstring)."""
    digest = file_sha256(model_path)
    path = onnx_path(digest, int8)
    if path.is_file():
        try:
            return OnnxModel(path, threads, expect_digest=digest)
        except PunctError as e:
            log.warning("%s; exporting it again", e)
    if not _writable_dir(path.parent):  # a read-only home (a container), a PUNCT_CACHE that is no folder
        import tempfile

        log.warning("the ONNX cache %s cannot be written: the graph is exported for this run only (set "
                    "PUNCT_CACHE to a writable folder to keep it)", path.parent)
        with tempfile.TemporaryDirectory(prefix="punct-onnx-") as tmp:
            return OnnxModel(export_onnx(model_path, Path(tmp) / path.name, digest, int8=int8), threads,
                             expect_digest=digest)
    export_onnx(model_path, path, digest, int8=int8)
    return OnnxModel(path, threads, expect_digest=digest)


def _writable_dir(d: Path) -> bool:
    """True when folder ``d`` exists or can be made, and takes new files."""
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(d, os.W_OK | os.X_OK)


def load_for_restore(model_path: str | Path, runtime: str | None = None, threads: int = 1
                     ) -> tuple[Any, Any, dict[str, int], str]:
    """(model, vocabulary or featurizer, {"window", "batch_size"} defaults, runtime used) for
    punct.restore: an OnnxModel, or the torch model of punct.engine.checkpoint.load_model."""
    choice = runtime_choice(runtime)
    if not choice.startswith("torch"):
        if not onnx_available():
            if choice != "auto":
                raise PunctError(f"runtime {choice} needs onnxruntime (pip install onnxruntime), or use PUNCT_RUNTIME=torch")
        else:
            try:
                m = load_onnx(model_path, threads, int8=choice == "onnx-int8")
                return m, m.vocab, {"window": m.window, "batch_size": ONNX_BATCH, "mixed_spellings": m.mixed_spellings,
                                    "case_lexicon": m.case_lexicon}, \
                    choice if choice != "auto" else "onnx"
            except PunctError as e:
                if choice != "auto":
                    raise
                log.info("ONNX runtime not used (%s): torch runs the model", e)
    import torch

    from punct.engine.checkpoint import load_model
    from punct.engine.infer import decode_window_of

    torch.set_num_threads(max(1, int(threads)))
    from punct.engine.device import native_bf16

    model, vocab, ck = load_model(model_path)
    used = "torch" if choice == "auto" else choice
    if choice == "auto" and bf16_by_default(ck):
        used = "torch-bf16"
    if used == "torch-bf16":
        if not native_bf16():
            log.warning("runtime torch-bf16 on a CPU without native bfloat16 (AVX512-BF16 or AMX): it will be slower "
                        "than torch")
        model.punct_bf16 = True  # punct.engine.infer.run_batch runs it under torch.autocast
    tc = ck.get("train_config", {}) or {}
    return model, vocab, {"window": decode_window_of(tc), "batch_size": min(int(tc.get("batch_size", 32)), TORCH_BATCH),
                          "mixed_spellings": ck.get("mixed_spellings"), "case_lexicon": ck.get("case_lexicon")}, used
