"""Every config under conf/ builds its model, trains (one optimizer step, or one fit),
saves, loads and decodes through the shared engine, on a tiny corpus with shrunk sizes."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig

ROOT = Path(__file__).resolve().parents[2]


def _is_training_config(path: Path) -> bool:
    """conf/ also holds the configs of other stages (align, prosody, ...): a model's has ``model:``."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return isinstance(data, dict) and "model" in data


CONFS = [p for p in sorted((ROOT / "conf").glob("*.yaml")) if _is_training_config(p)]

#: model name -> overrides that make it tiny (the architecture stays the config's)
TINY: dict[str, list[str]] = {
    "tbrnn": ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8"],
    "tbrnn_pre": ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8",
                  "pretrained_embeddings=hash-8d"],
    "tlstm": ["model_args.embedding_dim=8", "model_args.hidden_size=8"],
    "drnn_lwma": ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.num_layers=2"],
    "drnn_lwma_pre": ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.num_layers=2",
                      "pretrained_embeddings=hash-8d"],
    "lmc": ["model_args.vectors=hash-8d", "model_args.hidden=[16,16]"],
    "transformer_tagger": ["model_args.num_layers=1", "model_args.max_length=16", "model_args.overlap=4",
                           "model_args.freeze_layers=0", "model_args.lora_layers=0"],
    "char_delay_lstm": ["model_args.hidden_size=8", "model_args.embedding_dim=4", "model_args.delay=3"],
    "char_ngram_lstm": ["model_args.hidden_size=8", "model_args.embedding_dim=4", "model_args.buckets=64"],
    "char_cnn_highway": ["model_args.hidden_size=8", "model_args.embedding_dim=4", "model_args.filters=4"],
    "char_dilated_cnn": ["model_args.channels=8", "model_args.embedding_dim=4", "model_args.blocks=3"],
    "char_bilstm": ["model_args.hidden_size=8", "model_args.embedding_dim=4"],
    "hidden_event_lm": [],
    "crf": ["model_args.buckets=4096"],
    "tlstm_p": ["model_args.embedding_dim=8", "model_args.hidden_size=8"],
    "ta_brnn": ["model_args.hidden_size=8"],
    "ta_lstm": ["model_args.hidden_size=8"],
    "ta_transformer": ["model_args.hidden_size=8", "decode_window=20"],
    "che_pause": [],
    "che_ppe": ["model_args.hidden=[8]"],
}
#: two-stage models: the stage-one family their init_from names (a tiny model made by tests/conftest.py's stage1_models)
STAGE1_FAMILY = {"ta_brnn": "tbrnn", "ta_lstm": "tlstm", "ta_transformer": "transformer_tagger"}
RUN = ["batch_size=4", "slice_length=20", "max_epochs=1", "epoch_slices=8", "valid_slices=4", "checkpoint_minutes=0",
       "threads=1"]  # tiny tensors: a second thread only adds synchronisation


def tiny_config(conf: Path, *extra: str) -> TrainConfig:
    cfg = load_config(conf, TrainConfig)
    assert cfg.model in TINY, f"add tiny overrides for model {cfg.model} to TINY"
    return load_config(conf, TrainConfig, TINY[cfg.model] + RUN + list(extra))


@pytest.mark.parametrize("conf", CONFS, ids=lambda p: p.stem)
def test_config_loads_with_its_own_values(conf):
    from punct.models import get_model_class, resolved_model_args

    cfg = load_config(conf, TrainConfig)
    args = resolved_model_args(cfg.model, cfg.model_args)
    for key, value in cfg.model_args.items():  # the file's values reach the model, none dropped or renamed
        assert args[key] == value, key
    assert set(args) == {f.name for f in dataclasses.fields(get_model_class(cfg.model).Config)}


