"""Checkpoint files: model weights, config and vocabulary together, loadable on CPU.

``best.pt`` holds what decoding needs; ``checkpoint.pt`` adds the optimizer,
the training position and the RNG state. Keys: ``model``, ``model_args``,
``vocab`` (word list; empty for models that do not read word ids), ``inputs``
(the featurizer's state, punct.engine.inputs; absent in older files, which
read word ids), ``labels``, ``state_dict``, ``train_config``; a two-stage model
(punct.models.twostage) adds ``stage1_train_config`` and holds its stage one in
``model_args["stage1"]`` and the ``stage1.*`` weights; a model with a case head adds
``mixed_spellings`` (punct.data.datadir.mixed_spellings of its training set). Both load with ``weights_only=True``
(plain tensors, dicts, lists and numbers; no pickled objects).
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import torch

from punct.errors import PunctError
from punct.fsutil import atomic_write
from punct.text.labels import LABELS

FORMAT = "punct-model-1"


def save(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` with torch.save, atomically."""
    payload = dict(payload, format=FORMAT)
    with atomic_write(path, "wb", encoding=None) as f:
        torch.save(payload, f)


def load(path: str | Path, fill_stage1: bool = True, sha256: str | None = None) -> dict[str, Any]:
    """Read a checkpoint written by ``save`` onto the CPU. A second stage that names its stage
    one's file gets that file's weights (``_fill_stage1``) unless ``fill_stage1`` is False
    (a tool that rewrites the file as it is, punct.bin.set_bias). With ``sha256``, the bytes
    read must have that digest (hashed as they are read, so the file is read once)."""
    path = Path(path)
    from punct.fsutil import check_input

    check_input(path, "model file", "file")
    if path.stat().st_size == 0:
        raise PunctError("empty file, not a model (an interrupted copy?)", path)
    data = path.read_bytes()
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise PunctError("not the file it was trained on (sha256 differs): retrain or re-export the second stage",
                         path)
    try:
        import warnings

        with warnings.catch_warnings():  # a foreign pickle's protocol warning would precede the one-line error
            warnings.simplefilter("ignore", UserWarning)
            ck = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several types for a corrupt file, some over several lines
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        if lines and lines[0].startswith("Weights only load failed"):  # torch's advice; the reason is inside
            lines = [x for x in lines if not x.startswith(("Weights only", "Please file", "Check the doc"))] or lines
        why = lines[0][:200] if lines else type(e).__name__
        raise PunctError(f"not a readable model file (torch.load: {why})", path) from None
    if not isinstance(ck, dict) or ck.get("format") != FORMAT:
        raise PunctError(f"not a punct checkpoint (expected format {FORMAT})", path)
    if tuple(ck.get("labels", ())) != LABELS:
        raise PunctError(f"checkpoint labels {ck.get('labels')} differ from {list(LABELS)}", path)
    if ck.get("stage1_file") and fill_stage1:
        _fill_stage1(path, ck)
    return ck


def _fill_stage1(path: Path, ck: dict[str, Any]) -> None:
    """A second stage exported with ``--stage1-file`` (punct.bin.export) holds its own weights
    only; its ``stage1.*`` weights are those of the file it names, beside it, checked against
    the sha256 it recorded (so the pair decodes as it was trained)."""
    ref = ck["stage1_file"]
    other = path.parent / ref["file"]
    if not other.is_file():
        raise PunctError(f"its stage one {ref['file']} is missing beside it (the pair ships together)", path)
    try:
        first = load(other, sha256=ref["sha256"])
    except PunctError as e:  # named as its second stage's stage one
        raise PunctError(f"its stage one {other}: {e.message}", path) from None
    ck["state_dict"] = dict(ck["state_dict"], **{"stage1." + k: v for k, v in first["state_dict"].items()})
    if first.get("decision_bias"):  # words without times take stage one's decisions, its bias included
        ck["stage1_decision_bias"] = first["decision_bias"]


def load_model(path: str | Path):
    """(model in eval mode, vocabulary, checkpoint dict) from a best.pt/checkpoint.pt. A model
    with low-rank adapters has them merged into its encoder (a model to decode with, not to
    train on or save).

    The vocabulary is the Vocabulary for word-id models (as always) and the
    featurizer (punct.engine.inputs) for the others; both have ``encode(words)
    -> list[int]``, the ids ``punct.engine.decode.predict_streams`` takes. The
    featurizer is also attached to the model as ``model.punct_inputs``, which
    ``predict_streams`` uses to build the model's input tensors.
    """
    from punct.engine.inputs import WordInputs, inputs_from_checkpoint
    from punct.models import build_model

    ck = load(path)
    inputs = inputs_from_checkpoint(ck)
    model = build_model(ck["model"], ck["model_args"], inputs.input_size)
    model.load_state_dict(ck["state_dict"])
    model.eval()
    if any("lora_" in k for k in ck["state_dict"]):  # low-rank adapters: folded into their weights for decoding
        from punct.models.adapters import merge_lora

        merge_lora(model)
    model.punct_inputs = inputs
    #: which checkpoint this is (what a decode's statistics name)
    model.punct_info = {k: ck.get(k) for k in ("model", "epoch", "averaged_epochs")}
    from punct.text.labels import bias_offset, mark_offset

    model.punct_logit_offset = mark_offset((ck.get("train_config") or {}).get("mark_weights"))
    #: the decision bias tuned for this file (punct.bin.set_bias): its labels, not its posteriors
    model.punct_decision_bias = bias_offset(ck.get("decision_bias"))
    if hasattr(model, "set_stage1_marks"):  # a second stage's fallback decides as its stage one
        model.set_stage1_marks(ck.get("stage1_train_config"), ck.get("stage1_decision_bias"), ck.get("decision_bias"))
    return model, (inputs.vocab if isinstance(inputs, WordInputs) else inputs), ck
