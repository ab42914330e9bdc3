"""punct.engine.onnx_export: a tiny T-BRNN checkpoint written as a graph that ONNX Runtime runs to
torch's labels, with what the runtime needs as its metadata; the tracer's warnings dropped."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


def test_native_warnings_are_dropped_and_other_lines_kept(capfd):
    from punct.engine.onnx_export import native_warnings_quiet

    with pytest.raises(RuntimeError), native_warnings_quiet():
        os.write(2, b"[W1129 09:53:50.770484219 shape_type_inference.cpp:1994] Warning: no shape (function f)\n")
        os.write(2, b"[E1129 09:53:50.770484219 export.cpp:12] an error\n")
        raise RuntimeError("the export failed")
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "[E1129 09:53:50.770484219 export.cpp:12] an error\nafter\n"


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Windows of a few words on one torch thread (tests/conftest.py)."""


def test_the_graph_gives_torchs_labels_and_carries_what_the_runtime_needs(tmp_path):
    import json

    import onnx
    import onnxruntime as ort

    from punct.engine.onnx_export import export
    from tests.tiny_models import WORDS, make_tiny_model

    make_tiny_model(tmp_path / "tiny.pt", window=12)
    (ids, lengths), (labels, case) = export(tmp_path / "tiny.pt", tmp_path / "tiny.onnx", {"note": "a test"},
                                            {"tbrnn"}, 17)
    assert ids.shape == (3, 12) and lengths.tolist() == [12, 7, 1] and case is None
    sess = ort.InferenceSession(str(tmp_path / "tiny.onnx"), providers=["CPUExecutionProvider"])
    (logits,) = sess.run(None, {"ids": ids, "lengths": lengths})
    for row, n in enumerate(lengths):
        assert (logits[row, :n].argmax(-1) == labels[row, :n]).all()
    meta = json.loads({p.key: p.value for p in onnx.load(str(tmp_path / "tiny.onnx")).metadata_props}["punct"])
    assert (meta["note"], meta["model"], meta["window"], meta["case_head"]) == ("a test", "tbrnn", 12, False)
    assert set(WORDS) <= set(meta["vocab"])


def test_a_family_the_runtime_does_not_run_is_refused_before_it_is_built(tmp_path):
    from punct.engine.onnx_export import export
    from punct.errors import PunctError
    from tests.tiny_models import make_tiny_model

    make_tiny_model(tmp_path / "tiny.pt")
    with pytest.raises(PunctError, match="the ONNX runtime runs ta_brnn, not tbrnn"):
        export(tmp_path / "tiny.pt", tmp_path / "tiny.onnx", {}, {"ta_brnn"}, 17)
    assert not (tmp_path / "tiny.onnx").exists()
