"""punct.engine.checkpoint: a payload saved and loaded on the CPU, files that are not a punct
model refused in one line each, a second stage whose stage one ships beside it, and a saved
tiny T-BRNN loaded as a model to decode with."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from punct.engine import checkpoint as ckpt
from punct.errors import PunctError
from punct.fsutil import file_sha256
from punct.text.labels import LABELS


def test_a_payload_round_trips_with_its_format(tmp_path):
    ckpt.save(tmp_path / "m.pt", {"labels": list(LABELS), "state_dict": {"w": torch.arange(3.0)}, "epoch": 2})
    ck = ckpt.load(tmp_path / "m.pt")
    assert ck["format"] == ckpt.FORMAT and ck["epoch"] == 2 and ck["state_dict"]["w"].tolist() == [0.0, 1.0, 2.0]
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]  # written atomically: no temporary file left


@pytest.mark.parametrize("payload,problem", [
    (b"", "empty file, not a model"),
    (b"\x00garbage" * 10, "not a readable model file (torch.load: "),
    ({"labels": list(LABELS)}, "not a punct checkpoint (expected format punct-model-1)"),
    ({"format": ckpt.FORMAT, "labels": ["O", "COMMA"]}, "checkpoint labels ['O', 'COMMA'] differ from"),
])
def test_what_is_not_a_punct_model_is_one_line(tmp_path, payload, problem):
    path = tmp_path / "m.pt"
    if isinstance(payload, bytes):
        path.write_bytes(payload)
    else:
        torch.save(payload, path)
    with pytest.raises(PunctError) as e:
        ckpt.load(path)
    assert str(e.value).startswith(f"{path}: {problem}") and "\n" not in str(e.value)


def test_a_second_stage_takes_its_stage_one_weights_from_the_file_beside_it(tmp_path, monkeypatch):
    ckpt.save(tmp_path / "tagger.pt", {"labels": list(LABELS), "state_dict": {"w": torch.ones(2)}})
    ref = {"file": "tagger.pt", "sha256": file_sha256(tmp_path / "tagger.pt")}
    ckpt.save(tmp_path / "pauses.pt", {"labels": list(LABELS), "state_dict": {"head": torch.zeros(1)},
                                       "stage1_file": ref})
    reads = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or real_read(self))
    assert sorted(ckpt.load(tmp_path / "pauses.pt")["state_dict"]) == ["head", "stage1.w"]
    assert reads == ["pauses.pt", "tagger.pt"]  # each file read once: its digest is of the bytes loaded
    ckpt.save(tmp_path / "tagger.pt", {"labels": list(LABELS), "state_dict": {"w": torch.zeros(2)}})
    with pytest.raises(PunctError, match="its stage one .*tagger.pt: not the file it was trained on"):
        ckpt.load(tmp_path / "pauses.pt")
    (tmp_path / "tagger.pt").unlink()
    with pytest.raises(PunctError, match="its stage one tagger.pt is missing beside it"):
        ckpt.load(tmp_path / "pauses.pt")


def test_load_model_gives_the_model_its_inputs_and_what_it_is(tmp_path, one_torch_thread):
    from tests.tiny_models import WORDS, make_tiny_model

    made, _ = make_tiny_model(tmp_path / "tiny.pt")
    model, vocab, ck = ckpt.load_model(tmp_path / "tiny.pt")
    assert not model.training and ck["model"] == "tbrnn"
    assert model.punct_info == {"model": "tbrnn", "epoch": None, "averaged_epochs": None}
    assert model.punct_logit_offset is None and vocab.id(WORDS[0]) == model.punct_inputs.vocab.id(WORDS[0])
    for k, v in made.state_dict().items():
        assert torch.equal(model.state_dict()[k], v), k
