"""punct.engine.soft_labels: chunks that keep utterances whole, a run killed between chunks
completed to the same file, the chunks keyed by the teacher's content, and the distillation
loss that mixes the reference with the teacher."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

#: tiny batches run on one torch thread (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def copy_dir(src, dst):
    shutil.copytree(src, dst)
    return dst


def test_chunks_keep_utterances_whole():
    from punct.engine.soft_labels import plan_chunks

    assert plan_chunks([3, 4, 10, 2, 2], 5) == [(0, 1), (1, 2), (2, 3), (3, 5)]
    assert plan_chunks([1, 1, 1], 100) == [(0, 3)] and plan_chunks([], 5) == []


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


def _student_and_teacher():
    """A student's logits [2,3,4], reference classes (one word without), the words with one,
    and a teacher's posteriors, from seed 0."""
    torch.manual_seed(0)
    hard = torch.tensor([[0, 1, -100], [2, 3, 0]])
    logits = torch.randn(2, 3, 4)
    return logits, hard, hard != -100, torch.softmax(torch.randn(2, 3, 4), -1)


def test_distill_loss_mixes_the_reference_and_the_teacher():
    import torch.nn.functional as F

    from punct.engine.soft_labels import distill_loss_sum

    logits, hard, keep, soft = _student_and_teacher()
    ce = F.cross_entropy(logits[keep], hard[keep], reduction="sum")
    kl = F.kl_div(F.log_softmax(logits[keep], -1), soft[keep], reduction="sum")
    assert torch.allclose(distill_loss_sum(logits, hard, None, keep, 0.7), ce)
    assert torch.allclose(distill_loss_sum(logits, hard, soft, keep, 1.0), kl, atol=1e-5)
    assert torch.allclose(distill_loss_sum(logits, hard, soft, keep, 0.25), 0.75 * ce + 0.25 * kl, atol=1e-5)
    # a student equal to its teacher has nothing to learn from it
    assert float(distill_loss_sum(torch.log(soft), hard, soft, keep, 1.0, temperature=2.0)) < 1e-5



def test_mark_weights_weigh_the_kl_term_by_the_teachers_expected_weight_when_asked():
    import torch.nn.functional as F

    from punct.engine.soft_labels import distill_loss_sum

    logits, hard, keep, soft = _student_and_teacher()
    w = torch.tensor([1.0, 1.0, 1.0, 4.0])
    ce = F.cross_entropy(logits[keep], hard[keep], weight=w, reduction="sum")
    kl_rows = F.kl_div(F.log_softmax(logits[keep], -1), soft[keep], reduction="none").sum(-1)
    plain = distill_loss_sum(logits, hard, soft, keep, 0.5, class_weights=w)
    assert torch.allclose(plain, 0.5 * ce + 0.5 * kl_rows.sum(), atol=1e-5)
    weighed = distill_loss_sum(logits, hard, soft, keep, 0.5, class_weights=w, kl_weighted=True)
    assert torch.allclose(weighed, 0.5 * ce + 0.5 * (kl_rows * (soft[keep] @ w)).sum(), atol=1e-5)
    assert float(weighed) > float(plain)  # every expected weight is at least 1 here


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
