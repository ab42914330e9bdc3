"""``punct posteriors`` (punct.bin.posteriors): a teacher's per-word posteriors written into a data
directory as soft labels, read back equal to what punct decode gives, its mark weights taken out,
the chunks of another model kept unless forced."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from punct.text.labels import CASES, LABELS

#: tiny batches run on one torch thread (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def copy_dir(src, dst):
    shutil.copytree(src, dst)
    return dst


def test_posteriors_of_a_tagger_with_case_are_written_and_read_back(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path):
    from punct.bin.posteriors import main
    from punct.engine.decode import posteriors
    from punct.engine.soft_labels import read_soft_targets, soft_columns
    from punct.prosody.features import read_names

    d = copy_dir(tiny_model_data[1], tmp_path / "dev")
    assert main(["--model", str(tiny_tagger), "--data", str(d), "--chunk-words", "50", "--precision", "fp32"]) == 0
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


def test_bf16_posteriors_are_near_fp32s(tiny_mpnet, tiny_tagger, tiny_model_data, tmp_path):
    """--precision bf16 (what auto takes for a tagger on a CPU with native bfloat16) writes
    posteriors within bfloat16's rounding of fp32's, and says so in the chunks' key."""
    from punct.engine.soft_labels import read_soft_targets, write_posteriors

    runs = {}
    for precision in ("fp32", "bf16"):
        d = copy_dir(tiny_model_data[1], tmp_path / precision)
        parts = d / ".teacher.parts"
        write_posteriors(tiny_tagger, d, precision=precision, chunk_words=10**9)
        runs[precision] = read_soft_targets(d, "teacher")[0]
        assert not parts.exists()
    assert runs["fp32"].keys() == runs["bf16"].keys()
    diff = max(float(np.abs(runs["fp32"][k] - runs["bf16"][k]).max()) for k in runs["fp32"])
    assert 0 < diff < 0.05
    with pytest.raises(Exception, match="precision must be"):
        write_posteriors(tiny_tagger, tmp_path / "fp32", precision="fp16", force=True)


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
    assert main(["--model", str(plain_pt), "--data", str(plain), "--precision", "fp32"]) == 0
    assert main(["--model", str(weighted_pt), "--data", str(heavy), "--precision", "fp32"]) == 0
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
