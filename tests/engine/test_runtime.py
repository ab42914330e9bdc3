"""punct.engine.runtime: the choice of runtime, the cache of exported graphs, and the same
labels (and, with a case head, the same case) from ONNX Runtime as from torch on a tiny TA-BRNN-p."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from punct.engine import runtime
from punct.errors import PunctError
from punct.fsutil import file_sha256
from tests.tiny_models import TA_WORDS as WORDS, make_ta_brnn_p

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PUNCT_ONNX_DIR", str(tmp_path / "onnx"))
    return tmp_path / "onnx"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("model") / "ta.pt"
    make_ta_brnn_p(p)
    return p


def write_ctm(path, n=60, seed=3):
    rng = np.random.default_rng(seed)
    t, lines = 0.0, []
    for i in range(n):
        lines.append(f"call A {t:.2f} 0.30 {WORDS[rng.integers(len(WORDS))].upper()}\n")
        t += 0.3 + float(rng.choice([0.0, 0.05, 0.8]))
    path.write_text("".join(lines))
    return path


def test_runtime_choice(monkeypatch):
    monkeypatch.delenv("PUNCT_RUNTIME", raising=False)
    assert runtime.runtime_choice() == "auto"
    monkeypatch.setenv("PUNCT_RUNTIME", "onnx")
    assert runtime.runtime_choice() == "onnx"
    assert runtime.runtime_choice("torch") == "torch"  # the option wins over the environment
    with pytest.raises(PunctError, match="unknown runtime 'tensorflow'"):
        runtime.runtime_choice("tensorflow")


def test_auto_prefers_onnx_and_falls_back_to_torch(model_file, cache, monkeypatch):
    model, _, defaults, used = runtime.load_for_restore(model_file, "auto")
    assert used == "onnx" and isinstance(model, runtime.OnnxModel)
    assert defaults == {"window": 12, "batch_size": runtime.ONNX_BATCH, "mixed_spellings": {}, "case_lexicon": {}}
    monkeypatch.setattr(runtime, "onnx_available", lambda: False)
    model, _, defaults, used = runtime.load_for_restore(model_file, "auto")
    assert used == "torch" and isinstance(model, torch.nn.Module) and defaults["window"] == 12
    with pytest.raises(PunctError, match="needs onnxruntime"):
        runtime.load_for_restore(model_file, "onnx")


def test_the_case_lexicon_goes_with_the_graph(model_file, cache, tmp_path):
    from punct.engine import checkpoint

    ck = checkpoint.load(model_file)
    ck["case_lexicon"] = {"ceo": "UPPER"}
    checkpoint.save(tmp_path / "lex.pt", ck)
    for choice in ("onnx", "torch"):
        _, _, defaults, _ = runtime.load_for_restore(tmp_path / "lex.pt", choice)
        assert defaults["case_lexicon"] == {"ceo": "UPPER"}, choice


def test_a_family_that_does_not_export_runs_on_torch_in_auto(tmp_path, cache):
    from tests.tiny_models import make_pause_model

    make_pause_model(tmp_path / "pause.pt")
    assert runtime.load_for_restore(tmp_path / "pause.pt", "auto")[3] == "torch"
    with pytest.raises(PunctError, match="not che_pause"):
        runtime.load_for_restore(tmp_path / "pause.pt", "onnx")


def test_the_graph_is_exported_once_and_again_for_a_changed_or_corrupt_file(tmp_path, cache, monkeypatch):
    m = tmp_path / "m.pt"
    make_ta_brnn_p(m, seed=1)
    runtime.load_onnx(m)
    first = runtime.onnx_path(file_sha256(m))
    assert first.is_file() and first.parent == cache
    calls = []
    real = runtime.export_onnx
    monkeypatch.setattr(runtime, "export_onnx", lambda *a, **k: calls.append(a) or real(*a, **k))
    runtime.load_onnx(m)
    assert calls == []  # cached: loaded, not exported
    make_ta_brnn_p(m, seed=2)  # another model under the same name
    runtime.load_onnx(m)
    second = runtime.onnx_path(file_sha256(m))
    assert len(calls) == 1 and second != first and second.is_file()
    second.write_bytes(b"not a graph")  # an interrupted copy, a full disk
    g = runtime.load_onnx(m)
    assert len(calls) == 2 and g.logits(np.array([[3, 4]]), np.array([2]), np.zeros((1, 2, 2), np.float32)).shape == (1, 2, 4)
    first.replace(second)  # a graph of another model under this model's name
    runtime.load_onnx(m)
    assert len(calls) == 3


@pytest.mark.parametrize("where", ["file", "proc"])
def test_a_cache_that_cannot_be_written_exports_for_the_run(model_file, tmp_path, monkeypatch, caplog, where):
    """A cache folder that cannot be made or written (a read-only home in a container, PUNCT_CACHE
    naming a file): a warning, and the graph exported for this run only; it was an error
    ('error: /proc/nope: file not found') and restore did not run."""
    import logging

    bad = tmp_path / "a-file" if where == "file" else "/proc/punct-no-such-cache"
    if where == "file":
        bad.write_text("x")
    monkeypatch.delenv("PUNCT_ONNX_DIR", raising=False)
    monkeypatch.setenv("PUNCT_CACHE", str(bad))
    with caplog.at_level(logging.WARNING):
        model, _, _, used = runtime.load_for_restore(model_file, "onnx")
    assert used == "onnx" and isinstance(model, runtime.OnnxModel)
    assert "cannot be written: the graph is exported for this run only" in caplog.text
    assert model.logits(np.array([[3, 4]]), np.array([2]), np.zeros((1, 2, 2), np.float32)).shape == (1, 2, 4)
    if where == "file":
        assert bad.read_text() == "x"


@pytest.mark.parametrize("bidirectional,stage1", [(False, "tbrnn"), (True, "tbrnn"), (True, "drnn_lwma_pre")])
def test_onnx_gives_torch_labels_and_logits(model_file, cache, tmp_path, bidirectional, stage1):
    """Rows of other lengths in one batch: a bidirectional second stage's backward pass starts at
    each row's own last word in the graph as in torch; a DRNN-LWMA stage one exports too."""
    from punct.engine.checkpoint import load_model

    if bidirectional:
        model_file = tmp_path / "bi.pt"
        make_ta_brnn_p(model_file, seed=5, bidirectional=True, stage1=stage1)
    tmodel, _, _ = load_model(model_file)
    g = runtime.load_onnx(model_file)
    rng = np.random.default_rng(0)
    for lengths in ([12], [12, 5, 1], [3, 3]):
        T = max(lengths)
        ids = rng.integers(3, len(WORDS) + 3, (len(lengths), T))
        feats = rng.random((len(lengths), T, 2)).astype(np.float32)
        feats[..., 1] = rng.random((len(lengths), T)) < 0.3  # words without a measured pause
        want = tmodel(**tmodel.punct_inputs.tensors(ids, np.array(lengths), feats=feats)).detach().numpy()
        got = g.logits(ids, np.array(lengths), feats)
        for r, n in enumerate(lengths):
            np.testing.assert_allclose(got[r, :n], want[r, :n], atol=1e-4)
            assert (got[r, :n].argmax(-1) == want[r, :n].argmax(-1)).all()


