"""The two-stage model with pauses over a transformer tagger (ta_transformer, conf/ta_mpnet_p.yaml)
on a tiny random MPNet: it trains (its loss falls), reads the stage-one states from the cache
keyed by word pieces, passes the tagger's case head through, and decodes as punct decode and
punct restore with word times do."""
from __future__ import annotations

import pytest
import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.text.labels import CASES, LABELS

RUN = ["batch_size=4", "slice_length=20", "decode_window=20", "valid_batch_size=4", "checkpoint_minutes=0", "threads=1"]
@pytest.fixture(params=["fine-tuned", "adapters"])
def tagger(request):
    """Stage one: the fully fine-tuned tagger (conf/mpnet.yaml) or the shipped form with
    adapters (conf/accurate.yaml, whose state file holds only its trained part)."""
    return request.getfixturevalue("tiny_tagger" if request.param == "fine-tuned" else "tiny_lora_tagger")


def train_second_stage(repo_root, tagger, data, exp, *extra):
    from punct.engine.train import train

    cfg = load_config(repo_root / "conf/ta_mpnet_p.yaml", TrainConfig,
                      ["model_args.hidden_size=8", f"init_from={tagger}", "max_epochs=4", "patience=4", "lr=0.02",
                       "model_args.dropout=0.0"] + RUN + list(extra))
    return train(cfg, *data, exp)


def test_second_stage_over_the_tagger_trains_and_decodes(tiny_mpnet, tagger, tiny_model_data, repo_root, tmp_path):
    from punct.data.datadir import load_utterances
    from punct.engine.decode import decode, posteriors
    from punct.engine.expdir import read_train_log

    exp = tmp_path / "exp"
    train_second_stage(repo_root, tagger, tiny_model_data, exp)
    log = read_train_log(exp / "train_log.tsv")
    assert len(log) == 4 and log[-1]["train_loss"] < 0.8 * log[0]["train_loss"]  # the pause is learnt
    model, inputs, ck = ckpt.load_model(exp / "best.pt")
    assert ck["model"] == "ta_transformer" and ck["inputs"]["kind"] == "wordpieces+feats"
    assert ck["model_args"]["stage1"]["model"] == "transformer_tagger" and ck["model_args"]["feature_names"] == ["pause_after"]
    # stage one is in the checkpoint, unchanged
    st1 = ckpt.load(tagger)["state_dict"]
    assert all(torch.equal(ck["state_dict"][f"stage1.{k}"], v) for k, v in st1.items())
    # punct decode: the dev set's pause.scp read with its words
    dev = tiny_model_data[1]
    out = decode(exp / "best.pt", dev)
    utts = load_utterances(dev)
    assert [len(u.words) for u in out] == [len(u.words) for u in utts]
    _, probs, missing = posteriors(exp / "best.pt", dev)
    assert probs[0].shape == (len(utts[0].words), len(LABELS)) and missing is not None
    # the tagger's case head passes through: the same case logits as stage one's own
    tagger_model, _, _ = ckpt.load_model(tagger)
    ids = [inputs.encode(u.texts[:12]) for u in utts[:2]]
    import numpy as np

    arr = np.array(ids)
    feats = np.zeros((2, 12, 2), np.float32)
    kw = inputs.tensors(arr, np.array([12, 12]), feats=feats)
    marks, cases = model(**kw, return_case=True)
    assert marks.shape == (2, 12, len(LABELS)) and cases.shape == (2, 12, len(CASES))
    s1 = {k: kw[k] for k in ("pieces", "piece_mask", "word_last", "mask")}
    _, ref_cases = tagger_model.hidden_states(**s1, return_case=True)
    assert torch.allclose(cases, ref_cases, atol=1e-5)
    # all words without evidence: the tagger's own marks, as it decodes alone (conf/mpnet.yaml's
    # mark_weights taken out of its logits)
    feats[..., -1] = 1.0
    kw = inputs.tensors(arr, np.array([12, 12]), feats=feats)
    assert tagger_model.punct_logit_offset is not None
    alone = tagger_model(**s1) + torch.as_tensor(tagger_model.punct_logit_offset, dtype=torch.float32)
    assert torch.allclose(model(**kw), alone, atol=1e-5)


