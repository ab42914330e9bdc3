"""Export of a checkpoint to an ONNX graph for punct.engine.runtime (whose module docstring
says what the graph takes and returns, and why two parts of the model are traced in
another form). Needs torch and onnx; the runtime that runs the graph needs neither."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Iterator, List

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from punct.errors import PunctError

log = logging.getLogger(__name__)

#: queries per step of the exported attention: [B,8,J,A] values stay in the cache (about 1.6 MB for
#: T-BRNN's 200-word windows and A = 256), 1.8 times faster than one [B,T,J,A] pass in onnxruntime
ATTENTION_CHUNK = 8


def _chunked_scores(P, Q, w, chunk: int):
    """``w . tanh(P[b,j] + Q[b,t])`` [B,T,J], ``chunk`` queries at a time (scripted: an ONNX Loop)."""
    outs: List[torch.Tensor] = []
    wc = w.unsqueeze(1)
    for t0 in range(0, Q.shape[1], chunk):
        Z = torch.tanh(P.unsqueeze(1) + Q[:, t0 : t0 + chunk].unsqueeze(2))  # [B,c,J,A]
        outs.append(torch.matmul(Z.reshape(-1, Z.shape[-1]), wc).reshape(Z.shape[0], Z.shape[1], Z.shape[2]))
    return torch.cat(outs, 1)


@contextlib.contextmanager
def _exportable() -> Iterator[None]:
    """The attention scores in one pass and the BiGRU always packed, while tracing (module docstring)."""
    from punct.models import layers, tbrnn

    chunked = torch.jit.script(_chunked_scores)

    def scores(P, Q, w, block=0, compiled=None):
        return chunked(P, Q, w, ATTENTION_CHUNK)

    def packed(self, x, lengths):
        packed_x = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        return pad_packed_sequence(self.rnn(packed_x)[0], batch_first=True, total_length=x.shape[1])[0]

    saved = tbrnn.additive_scores, layers.BiGRU.forward
    tbrnn.additive_scores, layers.BiGRU.forward = scores, packed
    try:
        yield
    finally:
        tbrnn.additive_scores, layers.BiGRU.forward = saved


def _graph_module(model, inputs, case: bool):
    """``model`` behind the graph's inputs: ids [B,T], lengths [B] (+ raw feats [B,T,F+1]);
    it returns the logits, and with ``case`` the case head's logits too."""
    columns = bool(getattr(inputs, "columns", None))

    class Graph(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model
            if columns:
                self.register_buffer("mean", torch.from_numpy(np.asarray(inputs.mean, np.float32)))
                self.register_buffer("std", torch.from_numpy(np.maximum(inputs.std, inputs.SD_FLOOR).astype(np.float32)))

        def forward(self, ids, lengths, feats=None):
            mask = torch.arange(ids.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
            if not columns:
                return self.model(ids=ids, mask=mask, return_case=True) if case else self.model(ids=ids, mask=mask)
            missing = (feats[..., -1] > 0.5) | ~mask  # as FeatureInputs.tensors
            x = feats[..., :-1]
            if inputs.normalize:
                x = (x - self.mean) / self.std
            kw = {"feats": x.masked_fill(missing.unsqueeze(-1), 0.0), "feat_missing": missing}
            return self.model(ids=ids, mask=mask, **kw, return_case=True) if case else self.model(ids=ids, mask=mask, **kw)

    return Graph().eval(), columns


@contextlib.contextmanager
def warnings_quiet() -> Iterator[None]:
    """torch.onnx's tracer warnings (the traced shapes of a model with dynamic axes) are not the user's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


#: a warning of torch's C++ side (c10's format): ``[W1129 09:53:50.77 shape_type_inference.cpp:1994] Warning: ...``
_NATIVE_WARNING = re.compile(r"\[W\d{4} [\d:.]+ [^\]]*\] Warning: ")


@contextlib.contextmanager
def native_warnings_quiet() -> Iterator[None]:
    """The tracer's C++ shape-inference warnings (prim::PackPadded has none) are written to file
    descriptor 2, past Python's filters: catch it meanwhile, log those at debug level and pass
    every other line on, so that a real error stays visible."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = []
            for line in caught.read().decode("utf-8", "replace").splitlines(keepends=True):
                if _NATIVE_WARNING.match(line):
                    log.debug("torch: %s", line.rstrip())
                else:
                    kept.append(line)
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()


def export(model_path: str | Path, out: str | Path, meta: dict[str, Any], families, opset: int
           ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray | None]]:
    """Write the graph of checkpoint ``model_path`` to ``out`` with ``meta`` and what the runtime
    needs (featurizer state, vocabulary, window, batch size, case head) as its metadata ``punct``;
    returns a test batch (the graph's inputs) and torch's labels and case classes (None without a
    case head) for it, to check the graph against."""
    try:
        import onnx
    except ImportError:
        raise PunctError("exporting a model to ONNX needs the onnx package (requirements.txt)") from None

    from punct.engine.checkpoint import load_model
    from punct.engine.infer import decode_window_of

    from punct.engine import checkpoint as ckpt

    family = ckpt.load(model_path)["model"]  # before building it: an encoder's model takes seconds
    if family not in families:
        raise PunctError(f"the ONNX runtime runs {', '.join(sorted(families))}, not {family} "
                         f"(use PUNCT_RUNTIME=torch)", model_path)
    model, _, ck = load_model(model_path)
    case = bool(getattr(model, "case_head", False))  # a second stage's is its stage one's
    inputs = model.punct_inputs
    graph, columns = _graph_module(model, inputs, case)
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(3, max(4, int(inputs.input_size)), (3, 12), generator=g)
    lengths = torch.tensor([12, 7, 1])
    args: tuple = (ids, lengths)
    names = ["ids", "lengths"]
    axes: dict[str, dict[int, str]] = {"ids": {0: "batch", 1: "words"}, "lengths": {0: "batch"},
                                       "logits": {0: "batch", 1: "words"}}
    if columns:
        feats = torch.rand(3, 12, inputs.n_feats + 1, generator=g)
        feats[..., -1] = (torch.rand(3, 12, generator=g) < 0.3).float()
        args += (feats,)
        names.append("feats")
        axes["feats"] = {0: "batch", 1: "words"}
    with warnings_quiet(), native_warnings_quiet(), _exportable(), torch.no_grad():
        outputs = ["logits", "case_logits"] if case else ["logits"]
        if case:
            axes["case_logits"] = {0: "batch", 1: "words"}
        torch.onnx.export(graph, args, str(out), dynamo=False, input_names=names, output_names=outputs,
                          dynamic_axes=axes, opset_version=opset)
        got = graph(*args)
        logits, case_logits = got if case else (got, None)
        want = (logits.argmax(-1).numpy(), None if case_logits is None else case_logits.argmax(-1).numpy())
    proto = onnx.load(str(out))
    tc = ck.get("train_config", {}) or {}
    entry = proto.metadata_props.add()
    entry.key = "punct"
    entry.value = json.dumps(dict(meta, model=ck["model"], inputs=ck.get("inputs") or {"kind": "words"},
                                  vocab=list(ck.get("vocab") or []), window=decode_window_of(tc),
                                  batch_size=min(int(tc.get("batch_size", 32)), 64), case_head=case,
                                  mixed_spellings=ck.get("mixed_spellings") or {},
                                  case_lexicon=ck.get("case_lexicon") or {},
                                  mark_weights=tc.get("mark_weights") or {}, epoch=ck.get("epoch"),
                                  decision_bias=ck.get("decision_bias") or {},
                                  averaged_epochs=ck.get("averaged_epochs")))
    onnx.save(proto, str(out))
    return tuple(a.numpy() for a in args), want
