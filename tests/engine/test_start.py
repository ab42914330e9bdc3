"""punct.engine.start: the kind of run a config asks of its model class, checked against it; a
warm start refused for another model or shape; a second stage's stage one checked (a warm
start that trains on, and resumes: tests/engine/test_train.py and test_train_interrupted.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from punct.config import load_config
from punct.engine.config import TrainConfig
from punct.engine.train import train
from punct.errors import PunctError

ROOT = Path(__file__).resolve().parents[2]


def test_warm_start_refuses_another_model_or_shape(tiny_data, tmp_path, tiny_cfg):
    tr, dev = tiny_data
    first = tmp_path / "first"
    train(tiny_cfg("max_epochs=1"), tr, dev, first)
    with pytest.raises(PunctError, match="no such checkpoint"):
        train(tiny_cfg(f"init_from={tmp_path / 'none.pt'}"), tr, dev, tmp_path / "a")
    with pytest.raises(PunctError, match="do not fit this config's model_args"):
        train(tiny_cfg(f"init_from={first / 'best.pt'}", "model_args.hidden_size=4"), tr, dev, tmp_path / "b")
    cfg = load_config(ROOT / "conf" / "tlstm.yaml", TrainConfig,
                      ["batch_size=4", "slice_length=20", "max_epochs=1", "threads=1", f"init_from={first / 'best.pt'}"])
    with pytest.raises(PunctError, match="init_from is a tbrnn model; a tlstm run"):
        train(cfg, tr, dev, tmp_path / "c")


def kind_of(model, *extra):
    from punct.engine.start import RunKind
    from punct.models import get_model_class

    cfg = load_config(None, TrainConfig, [f"model={model}", *extra])
    return RunKind.of(cfg, get_model_class(model))


def test_the_kind_of_run_follows_the_model_class():
    from punct.engine.start import RunKind

    assert kind_of("tbrnn") == RunKind(second_stage=False, warm=False, counting=False)
    assert kind_of("tbrnn", "init_from=exp/a/best.pt") == RunKind(second_stage=False, warm=True, counting=False)
    assert kind_of("ta_brnn", "init_from=exp/a/best.pt", "features=[pause]", "feature_columns=[pause_after]",
                   "freeze=true").second_stage
    assert kind_of("hidden_event_lm").counting


@pytest.mark.parametrize("model,extra,problem", [
    ("tbrnn", ["freeze=true", "init_from=x.pt"],
     "freeze keeps a two-stage model's stage one fixed; tbrnn has no stage one"),
    ("hidden_event_lm", ["init_from=x.pt"], "is estimated by counting: it cannot train on from init_from"),
    ("ta_brnn", ["features=[pause]", "feature_columns=[pause_after]"], "is a second stage: set init_from"),
    ("hidden_event_lm", ["word_dropout=0.1"], "word_dropout needs a network that reads word ids"),
])
def test_a_config_its_model_cannot_train_is_one_line(model, extra, problem):
    with pytest.raises(PunctError, match=re.escape(problem)):
        kind_of(model, *extra)


def test_a_stage_one_of_another_family_or_input_is_refused(tmp_path):
    from punct.engine import checkpoint as ckpt
    from punct.engine.start import _load_stage1
    from punct.models import get_model_class
    from punct.text.labels import LABELS

    ta_brnn = get_model_class("ta_brnn")
    ckpt.save(tmp_path / "lm.pt", {"model": "hidden_event_lm", "model_args": {}, "labels": list(LABELS)})
    with pytest.raises(PunctError, match="stage one is a hidden_event_lm model; .* builds on"):
        _load_stage1(ta_brnn, str(tmp_path / "lm.pt"))
    ckpt.save(tmp_path / "chars.pt", {"model": ta_brnn.stage1_models[0], "model_args": {}, "labels": list(LABELS),
                                      "inputs": {"kind": "chars"}})
    with pytest.raises(PunctError, match=r"stage one must read word ids \(its inputs are chars\)"):
        _load_stage1(ta_brnn, str(tmp_path / "chars.pt"))