def test_restore_on_onnx_equals_torch_on_a_ctm(model_file, cache, tmp_path):
    from punct.restore import restore_file

    ctm = write_ctm(tmp_path / "call.ctm", n=80)
    a = restore_file(ctm, tmp_path / "torch.ctm", model=model_file, runtime="torch")
    b = restore_file(ctm, tmp_path / "onnx.ctm", model=model_file, runtime="onnx")
    labels = [w.label for u in a for w in u.words]
    assert len(set(labels)) > 1  # the tiny model predicts marks, so the comparison means something
    assert [w.label for u in b for w in u.words] == labels
    assert (tmp_path / "torch.ctm").read_text() == (tmp_path / "onnx.ctm").read_text()


def test_parallel_segments_on_onnx_equal_torch_on_a_long_ctm(model_file, cache, tmp_path):
    from punct.restore import restore_file

    ctm = write_ctm(tmp_path / "call.ctm", n=400)  # 400 words, window 12: cut into three segments
    a = restore_file(ctm, tmp_path / "torch.ctm", model=model_file, runtime="torch", workers=3)
    b = restore_file(ctm, tmp_path / "onnx.ctm", model=model_file, runtime="onnx", workers=3)
    c = restore_file(ctm, tmp_path / "one.ctm", model=model_file, runtime="onnx", workers=1)
    labels = [w.label for u in a for w in u.words]
    assert len(set(labels)) > 1 and [w.label for u in b for w in u.words] == labels
    assert len([w for u in c for w in u.words]) == len(labels)


@pytest.mark.parametrize("stage1", ["tbrnn", "drnn_lwma_pre"])
def test_a_case_head_runs_on_onnx_with_torch_marks_and_case(cache, tmp_path, stage1):
    from punct.engine.checkpoint import load_model
    from punct.restore import restore_file

    m = tmp_path / "case.pt"
    make_ta_brnn_p(m, seed=4, case=True, mixed={"revenue": "ReVenue"}, stage1=stage1)
    tmodel, _, _ = load_model(m)
    assert tmodel.case_head
    g = runtime.load_onnx(m)
    assert g.case_head and g.mixed_spellings == {"revenue": "ReVenue"}
    rng = np.random.default_rng(5)
    ids = rng.integers(3, len(WORDS) + 3, (2, 12))
    feats = rng.random((2, 12, 2)).astype(np.float32)
    lengths = np.array([12, 7])
    want, want_case = (x.detach().numpy() for x in tmodel(**tmodel.punct_inputs.tensors(ids, lengths, feats=feats),
                                                           return_case=True))
    got, got_case = g.run(ids, lengths, feats)
    for r, n in enumerate(lengths):
        np.testing.assert_allclose(got_case[r, :n], want_case[r, :n], atol=1e-4)
        assert (got_case[r, :n].argmax(-1) == want_case[r, :n].argmax(-1)).all()
        assert (got[r, :n].argmax(-1) == want[r, :n].argmax(-1)).all()
    ctm = write_ctm(tmp_path / "call.ctm", n=120)
    a = restore_file(ctm, tmp_path / "torch.txt", model=m, runtime="torch")
    b = restore_file(ctm, tmp_path / "onnx.txt", model=m, runtime="onnx")
    spelled = [w.written for u in a for w in u.words]
    assert len({w.label for u in a for w in u.words}) > 1  # the marks vary, so the comparison means something
    assert [(w.label, w.written) for u in b for w in u.words] == [(w.label, w.written) for u in a for w in u.words]
    assert (tmp_path / "torch.txt").read_text() == (tmp_path / "onnx.txt").read_text()
    assert any(s.isupper() and len(s) > 2 for s in spelled)  # the case head's classes reach the output


