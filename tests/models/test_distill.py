"""A teacher's soft labels as data (punct posteriors, punct.engine.soft_labels) and a student
trained on them (distill_from): written, read back and resumed after a kill; a student with
distill_weight 1 moves toward its teacher, marks and case; T-BRNN's optional case head."""
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


def test_chunks_keep_utterances_whole():
    from punct.engine.soft_labels import plan_chunks

    assert plan_chunks([3, 4, 10, 2, 2], 5) == [(0, 1), (1, 2), (2, 3), (3, 5)]
    assert plan_chunks([1, 1, 1], 100) == [(0, 3)] and plan_chunks([], 5) == []


def test_posteriors_of_a_tagger_with_case_are_written_and_read_back(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path):
    from punct.bin.posteriors import main
    from punct.engine.decode import posteriors
    from punct.engine.soft_labels import read_soft_targets, soft_columns
    from punct.prosody.features import read_names

    d = copy_dir(tiny_model_data[1], tmp_path / "dev")
    assert main(["--model", str(tiny_tagger), "--data", str(d), "--chunk-words", "50"]) == 0
    assert (d / "teacher.done").is_file() and not (d / ".teacher.parts").exists()
    assert read_names(d, "teacher") == soft_columns(True)
    soft, layout = read_soft_targets(d, "teacher")
    assert layout.case and layout.width == len(LABELS) + len(CASES)
    utts, probs, _ = posteriors(tiny_tagger, d)
    for u, p in zip(utts, probs):
        assert soft[u.id].shape == (len(u.words), layout.width)
        assert np.allclose(soft[u.id][:, : len(LABELS)], p, atol=1e-5)  # the windows of punct decode
        assert np.allclose(soft[u.id][:, len(LABELS):].sum(1), 1.0, atol=1e-5)
    # done: a rerun does nothing
    mtime = (d / "teacher.ark").stat().st_mtime_ns
    assert main(["--model", str(tiny_tagger), "--data", str(d)]) == 0
    assert (d / "teacher.ark").stat().st_mtime_ns == mtime


def test_a_teachers_mark_weights_are_taken_out_of_its_posteriors(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path):
    """A teacher trained with mark_weights {QUESTION: 4} writes the posteriors its decoding gives
    (the question's odds divided by 4 in the logits), lower on the question than the same
    weights without them."""
    from punct.bin.posteriors import main
    from punct.engine import checkpoint as ckpt
    from punct.engine.decode import posteriors
    from punct.engine.soft_labels import read_soft_targets

    ck = ckpt.load(tiny_tagger)
    tc = dict(ck.get("train_config") or {})
    plain_pt, weighted_pt = tmp_path / "plain.pt", tmp_path / "weighted.pt"
    ckpt.save(plain_pt, dict(ck, train_config=dict(tc, mark_weights={})))
    ckpt.save(weighted_pt, dict(ck, train_config=dict(tc, mark_weights={"QUESTION": 4.0})))
    plain, heavy = copy_dir(tiny_model_data[1], tmp_path / "a"), copy_dir(tiny_model_data[1], tmp_path / "b")
    assert main(["--model", str(plain_pt), "--data", str(plain)]) == 0
    assert main(["--model", str(weighted_pt), "--data", str(heavy)]) == 0
    a, b = read_soft_targets(plain, "teacher")[0], read_soft_targets(heavy, "teacher")[0]
    utts, probs, _ = posteriors(weighted_pt, heavy)
    for u, p in zip(utts, probs):
        assert np.allclose(b[u.id][:, : len(LABELS)], p, atol=1e-5)  # what punct decode gives
    # the windows follow each model's own decisions, so a word may sit in other windows: overall
    qa, qb = (np.concatenate([x[u.id][:, 3] for u in utts]) for x in (a, b))
    assert (qb < qa).mean() > 0.9 and qb.sum() < 0.5 * qa.sum()