@pytest.mark.parametrize("conf", CONFS, ids=lambda p: p.stem)
def test_config_trains_saves_loads_and_decodes(conf, tiny_model_data, stage1_models, tmp_path, request):
    from punct.engine.decode import decode
    from punct.engine.train import train
    from punct.models import get_model_class

    tr, dev = tiny_model_data
    cfg = load_config(conf, TrainConfig)
    if STAGE1_FAMILY.get(cfg.model) == "transformer_tagger":  # a tiny random MPNet tagger
        request.getfixturevalue("tiny_mpnet")
        extra = [f"init_from={request.getfixturevalue('tiny_tagger')}"]
    else:
        extra = [f"init_from={stage1_models[STAGE1_FAMILY[cfg.model]]}"] if cfg.model in STAGE1_FAMILY else []
    cfg = tiny_config(conf, *extra)
    if cfg.distill_from:  # a student: the tiny T-BRNN's posteriors are its teacher's soft labels
        import shutil

        from punct.engine.soft_labels import write_posteriors

        tr = Path(shutil.copytree(tr, tmp_path / "train"))
        write_posteriors(stage1_models["tbrnn"], tr, cfg.distill_from)
    steps = []
    prog = train(cfg, tr, dev, tmp_path / "exp", on_step=lambda e, b: steps.append(b))
    assert prog["epoch"] == 1 and len(prog["history"]) == 1
    assert np.isfinite(prog["history"][0]["valid_ppl"])
    model, vocab, ck = ckpt.load_model(tmp_path / "exp" / "best.pt")
    assert ck["model"] == cfg.model and ck["inputs"]["kind"] == getattr(type(model), "input_kind", "words")
    if getattr(get_model_class(cfg.model), "trainer", "sgd") == "fit":
        assert steps == []
        # an estimated model holds its counts; the Pause model is a fixed formula
        assert any(b.numel() > 1 for b in model.buffers()) or cfg.model == "che_pause"
    else:
        assert steps == [1, 2]  # epoch_slices=8, batch_size=4: two optimizer steps
        from punct.models import build_model

        torch.manual_seed(cfg.seed)
        fresh = build_model(ck["model"], ck["model_args"], model.punct_inputs.input_size)
        assert any(not torch.equal(a, b) for a, b in zip(fresh.state_dict().values(), model.state_dict().values()))
    hyp = decode(tmp_path / "exp" / "best.pt", dev, window=9)
    from punct.data.datadir import load_utterances

    ref = load_utterances(dev)
    assert [len(u.words) for u in hyp] == [len(u.words) for u in ref]


def test_iwslt2011_experiments_name_existing_model_configs(repo_root):
    """recipes/iwslt2011/experiments.yaml: every entry names a training config, and its
    overrides are valid keys and values of that config."""
    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.experiments import load

    recipe = load(repo_root / "recipes" / "iwslt2011" / "experiments.yaml", repo_root)
    names = list(recipe.names)
    assert {"tbrnn_2m", "tlstm_2m", "transformer_2m", "crf_2m"} <= set(names)
    trained = [e for e in recipe.experiments if e.kind == "train"]
    for e in trained:
        assert _is_training_config(repo_root / e.config), e.config
        assert e.train in recipe.sets.train
        # a warm start trains on from an experiment of the same config
        if e.warm_start:
            assert recipe.get(e.warm_start).config == e.config, (e.name, e.warm_start)
        init = [f"init_from=exp/{e.warm_start}/best.pt"] if e.warm_start else []
        load_config(repo_root / e.config, TrainConfig, init + e.override_words())
    # the acoustic and fusion models need word times (recipes/earnings, stage 7)
    acoustic = {"tlstm_p.yaml", "ta_brnn.yaml", "ta_brnn_p.yaml", "ta_lstm.yaml", "ta_lstm_p.yaml", "ta_mpnet_p.yaml", "che_pause.yaml",
                "che_ppe.yaml"}
    # conf/default.yaml is the shipped default model, conf/accurate.yaml the accurate tier (conf/mpnet.yaml its
    # fully fine-tuned form) and
    # conf/student.yaml and conf/student_drnn.yaml the general default distilled from it, trained by recipes/earnings
    earnings = {"default.yaml", "mpnet.yaml", "accurate.yaml", "student.yaml", "student_drnn.yaml"}
    assert {Path(e.config).name for e in trained} == ({p.name for p in CONFS} - {"transformer_top2.yaml"} - earnings
                                                      - acoustic)