def test_a_cached_graph_restores_without_importing_torch(model_file, cache, tmp_path, repo_root):
    runtime.load_onnx(model_file)
    ctm = write_ctm(tmp_path / "call.ctm", n=20)
    code = ("import sys\nfrom punct.restore import restore_file\n"
            f"restore_file({str(ctm)!r}, {str(tmp_path / 'o.ctm')!r}, model={str(model_file)!r}, runtime='auto')\n"
            "print('torch' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=str(repo_root), PUNCT_ONNX_DIR=str(cache), PUNCT_RUNTIME="auto")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
    lines = (tmp_path / "o.ctm").read_text().splitlines()
    assert len([x for x in lines if not x.startswith(";;")]) == 20  # the words; marks on comment lines


def test_int8_graph_is_cached_apart(model_file, cache):
    g = runtime.load_onnx(model_file, int8=True)
    assert g.int8 and g.path == runtime.onnx_path(file_sha256(model_file), int8=True)
    assert g.logits(np.array([[3, 4, 5]]), np.array([3]), np.zeros((1, 3, 2), np.float32)).shape == (1, 3, 4)


def test_the_first_export_through_the_cli_is_quiet_with_q(model_file, cache, tmp_path, repo_root):
    # the tracer's C++ shape-inference warnings (the packed BiGRU) reached stderr before
    ctm = write_ctm(tmp_path / "call.ctm", n=20)
    env = dict(os.environ, PYTHONPATH=str(repo_root), PUNCT_ONNX_DIR=str(cache))
    r = subprocess.run([sys.executable, "-m", "punct", "restore", "--model", str(model_file), "--runtime", "onnx", "-q",
                        str(ctm), "-o", str(tmp_path / "o.ctm")], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert len(list(cache.glob("*.onnx"))) == 1 and (tmp_path / "o.ctm").is_file()


def test_torch_bf16_runs_the_torch_model_in_bfloat16_and_returns_float32(model_file):
    """Runtime torch-bf16: the torch model under torch.autocast to bfloat16 (the logits move by
    bf16 rounding, so they are not torch's bit for bit), handed back as float32."""
    from punct.engine.infer import run_batch

    tmodel, _, defaults, used = runtime.load_for_restore(model_file, "torch")
    bmodel, _, bdefaults, bused = runtime.load_for_restore(model_file, "torch-bf16")
    assert (used, bused) == ("torch", "torch-bf16") and bmodel.punct_bf16 and not hasattr(tmodel, "punct_bf16")
    assert defaults == bdefaults
    rng = np.random.default_rng(0)
    wins = [list(rng.integers(3, len(WORDS) + 3, 12)), list(rng.integers(3, len(WORDS) + 3, 7))]
    feats = [np.c_[rng.random(len(w)), np.zeros(len(w))].astype(np.float32) for w in wins]
    want = run_batch(tmodel, wins, feats, tmodel.punct_inputs).logits
    got = run_batch(bmodel, wins, feats, bmodel.punct_inputs).logits
    assert got.dtype == torch.float32 and got.shape == want.shape
    assert not torch.equal(got, want)
    torch.testing.assert_close(got, want, atol=0.2, rtol=0.05)


def test_auto_runs_a_transformer_family_as_torch_bf16_where_the_cpu_has_native_bfloat16(model_file, monkeypatch):
    """auto: the families of BF16_MODELS run as torch-bf16 on a CPU with native bfloat16, as
    torch elsewhere; the others as before (here ta_brnn stands in for a transformer tagger)."""
    from punct.engine import device

    monkeypatch.setattr(runtime, "onnx_available", lambda: False)
    assert runtime.load_for_restore(model_file, "auto")[3] == "torch"  # ta_brnn is not a BF16 family
    monkeypatch.setattr(runtime, "BF16_MODELS", frozenset({"ta_brnn"}))
    for native, used in ((True, "torch-bf16"), (False, "torch")):
        monkeypatch.setattr(device, "native_bf16", lambda native=native: native)
        model, _, _, got = runtime.load_for_restore(model_file, "auto")
        assert got == used and getattr(model, "punct_bf16", False) == native
    assert runtime.load_for_restore(model_file, "torch")[3] == "torch"  # asked for: never changed
