"""Where decoding windows start and end, without torch: how many of a window's predictions
to accept (punct.engine.decode's module docstring) and the window a checkpoint asks for.
Shared by the torch decoder and the ONNX runtime (punct.engine.runtime)."""
from __future__ import annotations

from typing import Sequence

from punct.labels import PERIOD, QUESTION, SENTENCE_END, label_id

_EOS = frozenset(label_id(lab) for lab in SENTENCE_END)


def decode_window_of(train_config: dict) -> int:
    """The decoding window a checkpoint's training config asks for: ``decode_window``,
    else its training slice length."""
    return int(train_config.get("decode_window") or train_config.get("slice_length", 200))


def accept_count(pred: Sequence[int], at_end: bool) -> int:
    """How many predictions of a window to accept (see punct.engine.decode's module docstring)."""
    n = len(pred)
    if at_end:
        return n
    for k in range(n - 2, -1, -1):
        if pred[k] in _EOS:
            return max(k + 1, n // 2)
    return max(1, n - 1)


def sentence_end_label(probs, bias=None) -> str:
    """PERIOD or QUESTION, whichever of the two has the higher log posterior plus ``bias``
    (punct.engine.decode.class_bias, [len(LABELS)]) in ``probs`` [len(LABELS)]: the mark that
    ends an input, where a sentence ends whatever the model's argmax (ties go to PERIOD)."""
    import numpy as np

    p = np.log(np.maximum(np.asarray(probs, dtype=np.float64), 1e-30))
    b = np.zeros(len(p)) if bias is None else np.asarray(bias, dtype=np.float64)
    q, d = label_id(QUESTION), label_id(PERIOD)
    return QUESTION if p[q] + b[q] > p[d] + b[d] else PERIOD