def _iwslt2011_text_experiments(repo_root, exp_root):
    from punct.bin.experiments import stage_specs
    from punct.experiments import load_corpus

    recipe = load_corpus("iwslt2011_text")
    specs = stage_specs(recipe, 6, [], "data", str(exp_root))
    return list(recipe.sets.train), [[v["name"], v["config"], v["train"], " ".join(v["args"])] for v in specs]


def test_iwslt2011_text_experiments_are_valid_trainings_on_its_own_sets(repo_root, tmp_path, capsys):
    """recipes/iwslt2011_text: each entry's config and overrides load, and it trains on a set
    that the recipe prepares, and IWSLT's text and ted/'s first talks have two seeds each. The
    warm starts from recipes/iwslt2011's models are there when those models are, and left out,
    with a line that says which, when they are not."""
    from punct.config import load_config
    from punct.engine.config import TrainConfig

    sources = ["drnn_lwma_pre_2m_lin_drop1", "tbrnn_2m_s50_b32_f1_avg"]
    for name in sources:
        (tmp_path / "iwslt2011" / name).mkdir(parents=True)
        (tmp_path / "iwslt2011" / name / "best.pt").write_bytes(b"")
    train_sets, specs = _iwslt2011_text_experiments(repo_root, tmp_path)
    seeds = {}
    warm = {}
    for name, conf, train_set, overrides in specs:
        assert train_set.split("/")[-1] in train_sets, name
        cfg = load_config(repo_root / conf, TrainConfig, overrides.split())
        seeds.setdefault(train_set.split("/")[-1], set()).add(cfg.seed)
        if cfg.init_from:
            warm[name] = cfg
    assert all(seeds[t] == {1, 2} for t in ("iwslt_148k", "ted_148k")) and set(seeds) == set(train_sets)
    assert {Path(c.init_from).parent.name for c in warm.values()} == set(sources)
    for name, cfg in warm.items():
        assert cfg.select_by == ("f1" if name.endswith("_src") else "last"), name
    # the fine-tuned runs train 3 epochs more than the _src run of the same source has
    for kind in ("drnn_lwma_pre", "tbrnn"):
        base = warm[f"{kind}_src"].max_epochs
        assert warm[f"{kind}_ft_iwslt"].max_epochs == warm[f"{kind}_ft_ted"].max_epochs == base + 3

    capsys.readouterr()
    (tmp_path / "iwslt2011" / sources[0] / "best.pt").unlink()
    _, specs = _iwslt2011_text_experiments(repo_root, tmp_path)
    names = {s[0] for s in specs}
    assert "tbrnn_ft_iwslt" in names and not {n for n in names if n.startswith("drnn_lwma_pre_")}
    err = capsys.readouterr().err
    assert "drnn_lwma_pre_ft_iwslt left out: it trains on from" in err and err.count("left out") == 3


def test_earnings_stage7_names_existing_configs_and_stage_ones(repo_root):
    """recipes/earnings/experiments.yaml: every stage 7 model names a config, and every stage one
    a stage 6 experiment."""
    from punct.experiments import load

    recipe = load(repo_root / "recipes" / "earnings" / "experiments.yaml", repo_root)
    stage7 = [e for e in recipe.experiments if e.stage == 7 and e.kind == "train"]
    assert {"ta_brnn_p", "ta_brnn", "ta_lstm_p", "ta_lstm", "tlstm_p_e22", "pause"} <= {e.name for e in stage7}
    for e in stage7:
        assert _is_training_config(repo_root / e.config), e.config
        assert e.warm_start is None or recipe.get(e.warm_start).stage == 6, e.name