def test_restore_with_word_times(tiny_mpnet, tagger, tiny_model_data, repo_root, tmp_path):
    from punct.data.datadir import load_utterances
    from punct.engine.restorer import Restorer

    exp = tmp_path / "exp"
    train_second_stage(repo_root, tagger, tiny_model_data, exp, "max_epochs=1")
    utts = load_utterances(tiny_model_data[1])
    r = Restorer.load(exp / "best.pt")
    assert r.inputs is not None  # the model reads pauses, computed from the word times
    out = r.restore(utts)
    assert [len(u.words) for u in out] == [len(u.words) for u in utts]
    assert all(w.label in LABELS for u in out for w in u.words)
    # the pause after a word moves its decision: the same words with other times decode otherwise
    import dataclasses

    shifted = [dataclasses.replace(u, words=[dataclasses.replace(w, start=None, end=None) for w in u.words])
               for u in utts]
    tagger_only = Restorer.load(tagger).restore(shifted)
    untimed = r.restore(shifted)
    assert [w.label for u in untimed for w in u.words] == [w.label for u in tagger_only for w in u.words]


def test_stage_one_states_are_cached_by_pieces(tiny_mpnet, tagger):
    import numpy as np

    from punct.engine.inputs import PieceFeatureInputs
    from punct.models import build_model

    st1 = ckpt.load(tagger)
    m = build_model("ta_transformer", {"hidden_size": 4, "feature_names": ["pause_after"],
                                       "stage1": {"model": "transformer_tagger", "model_args": st1["model_args"]}},
                    st1["model_args"] and PieceFeatureInputs("all-mpnet-base-v2").input_size)
    m.load_stage1(st1["state_dict"])
    m.freeze_stage1()
    m.cache_stage1(1)
    m.eval()
    inputs = PieceFeatureInputs("all-mpnet-base-v2", sets=["pause"], columns=["pause_after"])
    rows = [["w1", "w2", "cats", "w3"], ["the", "mat", "w4", "w5"]]
    arr = np.array([inputs.encode(r) for r in rows])
    feats = np.zeros((2, 4, 2), np.float32)
    first = m(**inputs.tensors(arr, np.array([4, 4]), feats=feats), return_case=True)
    assert (m.h1_cache_hits, m.h1_cache_misses) == (0, 2)
    again = m(**inputs.tensors(arr[::-1].copy(), np.array([4, 4]), feats=feats), return_case=True)
    assert (m.h1_cache_hits, m.h1_cache_misses) == (2, 2)
    assert torch.allclose(again[0], first[0].flip(0), atol=1e-6) and torch.allclose(again[1], first[1].flip(0), atol=1e-6)


def test_a_word_model_is_not_its_stage_one(tiny_mpnet, tiny_model_data, stage1_models, repo_root, tmp_path):
    from punct.errors import PunctError

    with pytest.raises(PunctError, match="builds on transformer_tagger"):
        train_second_stage(repo_root, stage1_models["tbrnn"], tiny_model_data, tmp_path / "exp")


def test_the_second_stage_spells_mixed_case_as_stage_one(tiny_mpnet, tagger, tiny_model_data, repo_root, tmp_path):
    # stage one's case head decides the case classes, so the spellings of its MIXED class are
    # stage one's (its training text's), not only those of the second stage's training set
    ck1 = ckpt.load(tagger)
    ck1["mixed_spellings"] = {"iphone": "iPhone", "mcdonald": "McDonald"}
    first = tmp_path / "stage1.pt"
    ckpt.save(first, ck1)
    exp = tmp_path / "exp"
    train_second_stage(repo_root, first, tiny_model_data, exp, "max_epochs=1")
    assert ckpt.load(exp / "best.pt")["mixed_spellings"] == {"iphone": "iPhone", "mcdonald": "McDonald"}


