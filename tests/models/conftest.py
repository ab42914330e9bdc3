"""Tiny corpora for the model tests (the synthetic rule of tests/synthetic.py), with word
times (some words untimed), pause features and made-up pitch/energy features, so the
acoustic and fusion models train on them too; and tiny stage-one models for the
two-stage configs."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from punct.data.datadir import load_utterances, write_datadir
from tests.synthetic import make_utts


def add_times(utts, seed: int, untimed: float = 0.2):
    """Word times in which a sentence end is followed by a long pause; a share ``untimed`` of the words has none."""
    rng = random.Random(seed)
    for u in utts:
        t = 0.0
        for w in u.words:
            if rng.random() < untimed:
                t += 0.3
                continue
            w.start, w.end = round(t, 3), round(t + 0.2, 3)
            t += 0.2 + (0.6 if w.label in ("PERIOD", "QUESTION") else 0.05)
    return utts


def write_feature_sets(d: Path, seed: int) -> None:
    """pause (punct.prosody.pause) and made-up prosody (the columns of punct.prosody.pooling) of data directory ``d``."""
    from punct.prosody.features import write_features
    from punct.prosody.pause import PAUSE_FEATURES, pause_features
    from punct.prosody.pooling import WORD_FEATURES

    utts = load_utterances(d)
    write_features(d, "pause", pause_features(utts), PAUSE_FEATURES)
    rng = np.random.default_rng(seed)
    write_features(d, "prosody", {u.id: rng.normal(size=(len(u), len(WORD_FEATURES))).astype(np.float32) for u in utts},
                   WORD_FEATURES)


def make_feature_data(root: Path) -> tuple[Path, Path]:
    write_datadir(root / "train", add_times(make_utts(12, 60, 1), 1))
    write_datadir(root / "dev", add_times(make_utts(3, 40, 2), 2))
    for name, seed in (("train", 1), ("dev", 2)):
        write_feature_sets(root / name, seed)
    return root / "train", root / "dev"


@pytest.fixture(scope="session")
def tiny_model_data(tmp_path_factory):
    """(train_dir, valid_dir) of the synthetic corpus, with word times and feature sets."""
    return make_feature_data(tmp_path_factory.mktemp("tiny_models"))


#: the tiny stage-one model of each stage-one family (overrides of its conf/ file)
STAGE1 = {
    "tbrnn": ("conf/tbrnn.yaml", ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8"]),
    "tlstm": ("conf/tlstm.yaml", ["model_args.embedding_dim=8", "model_args.hidden_size=8"]),
}
RUN1 = ["batch_size=4", "slice_length=20", "max_epochs=1", "epoch_slices=8", "valid_slices=4", "checkpoint_minutes=0",
        "threads=1"]


@pytest.fixture(scope="session")
def stage1_models(tiny_model_data, tmp_path_factory):
    """{family: path of a tiny trained best.pt} for the stage-one families of the two-stage models."""
    import torch

    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.train import train

    root = Path(__file__).resolve().parents[2]
    out = {}
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for fam, (conf, over) in STAGE1.items():
            exp = tmp_path_factory.mktemp(f"stage1_{fam}")
            train(load_config(root / conf, TrainConfig, over + RUN1), *tiny_model_data, exp)
            out[fam] = exp / "best.pt"
    finally:
        torch.set_num_threads(n)
    return out


#: the tagger of conf/mpnet.yaml, tiny and random (tests/conftest.py tiny_mpnet): stage one of ta_transformer
TAGGER = ["model_args.pretrained=false", "model_args.freeze_layers=0", "model_args.max_length=16",
          "model_args.overlap=4", "lr=0.001", "warmup_steps=0", "decode_window=20", "valid_batch_size=4"]


def _train_tiny_tagger(conf: str, overrides: list[str], folder, data, exp, **kw) -> None:
    """Train the tiny random MPNet tagger of ``conf`` on ``data`` into ``exp`` on one thread,
    with the tiny encoder ``folder`` installed for the run (``kw``: train's state, say)."""
    import torch

    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.train import train

    root = Path(__file__).resolve().parents[2]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2", str(folder))
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            train(load_config(root / conf, TrainConfig, overrides + RUN1), *data, exp, **kw)
        finally:
            torch.set_num_threads(n)


@pytest.fixture(scope="session")
def tiny_tagger(tiny_mpnet_folder, tiny_model_data, tmp_path_factory):
    """best.pt of a tiny random MPNet tagger with a case head (conf/mpnet.yaml), trained two
    steps; load it with the ``tiny_mpnet`` fixture (which installs its encoder)."""
    exp = tmp_path_factory.mktemp("stage1_tagger")
    _train_tiny_tagger("conf/mpnet.yaml", TAGGER, tiny_mpnet_folder, tiny_model_data, exp)
    return exp / "best.pt"


#: the accurate tier as it ships (conf/accurate.yaml: low-rank adapters), tiny and random
LORA_TAGGER = ["model_args.pretrained=false", "model_args.max_length=16", "model_args.overlap=4",
               "model_args.lora_rank=2", "model_args.lora_layers=0", "lr=0.001", "warmup_steps=0", "decode_window=20",
               "valid_batch_size=4"]


@pytest.fixture(scope="session")
def tiny_lora_tagger(tiny_mpnet_folder, tiny_model_data, tmp_path_factory):
    """The state file of a tiny random MPNet tagger with adapters and a case head
    (conf/accurate.yaml), trained two steps: what models/accurate/tagger.pt is."""
    d = tmp_path_factory.mktemp("stage1_lora")
    _train_tiny_tagger("conf/accurate.yaml", LORA_TAGGER, tiny_mpnet_folder, tiny_model_data, d / "exp",
                       state=d / "tagger.pt")
    return d / "tagger.pt"


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Model tests run tiny batches on one torch thread (tests/conftest.py)."""