def test_chunks_of_another_model_are_kept_unless_forced(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path, capsys):
    """An unfinished run's chunks made with another model are an error naming what differs
    (they may hold hours of decoding); --force starts over."""
    from punct.bin.posteriors import main

    d = copy_dir(tiny_model_data[1], tmp_path / "dev")
    parts = d / ".teacher.parts"
    parts.mkdir()
    (parts / "key.json").write_text('{"model": {"path": "other.pt"}}')
    (parts / "00000.npz").write_bytes(b"kept")
    assert main(["--model", str(tiny_tagger), "--data", str(d)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "made with another model" in err and "--force" in err
    assert (parts / "00000.npz").read_bytes() == b"kept"
    assert main(["--model", str(tiny_tagger), "--data", str(d), "--force"]) == 0
    assert (d / "teacher.done").is_file() and not parts.exists()


def test_a_rerun_after_a_kill_completes_and_gives_the_same_file(stage1_models, tiny_model_data, tmp_path, monkeypatch):
    import punct.engine.infer as decode_mod
    from punct.engine.soft_labels import read_soft_targets, write_posteriors

    model = stage1_models["tbrnn"]
    whole = copy_dir(tiny_model_data[0], tmp_path / "whole")
    killed = copy_dir(tiny_model_data[0], tmp_path / "killed")
    one = write_posteriors(model, whole, "teacher", chunk_words=100)
    assert one["chunks"] >= 4 and one["decoded"] == one["words"]

    real, calls = decode_mod.run_streams, []

    def dies_on_the_third_chunk(*a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(decode_mod, "run_streams", dies_on_the_third_chunk)
    with pytest.raises(KeyboardInterrupt):
        write_posteriors(model, killed, "teacher", chunk_words=100)
    assert sorted(p.name for p in (killed / ".teacher.parts").glob("*.npz")) == ["00000.npz", "00001.npz"]
    assert not (killed / "teacher.scp").exists()
    monkeypatch.setattr(decode_mod, "run_streams", real)
    two = write_posteriors(model, killed, "teacher", chunk_words=100)
    assert 0 < two["decoded"] < two["words"] == one["words"]  # only the chunks the kill left
    assert (killed / "teacher.ark").read_bytes() == (whole / "teacher.ark").read_bytes()
    soft, layout = read_soft_targets(killed, "teacher")
    assert not layout.case and all(np.allclose(m.sum(1), 1.0, atol=1e-5) for m in soft.values())


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


def test_distill_loss_mixes_the_reference_and_the_teacher():
    import torch.nn.functional as F

    from punct.engine.soft_labels import distill_loss_sum

    torch.manual_seed(0)
    logits = torch.randn(2, 3, 4)
    hard = torch.tensor([[0, 1, -100], [2, 3, 0]])
    keep = hard != -100
    soft = torch.softmax(torch.randn(2, 3, 4), -1)
    ce = F.cross_entropy(logits[keep], hard[keep], reduction="sum")
    kl = F.kl_div(F.log_softmax(logits[keep], -1), soft[keep], reduction="sum")
    assert torch.allclose(distill_loss_sum(logits, hard, None, keep, 0.7), ce)
    assert torch.allclose(distill_loss_sum(logits, hard, soft, keep, 1.0), kl, atol=1e-5)
    assert torch.allclose(distill_loss_sum(logits, hard, soft, keep, 0.25), 0.75 * ce + 0.25 * kl, atol=1e-5)
    # a student equal to its teacher has nothing to learn from it
    assert float(distill_loss_sum(torch.log(soft), hard, soft, keep, 1.0, temperature=2.0)) < 1e-5


def test_tbrnn_case_head():
    from punct.engine.loss import loss_sum_of
    from punct.models import build_model

    torch.manual_seed(0)
    m = build_model("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "case_head": True}, 20)
    ids = torch.randint(3, 20, (2, 6))
    mask = torch.ones(2, 6, dtype=torch.bool)
    marks, cases = m(ids, mask, return_case=True)
    assert marks.shape == (2, 6, len(LABELS)) and cases.shape == (2, 6, len(CASES))
    assert torch.equal(m(ids, mask), marks)
    y = torch.zeros(2, 6, dtype=torch.long)
    target = torch.full((2, 6), -100)
    target[0, 2], target[1, 4] = 1, 2
    opt = torch.optim.Adam(m.parameters(), lr=0.05)
    for _ in range(40):
        opt.zero_grad()
        loss_sum_of(m, {"ids": ids, "mask": mask, "cases": target}, y).backward()
        opt.step()
    _, cases = m(ids, mask, return_case=True)
    assert cases[0, 2].argmax() == 1 and cases[1, 4].argmax() == 2
    plain = build_model("tbrnn", {"embedding_dim": 8, "hidden_size": 8}, 20)
    assert plain.case_out is None
    with pytest.raises(ValueError, match="no case head"):
        plain(ids, mask, return_case=True)


def test_chunks_go_on_with_a_copy_of_the_teacher_in_another_place(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path):
    """The chunks' key is the teacher's and the text's content, not their path or time: the state
    file of a fresh clone (another path, a new mtime) goes on with the chunks an earlier session made."""
    import os
    import shutil

    from punct.engine.soft_labels import _identity

    copy = tmp_path / "clone" / "tagger.pt"
    copy.parent.mkdir()
    shutil.copy(tiny_tagger, copy)
    os.utime(copy, ns=(1, 1))
    from pathlib import Path

    assert _identity(copy) == _identity(Path(tiny_tagger))
