"""Tiny synthetic corpora for the engine tests: the mark after a word is decided
by the next word, so a model can only learn it with outputs aligned to words."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from punct.config import load_config
from punct.data.datadir import write_datadir
from punct.engine.config import TrainConfig
from punct.text.words import Utterance, Word

WORDS = [f"w{i}" for i in range(30)]


def next_word_rule(nxt: str | None) -> str:
    """The label of a word given the word after it (None at the end of an utterance)."""
    if nxt is None:
        return "PERIOD"
    k = int(nxt[1:])
    return "PERIOD" if k < 3 else "COMMA" if k < 6 else "QUESTION" if k < 8 else "O"


def make_utts(n_utts: int, n_words: int, seed: int) -> list[Utterance]:
    rng = random.Random(seed)
    utts = []
    for u in range(n_utts):
        texts = [rng.choice(WORDS) for _ in range(n_words)]
        words = [Word(t, next_word_rule(texts[i + 1] if i + 1 < len(texts) else None)) for i, t in enumerate(texts)]
        utts.append(Utterance(f"utt{u:03d}", words))
    return utts


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory):
    """(train_dir, valid_dir) of the synthetic corpus."""
    root = tmp_path_factory.mktemp("tiny")
    write_datadir(root / "train", make_utts(12, 60, 1))
    write_datadir(root / "dev", make_utts(3, 40, 2))
    return root / "train", root / "dev"


@pytest.fixture(scope="session")
def tiny_args() -> list[str]:
    """Overrides that make conf/tbrnn.yaml a small, fast T-BRNN."""
    return ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8", "threads=1"]


@pytest.fixture(scope="session")
def tiny_cfg(tiny_args):
    """``tiny_cfg(*overrides)``: conf/tbrnn.yaml as that T-BRNN, 2 epochs of 20-word slices in
    batches of 4, a checkpoint after every batch (the training tests)."""
    conf = Path(__file__).resolve().parents[2] / "conf" / "tbrnn.yaml"

    def make(*extra: str) -> TrainConfig:
        return load_config(conf, TrainConfig, tiny_args + ["batch_size=4", "slice_length=20", "max_epochs=2",
                                                           "checkpoint_minutes=0", *extra])

    return make
