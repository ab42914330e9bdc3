"""``punct average`` (punct.bin.average): the weights of models of one run averaged into a model
that decodes, the first file's other contents kept; models of other runs and bad calls refused
in one line."""
from __future__ import annotations

import pytest
import torch

from punct.bin.average import main
from punct.engine import checkpoint as ckpt
from tests.tiny_models import make_tiny_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _epoch(path, seed, epoch):
    """A tiny T-BRNN of a run at ``epoch`` (same vocabulary and sizes, other weights)."""
    make_tiny_model(path, seed=seed)
    ck = ckpt.load(path)
    ckpt.save(path, dict(ck, epoch=epoch, valid_f1=50.0 + epoch, decision_bias={"COMMA": 0.5, "PERIOD": 0.0,
                                                                                  "QUESTION": 1.0}))
    return path


def test_the_weights_are_averaged_and_the_first_files_rest_is_kept(tmp_path):
    a, b, c = (_epoch(tmp_path / f"{e}.pt", seed=e, epoch=e) for e in (3, 4, 5))
    assert main([str(a), str(b), str(c), "--out", str(tmp_path / "avg.pt")]) == 0
    got = ckpt.load(tmp_path / "avg.pt")
    states = [ckpt.load(p)["state_dict"] for p in (a, b, c)]
    for k, v in got["state_dict"].items():
        if torch.is_floating_point(v):
            torch.testing.assert_close(v, sum(s[k] for s in states) / 3)
    assert got["averaged_epochs"] == [3, 4, 5] and got["averaged_from"] == [str(a), str(b), str(c)]
    assert got["decision_bias"] == ckpt.load(a)["decision_bias"] and got["vocab"] == ckpt.load(a)["vocab"]
    assert "valid_f1" not in got  # the first epoch's score is not the average's
    model, _, _ = ckpt.load_model(tmp_path / "avg.pt")
    assert not model.training


def test_models_of_other_runs_and_bad_calls_are_refused(tmp_path, capsys):
    a, b = _epoch(tmp_path / "a.pt", 1, 1), _epoch(tmp_path / "b.pt", 2, 2)
    other = tmp_path / "other.pt"
    make_tiny_model(other)
    ck = ckpt.load(other)
    ckpt.save(other, dict(ck, vocab=ck["vocab"][:-1] + ["zebra"]))
    for args, want in (([a, other], f"{other}: its vocab differs from that of {a}: only models of one run average"),
                       ([a, b, "--out", b], f"{b}: the output is one of the inputs"),
                       ([a], f"{a}: give at least two model files"),
                       ([a, tmp_path / "nope.pt"], f"{tmp_path / 'nope.pt'}")):
        argv = [str(x) for x in args] + ([] if "--out" in args else ["--out", str(tmp_path / "x.pt")])
        assert main(argv) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and want in err[0], err
    assert not (tmp_path / "x.pt").exists()
