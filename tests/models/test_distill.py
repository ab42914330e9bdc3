"""A student trained on a teacher's soft labels (distill_from): with distill_weight 1 it moves
toward its teacher, marks and case; a missing set of soft labels is a clear error (the soft
labels written and read: tests/bin/test_posteriors.py and tests/engine/test_soft_labels.py)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from punct.config import load_config
from punct.engine.config import TrainConfig
from punct.text.labels import CASES, LABELS

RUN = ["batch_size=4", "slice_length=20", "valid_slices=4", "checkpoint_minutes=0", "threads=1"]
TINY_TBRNN = ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8", "min_count=1",
              "optimizer=adam", "lr=0.02"]


def copy_dir(src, dst):
    shutil.copytree(src, dst)
    return dst


def teacher_set(d, case: bool):
    """A made-up teacher that disagrees with the references: QUESTION where they say PERIOD,
    and (``case``) CAP for the word w5, LOWER for every other word."""
    from punct.data.datadir import load_utterances
    from punct.engine.soft_labels import soft_columns
    from punct.prosody.features import write_features

    out = {}
    for u in load_utterances(d):
        m = np.full((len(u.words), len(soft_columns(case))), 0.02, np.float32)
        for i, w in enumerate(u.words):
            m[i, LABELS.index("QUESTION" if w.label == "PERIOD" else w.label)] = 0.94
            if case:
                m[i, len(LABELS):] = 0.02
                m[i, len(LABELS) + CASES.index(CASES[1] if w.text == "w5" else CASES[0])] = 0.94
        out[u.id] = m
    write_features(d, "teacher", out, soft_columns(case))


def train_student(repo_root, data, exp, *extra):
    from punct.engine.train import train

    cfg = load_config(repo_root / "conf/default.yaml", TrainConfig, TINY_TBRNN + RUN + ["max_epochs=12", "patience=12"]
                      + list(extra))
    train(cfg, *data, exp)
    from punct.engine import checkpoint as ckpt

    return ckpt.load_model(exp / "best.pt")[0]


def test_a_student_moves_toward_its_teacher(repo_root, tiny_model_data, tmp_path):
    from punct.data.datadir import load_utterances
    from punct.engine.decode import posteriors

    train_dir = copy_dir(tiny_model_data[0], tmp_path / "train")
    teacher_set(train_dir, case=True)
    data = (train_dir, tiny_model_data[1])
    train_student(repo_root, data, tmp_path / "ref", "select_by=last")
    train_student(repo_root, data, tmp_path / "student", "select_by=last", "distill_from=teacher", "distill_weight=1",
                  "model_args.case_head=true")
    utts = load_utterances(train_dir)
    period = np.array([w.label == "PERIOD" for u in utts for w in u.words])
    q = LABELS.index("QUESTION")
    mass = {}
    for name in ("ref", "student"):
        _, probs, _ = posteriors(tmp_path / name / "best.pt", train_dir)
        mass[name] = float(np.concatenate(probs)[period, q].mean())
    assert mass["student"] > mass["ref"] + 0.2, mass  # the teacher's QUESTION where the text has PERIOD
    # the case head learnt the teacher's casing from text without 'written'
    from punct.engine.checkpoint import load_model

    model, vocab, _ = load_model(tmp_path / "student" / "best.pt")
    words = ["w5", "w1", "w5", "w2", "w9", "w5"]
    ids = torch.tensor([vocab.encode(words)])
    _, case_logits = model(ids, torch.ones_like(ids, dtype=torch.bool), return_case=True)
    assert case_logits[0].argmax(-1).tolist() == [1 if w == "w5" else 0 for w in words]


def test_distill_from_a_missing_set_is_a_clear_error(repo_root, tiny_model_data, tmp_path):
    from punct.errors import PunctError

    with pytest.raises(PunctError, match="punct posteriors"):
        train_student(repo_root, tiny_model_data, tmp_path / "exp", "distill_from=nosuchset")