@pytest.mark.parametrize("adapter, expected", [("lora", True), ("", False)])
def test_stage_one_encoder_comes_from_where_its_weights_live(monkeypatch, adapter, expected):
    """A fine-tuned stage one's file holds all its weights (no published encoder is read); an
    adapter stage one's file holds only its trained part, so its encoder must be the published
    one: a random encoder under its adapters gave the pause stage garbage states."""
    import punct.models.twostage as twostage

    seen = {}

    def fake_build(name, args, vocab_size):
        seen.update(args)
        raise RuntimeError("built")

    monkeypatch.setattr(twostage, "build_model", fake_build)
    with pytest.raises(RuntimeError, match="built"):
        from punct.models import build_model

        build_model("ta_transformer", {"hidden_size": 4, "feature_names": ["pause_after"],
                                       "stage1": {"model": "transformer_tagger",
                                                  "model_args": {"pretrained": True, "adapter": adapter}}}, 10)
    assert seen["pretrained"] is expected


def test_second_stage_ships_beside_its_stage_one(tiny_mpnet, tiny_lora_tagger, tiny_model_data, repo_root, tmp_path):
    """punct.bin.export --stage1-file: the pause stage's file leaves the tagger's weights out and
    loads them from the tagger's file beside it (models/accurate/: the tagger ships once), with
    the same outputs; a changed or missing tagger file gives one clear line."""
    import shutil

    import numpy as np

    from punct.bin.export import export
    from punct.errors import PunctError

    exp = tmp_path / "exp"
    train_second_stage(repo_root, tiny_lora_tagger, tiny_model_data, exp, "max_epochs=1")
    ship = tmp_path / "ship"
    ship.mkdir()
    shutil.copy(tiny_lora_tagger, ship / "tagger.pt")
    export(exp / "best.pt", ship / "pauses.pt", stage1_file=ship / "tagger.pt")
    raw = torch.load(ship / "pauses.pt", weights_only=True)
    assert raw["state_dict"] and not any(k.startswith("stage1.") for k in raw["state_dict"])
    assert raw["stage1_file"]["file"] == "tagger.pt"
    full, inputs, _ = ckpt.load_model(exp / "best.pt")
    shipped, _, _ = ckpt.load_model(ship / "pauses.pt")
    arr = np.array([inputs.encode(["w1", "w2", "cats", "w3"])])
    feats = np.random.default_rng(0).normal(size=(1, 4, 2)).astype(np.float32)
    kw = inputs.tensors(arr, np.array([4]), feats=feats)
    assert torch.equal(full(**kw), shipped(**kw))
    export(exp / "best.pt", ship / "half.pt", half=True, stage1_file=ship / "tagger.pt")  # stage two in float16
    assert torch.allclose(full(**kw), ckpt.load_model(ship / "half.pt")[0](**kw), atol=1e-2)
    # another tagger in its place: refused, not decoded with the wrong stage one
    other = ckpt.load(tiny_lora_tagger)
    other["state_dict"] = {k: v + 1 for k, v in other["state_dict"].items()}
    ckpt.save(ship / "tagger.pt", {k: v for k, v in other.items() if k != "format"})
    with pytest.raises(PunctError, match="not the file it was trained on"):
        ckpt.load(ship / "pauses.pt")
    with pytest.raises(PunctError, match="weights differ"):
        export(exp / "best.pt", ship / "again.pt", stage1_file=ship / "tagger.pt")
    assert not (ship / "again.pt").exists()
    (ship / "tagger.pt").unlink()
    with pytest.raises(PunctError, match="missing beside it"):
        ckpt.load(ship / "pauses.pt")
