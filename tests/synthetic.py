"""The synthetic corpus of the engine and model tests: the mark after a word is decided by
the next word, so a model can only learn it with outputs aligned to words. Its variant with
word times (some words untimed), pause features and made-up pitch/energy features lets the
acoustic and fusion models train on it too; tiny stage-one models and taggers are trained on
it for the two-stage configs. A helper module, imported as ``tests.synthetic``; the fixtures
that write and train these are in tests/conftest.py."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from punct.data.datadir import load_utterances, write_datadir
from punct.text.words import Utterance, Word

WORDS = [f"w{i}" for i in range(30)]


def next_word_rule(nxt: str | None) -> str:
    """The label of a word given the word after it (None at the end of an utterance)."""
    if nxt is None:
        return "PERIOD"
    k = int(nxt[1:])
    return "PERIOD" if k < 3 else "COMMA" if k < 6 else "QUESTION" if k < 8 else "O"


def make_utts(n_utts: int, n_words: int, seed: int) -> list[Utterance]:
    """``n_utts`` utterances of ``n_words`` random words each, labelled by ``next_word_rule``."""
    rng = random.Random(seed)
    utts = []
    for u in range(n_utts):
        texts = [rng.choice(WORDS) for _ in range(n_words)]
        words = [Word(t, next_word_rule(texts[i + 1] if i + 1 < len(texts) else None)) for i, t in enumerate(texts)]
        utts.append(Utterance(f"utt{u:03d}", words))
    return utts


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


#: the tiny stage-one model of each stage-one family (overrides of its conf/ file)
STAGE1 = {
    "tbrnn": ("conf/tbrnn.yaml", ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8"]),
    "tlstm": ("conf/tlstm.yaml", ["model_args.embedding_dim=8", "model_args.hidden_size=8"]),
    "drnn_lwma": ("conf/drnn_lwma.yaml", ["model_args.embedding_dim=8", "model_args.hidden_size=8",
                                          "model_args.num_layers=2", "model_args.head_dim=4",
                                          "model_args.case_head=true"]),
}


RUN1 = ["batch_size=4", "slice_length=20", "max_epochs=1", "epoch_slices=8", "valid_slices=4", "checkpoint_minutes=0",
        "threads=1"]


#: the tagger of conf/mpnet.yaml, tiny and random (tests/conftest.py tiny_mpnet): stage one of ta_transformer
TAGGER = ["model_args.pretrained=false", "model_args.freeze_layers=0", "model_args.max_length=16",
          "model_args.overlap=4", "lr=0.001", "warmup_steps=0", "decode_window=20", "valid_batch_size=4"]


def train_tiny_tagger(conf: str, overrides: list[str], folder, data, exp, **kw) -> None:
    """Train the tiny random MPNet tagger of ``conf`` on ``data`` into ``exp`` on one thread,
    with the tiny encoder ``folder`` installed for the run (``kw``: train's state, say)."""
    import torch

    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.train import train

    root = Path(__file__).resolve().parents[1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2", str(folder))
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            train(load_config(root / conf, TrainConfig, overrides + RUN1), *data, exp, **kw)
        finally:
            torch.set_num_threads(n)


#: the accurate tier as it ships (conf/accurate.yaml: low-rank adapters), tiny and random
LORA_TAGGER = ["model_args.pretrained=false", "model_args.max_length=16", "model_args.overlap=4",
               "model_args.lora_rank=2", "model_args.lora_layers=0", "lr=0.001", "warmup_steps=0", "decode_window=20",
               "valid_batch_size=4"]
