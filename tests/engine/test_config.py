"""TrainConfig as the configs of conf/ and the checkpoints of today's runs use it: every
option a conf sets loads, and a retired option is read only at the value every run has now
(a resolved config lists every option), anything else failing with one line naming it."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from punct.config import dump_yaml, load_config, merge, to_dict
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.expdir import check_resume
from punct.engine.train import train
from punct.errors import PunctError
from punct.models import resolved_model_args

ROOT = Path(__file__).resolve().parents[2]
#: the model configs of conf/ (the others configure other stages)
CONFS = [p for p in sorted((ROOT / "conf").glob("*.yaml"))
         if "model" in (yaml.safe_load(p.read_text(encoding="utf-8")) or {})]


def _conf(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_a_config_carrying_every_option_of_every_conf_loads(tmp_path):
    """The options of all the model configs of conf/ at once (the last conf's value of each,
    on a combination that passes the checks); none is unknown or retired."""
    every: dict = {}
    for p in CONFS:
        every = merge(every, _conf(p))
    every.update(vocabulary="train", freeze=False, init_from="", lr_schedule="linear")  # valid together
    assert len(CONFS) > 20 and {"model", "optimizer", "lr_schedule", "features", "init_from", "epoch_slices",
                                "freeze_embeddings", "adagrad_accumulator_init"} <= set(every)
    path = tmp_path / "every.yaml"
    path.write_text(dump_yaml(every))
    cfg = load_config(path, TrainConfig)
    loaded = to_dict(cfg)
    assert {k: loaded[k] for k in every if k != "model_args"} == {k: v for k, v in every.items() if k != "model_args"}


@pytest.mark.parametrize("conf", CONFS, ids=lambda p: p.stem)
def test_a_resolved_config_of_each_conf_loads_and_resumes(conf, tmp_path):
    """What a run of a conf wrote as config.yaml (every option, the retired ones at their
    value, as exp/earnings/mpnet/config.yaml of conf/mpnet.yaml) loads to the same config
    and passes the resume check against the conf."""
    cfg = load_config(conf, TrainConfig)
    resolved = dict(to_dict(cfg), **TrainConfig.RETIRED)
    path = tmp_path / "config.yaml"
    path.write_text(dump_yaml(resolved))
    assert load_config(path, TrainConfig) == cfg
    check_resume(resolved, cfg, resolved_model_args(cfg.model, cfg.model_args), tmp_path / "checkpoint.pt")


@pytest.mark.parametrize("key,value", [("halving_threshold", 1.01), ("fused_optimizer", False)])
def test_a_config_setting_a_retired_option_is_refused_naming_it(tmp_path, key, value):
    path = tmp_path / "old.yaml"
    path.write_text(f"model: tbrnn\n{key}: {str(value).lower()}\n")
    with pytest.raises(PunctError) as e:
        load_config(path, TrainConfig)
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg and f"option {key} was retired" in msg, msg
    with pytest.raises(PunctError, match=f"option {key} was retired"):
        load_config(None, TrainConfig, [f"{key}={value}"])


def test_retired_options_are_not_options_any_more():
    assert not set(TrainConfig.RETIRED) & set(to_dict(TrainConfig()))


def test_a_checkpoint_setting_a_retired_option_is_refused_on_resume(tiny_data, tmp_path):
    """A checkpoint listing a retired option at today's value resumes; at another value the
    resume stops with one line naming the option and the checkpoint."""
    tr, dev = tiny_data
    over = ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8", "batch_size=4",
            "slice_length=20", "checkpoint_minutes=0", "max_epochs=1"]
    cfg = load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, over)
    exp = tmp_path / "exp"
    train(cfg, tr, dev, exp)
    ck_path = exp / "checkpoint.pt"
    ck = ckpt.load(ck_path)
    ckpt.save(ck_path, dict(ck, train_config=dict(ck["train_config"], **TrainConfig.RETIRED)))
    more = load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, over[:-1] + ["max_epochs=2"])
    assert train(more, tr, dev, exp)["epoch"] == 2
    ck = ckpt.load(ck_path)
    ckpt.save(ck_path, dict(ck, train_config=dict(ck["train_config"], halving_threshold=1.01)))
    before = torch.load(ck_path, weights_only=True)["progress"]
    with pytest.raises(PunctError) as e:
        train(load_config(ROOT / "conf" / "tbrnn.yaml", TrainConfig, over[:-1] + ["max_epochs=3"]), tr, dev, exp)
    msg = str(e.value)
    assert "\n" not in msg and str(ck_path) in msg and "option halving_threshold was retired" in msg, msg
    assert torch.load(ck_path, weights_only=True)["progress"] == before


def test_mark_weights_weigh_each_reference_class_and_are_checked():
    """A question's cross-entropy counts mark_weights times (O and the unnamed marks once);
    an unknown mark or a weight that is not a positive number fails naming it; a resume
    under other weights is refused (it changes what is learnt)."""
    import torch.nn.functional as F

    from punct.engine.loss import label_weights_of
    from punct.engine.soft_labels import distill_loss_sum

    assert label_weights_of(TrainConfig()) is None
    assert label_weights_of(TrainConfig(mark_weights={"QUESTION": 1.0})) is None
    w = label_weights_of(TrainConfig(mark_weights={"QUESTION": 4.0}))
    assert w.tolist() == [1.0, 1.0, 1.0, 4.0]
    torch.manual_seed(0)
    logits = torch.randn(1, 4, 4)
    hard = torch.tensor([[0, 3, 2, -100]])
    keep = hard != -100
    each = F.cross_entropy(logits[0, :3], hard[0, :3], reduction="none")
    got = distill_loss_sum(logits, hard, None, keep, 0.0, class_weights=w)
    assert torch.allclose(got, each[0] + 4.0 * each[1] + each[2])
    for bad, word in (({"EXCLAMATION": 2.0}, "unknown mark 'EXCLAMATION'"), ({"QUESTION": 0}, "QUESTION"),
                      ({"QUESTION": "x"}, "QUESTION"), ([4.0], "mark_weights must map")):
        with pytest.raises(ValueError, match=word):
            TrainConfig(mark_weights=bad)
    cfg = TrainConfig(mark_weights={"QUESTION": 4.0})
    saved = dict(to_dict(TrainConfig()), model_args={})
    with pytest.raises(PunctError, match="cannot resume: mark_weights"):
        check_resume(saved, cfg, {}, Path("ck.pt"))


def test_the_groups_share_out_the_keys_and_check_their_own():
    """TrainConfig is its groups (optimizer, slicing, validation, features, distillation) and
    its own keys: every key in one place, each group a config that checks itself alone, and a
    flat YAML key reaching its group's field."""
    import dataclasses

    from punct.engine.config import DistillConfig, FeatureConfig, OptimizerConfig, SlicingConfig, ValidationConfig

    groups = TrainConfig.GROUPS
    assert groups == (OptimizerConfig, SlicingConfig, ValidationConfig, FeatureConfig, DistillConfig)
    names = [{f.name for f in dataclasses.fields(g)} for g in groups]
    assert all(not (a & b) for i, a in enumerate(names) for b in names[i + 1:])  # no key in two groups
    own = {f.name for f in dataclasses.fields(TrainConfig)} - set().union(*names)
    assert {"model", "model_args", "threads", "seed", "init_from"} <= own and "lr" not in own
    for group, bad, message in ((OptimizerConfig, {"lr_schedule": "cosine"}, "lr_schedule must be"),
                                (SlicingConfig, {"long_sentences": "wrap"}, "long_sentences must be"),
                                (ValidationConfig, {"select_by": "wer"}, "select_by must be"),
                                (FeatureConfig, {"feature_columns": ["pause_after"]}, "feature_columns needs features"),
                                (DistillConfig, {"distill_weight": 2.0}, "distill_weight must be")):
        with pytest.raises(ValueError, match=message):
            group(**bad)
        with pytest.raises(PunctError, match=message):  # the same check when a config sets the key
            load_config(None, TrainConfig, [f"{k}={v}" for k, v in bad.items()])
    cfg = load_config(ROOT / "conf" / "accurate.yaml", TrainConfig, ["valid_slices=7"])
    assert isinstance(cfg, OptimizerConfig) and cfg.lr == 5.0e-4 and cfg.valid_slices == 7
