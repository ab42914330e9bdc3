"""Two-stage models: the stage one of init_from is kept fixed, the saved model decodes
without it, and words without acoustic evidence take the stage-one decision; T-LSTM-p
ignores whatever a missing word's feature row holds."""
from __future__ import annotations

import shutil

import pytest
import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.text.labels import LABELS

#: tiny training runs (as tests/conftest.py's stage-one models)
RUN1 = ["batch_size=4", "slice_length=20", "max_epochs=1", "epoch_slices=8", "valid_slices=4", "checkpoint_minutes=0",
        "threads=1"]


def train_ta(conf, stage1, data, exp, *extra, steps=None):
    from punct.engine.train import train

    cfg = load_config(conf, TrainConfig, ["model_args.hidden_size=8", f"init_from={stage1}"] + RUN1 + list(extra))
    return train(cfg, *data, exp, on_step=None if steps is None else (lambda e, b: steps.append(b)))


def test_stage_one_stays_fixed_and_the_checkpoint_is_self_contained(repo_root, tiny_model_data, stage1_models, tmp_path):
    from punct.engine.decode import decode

    stage1 = tmp_path / "stage1.pt"
    shutil.copy(stage1_models["tbrnn"], stage1)
    before = ckpt.load(stage1)
    steps = []
    train_ta(repo_root / "conf/ta_brnn_p.yaml", stage1, tiny_model_data, tmp_path / "exp", steps=steps)
    assert steps == [1, 2]
    ck = ckpt.load(tmp_path / "exp" / "checkpoint.pt")
    # stage one's weights are those of the stage-one model, unchanged after the optimizer steps
    for k, v in before["state_dict"].items():
        assert torch.equal(ck["state_dict"]["stage1." + k], v), k
    fresh_out = [k for k in ck["state_dict"] if k.startswith("out.")]
    assert fresh_out and ck["model_args"]["stage1"]["model"] == "tbrnn"
    assert ck["model_args"]["stage1"]["model_args"] == before["model_args"]
    assert ck["vocab"] == before["vocab"] and ck["stage1_train_config"] == before["train_config"]
    assert ck["inputs"]["kind"] == "words+feats" and ck["inputs"]["columns"] == ["pause_after"]
    assert len(ck["inputs"]["mean"]) == 1 and ck["inputs"]["std"][0] > 0
    # the optimizer only holds the new layers
    n_opt = sum(len(g["params"]) for g in ck["optimizer"]["param_groups"])
    assert n_opt == len([k for k in ck["state_dict"] if not k.startswith("stage1.")])
    # the saved model decodes alone
    stage1.unlink()
    hyp = decode(tmp_path / "exp" / "best.pt", tiny_model_data[1], window=9)
    assert sum(len(u) for u in hyp) == 120


@pytest.mark.parametrize("conf,family,extra", [("ta_brnn_p", "tbrnn", []), ("ta_lstm_p", "tlstm", []),
                                               ("ta_brnn_p", "drnn_lwma", ["model=ta_drnn"])])
def test_missing_words_take_the_stage_one_decision(repo_root, tiny_model_data, stage1_models, tmp_path, conf, family,
                                                   extra):
    """(a DRNN-LWMA stage one, with a case head, under ta_drnn: the deeper student's pause stage)"""
    train_ta(repo_root / f"conf/{conf}.yaml", stage1_models[family], tiny_model_data, tmp_path / "exp", *extra)
    model, vocab, _ = ckpt.load_model(tmp_path / "exp" / "best.pt")
    stage1, _, _ = ckpt.load_model(stage1_models[family])
    with torch.no_grad():  # give the new layers weight, so fused and lexical outputs differ
        for p in list(model.rnn.parameters()) + list(model.out.parameters()):
            p.add_(torch.randn_like(p))
    torch.manual_seed(3)
    ids = torch.randint(3, len(vocab), (2, 15))
    mask = torch.ones(2, 15, dtype=torch.bool)
    feats = torch.randn(2, 15, 1) * 100
    missing = torch.rand(2, 15) < 0.4
    with torch.no_grad():
        out = model(ids, mask, feats, missing)
        lex = stage1(ids, mask)
    assert torch.equal(out[missing], lex[missing])
    assert not torch.allclose(out[~missing], lex[~missing])


def test_without_any_word_times_it_punctuates_as_the_text_model(repo_root, tiny_model_data, stage1_models, tmp_path):
    """A data directory without word_times or pause.scp: features computed on the fly, every word
    flagged missing; decoding never fails and gives exactly the stage-one labels."""
    from punct.data.datadir import load_utterances, write_datadir
    from punct.engine.decode import decode
    from punct.text.words import Utterance, Word

    train_ta(repo_root / "conf/ta_brnn_p.yaml", stage1_models["tbrnn"], tiny_model_data, tmp_path / "exp")
    plain = tmp_path / "plain"
    write_datadir(plain, [Utterance(u.id, [Word(w.text, w.label) for w in u.words])
                          for u in load_utterances(tiny_model_data[1])])
    assert not (plain / "word_times").exists()
    two = decode(tmp_path / "exp" / "best.pt", plain, window=9)
    one = decode(stage1_models["tbrnn"], plain, window=9)
    assert [u.labels for u in two] == [u.labels for u in one]


def test_a_stage_one_with_a_decision_bias_passes_it_to_the_words_without_times(repo_root, tiny_model_data,
                                                                               stage1_models, tmp_path):
    """punct set-bias on stage one, then its second stage trained: the bias is recorded as
    stage1_decision_bias and words without times are labelled as the biased stage one labels them."""
    from punct.bin import set_bias
    from punct.data.datadir import load_utterances, write_datadir
    from punct.engine.decode import decode
    from punct.text.words import Utterance, Word

    stage1 = tmp_path / "stage1.pt"
    shutil.copy(stage1_models["tbrnn"], stage1)
    assert set_bias.main(["--model", str(stage1), "--bias", "3", "0", "-2"]) == 0
    train_ta(repo_root / "conf/ta_brnn_p.yaml", stage1, tiny_model_data, tmp_path / "exp")
    ck = ckpt.load(tmp_path / "exp" / "best.pt")
    assert ck["stage1_decision_bias"] == {"COMMA": 3.0, "PERIOD": 0.0, "QUESTION": -2.0}
    plain = tmp_path / "plain"
    write_datadir(plain, [Utterance(u.id, [Word(w.text, w.label) for w in u.words])
                          for u in load_utterances(tiny_model_data[1])])
    biased = decode(stage1, plain, window=9)
    assert [u.labels for u in decode(tmp_path / "exp" / "best.pt", plain, window=9)] == [u.labels for u in biased]
    assert [u.labels for u in biased] != [u.labels for u in decode(stage1_models["tbrnn"], plain, window=9)]

def test_text_only_second_stage_has_no_feature_input(repo_root, tiny_model_data, stage1_models, tmp_path):
    train_ta(repo_root / "conf/ta_lstm.yaml", stage1_models["tlstm"], tiny_model_data, tmp_path / "exp")
    model, _, ck = ckpt.load_model(tmp_path / "exp" / "best.pt")
    assert ck["model"] == "ta_lstm" and ck["model_args"]["feature_names"] == []
    assert model.rnn.input_size == model.stage1.hidden_dim


def test_stage_one_of_the_wrong_family_is_an_error(repo_root, tiny_model_data, stage1_models, tmp_path):
    from punct.errors import PunctError

    with pytest.raises(PunctError, match="stage one is a tlstm model"):
        train_ta(repo_root / "conf/ta_brnn_p.yaml", stage1_models["tlstm"], tiny_model_data, tmp_path / "exp")
    with pytest.raises(PunctError, match="set init_from"):
        train_ta(repo_root / "conf/ta_brnn_p.yaml", "", tiny_model_data, tmp_path / "exp2", "freeze=false")
    from punct.engine.train import train

    # a one-stage model's init_from is a warm start from a model of its own kind
    cfg = load_config(repo_root / "conf/tlstm.yaml", TrainConfig, [f"init_from={stage1_models['tbrnn']}"] + RUN1)
    with pytest.raises(PunctError, match="init_from is a tbrnn model; a tlstm run"):
        train(cfg, *tiny_model_data, tmp_path / "exp3")
    cfg = load_config(repo_root / "conf/tlstm.yaml", TrainConfig,
                      [f"init_from={stage1_models['tlstm']}", "freeze=true"] + RUN1)
    with pytest.raises(PunctError, match="tlstm has no stage one"):
        train(cfg, *tiny_model_data, tmp_path / "exp4")


def test_tlstm_p_ignores_missing_words_feature_values():
    from punct.models import build_model

    torch.manual_seed(0)
    m = build_model("tlstm_p", {"embedding_dim": 6, "hidden_size": 6, "feature_names": ["pause_after"]}, 20).eval()
    ids = torch.randint(3, 20, (2, 9))
    mask = torch.ones(2, 9, dtype=torch.bool)
    f = torch.randn(2, 9, 1)
    missing = torch.zeros(2, 9, dtype=torch.bool)
    missing[:, [2, 5]] = True
    g = f.clone()
    g[missing] = -1e4
    with torch.no_grad():
        assert torch.equal(m(ids, mask, f, missing), m(ids, mask, g, missing))
        # the pause after word 4 reaches the decision after word 4 (and none before it)
        h = f.clone()
        h[:, 4] += 5
        a, b = m(ids, mask, f, missing), m(ids, mask, h, missing)
    assert torch.equal(a[:, :4], b[:, :4]) and not torch.allclose(a[:, 4], b[:, 4])


@pytest.mark.parametrize("family,conf", [("tbrnn", "ta_brnn_p"), ("tlstm", "ta_lstm_p")])
def test_stage1_cache_trains_the_same_model(repo_root, tiny_model_data, stage1_models, tmp_path, family, conf,
                                           monkeypatch):
    """The fixed stage one's states, kept from the first epoch (stage1_cache_mb), give the
    training they replace: the same second stage after two epochs as recomputing them."""
    from punct.models.twostage import TwoStage

    hits = []  # per training step: rows whose stage-one states came from the cache
    states = TwoStage._stage1_states

    def counted(self, s1):
        before = getattr(self, "h1_cache_hits", 0)
        out = states(self, s1)
        if self.training:
            hits.append(getattr(self, "h1_cache_hits", 0) - before)
        return out

    monkeypatch.setattr(TwoStage, "_stage1_states", counted)
    weights, served = {}, {}
    for mb in (0, 64):
        exp = tmp_path / f"exp{mb}"
        hits.clear()
        # every slice every epoch, so that epoch 2's steps all read cached states
        train_ta(repo_root / f"conf/{conf}.yaml", stage1_models[family], tiny_model_data, exp,
                 f"stage1_cache_mb={mb}", "max_epochs=2", "epoch_slices=0")
        weights[mb] = ckpt.load(exp / "checkpoint.pt")["state_dict"]
        served[mb] = list(hits)
    n = len(served[64]) // 2
    assert served[0] == [0] * len(served[0]) and served[64][:n] == [0] * n  # none without it, none in epoch 1
    assert n > 0 and all(h > 0 for h in served[64][n:])  # epoch 2 trained on cached states only
    for k, v in weights[0].items():
        assert torch.allclose(weights[64][k], v, atol=1e-5), k


def test_stage1_cache_hits_on_rows_seen_and_respects_its_bound(stage1_models):
    from punct.models import build_model

    st1 = ckpt.load(stage1_models["tbrnn"])
    m = build_model("ta_brnn", {"hidden_size": 4, "stage1": {"model": "tbrnn", "model_args": st1["model_args"]}},
                    len(st1["vocab"]))
    with pytest.raises(ValueError, match="frozen"):
        m.cache_stage1(1)
    m.freeze_stage1()
    m.cache_stage1(1)
    ids = torch.randint(3, 20, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[1, 5:] = False
    first = m(ids, mask)
    assert (m.h1_cache_hits, m.h1_cache_misses) == (0, 3)
    ids2 = ids.clone()
    ids2[1, 5:] = 9  # padding is not part of a row
    again = m(ids2[[2, 0, 1]], mask[[2, 0, 1]])
    assert (m.h1_cache_hits, m.h1_cache_misses) == (3, 3)
    assert torch.allclose(again[[1, 2, 0]][mask], first[mask], atol=1e-6)
    m.cache_stage1(1e-4)  # 104 bytes: not even one row of 7 x hidden_dim floats
    m(ids, mask)
    m(ids, mask)
    assert m.h1_cache_hits == 0 and not m._h1_cache


def test_a_pause_model_exports_and_restores_a_timed_call(repo_root, tiny_model_data, stage1_models, tmp_path):
    """punct.bin.export checks its copy through punct restore, which gives a pause model
    its pauses from the word times (the shipped default may be a TA-BRNN-p)."""
    from punct.bin.export import export
    from punct.engine.restorer import Restorer
    from punct.text.words import Utterance, Word

    train_ta(repo_root / "conf/ta_brnn_p.yaml", stage1_models["tbrnn"], tiny_model_data, tmp_path / "exp")
    export(tmp_path / "exp" / "best.pt", tmp_path / "shipped.pt", half=True)
    restorer = Restorer.load(tmp_path / "shipped.pt")
    calls = []  # what the model is given: its feature rows and which of them are missing
    forward = restorer.model.forward

    def spy(ids, mask, feats=None, feat_missing=None):
        calls.append((feats[mask].clone(), feat_missing[mask].clone()))
        return forward(ids, mask, feats, feat_missing)

    restorer.model.forward = spy
    names = "a b c d e f".split()

    def restore(gap_after_c):
        t, words = 0.0, []
        for w in names:
            words.append(Word(w, start=t, end=t + 0.3))
            t += 0.3 + (gap_after_c if w == "c" else 0.1)
        calls.clear()
        out = restorer.restore([Utterance("u", words)])[0]
        assert [w.text for w in out.words] == names and all(w.label in LABELS for w in out.words)
        assert len(calls) == 1
        return calls[0]

    even, paused = restore(0.1), restore(2.0)
    assert not even[1].any() and not paused[1].any()  # every word timed: no row missing
    assert torch.equal(even[0][:2], paused[0][:2]) and not torch.equal(even[0][2], paused[0][2])  # c's pause
    calls.clear()
    restorer.restore([Utterance("u", [Word(w) for w in names])])  # no times: every row missing
    assert calls[0][1].all()


def test_a_bidirectional_second_stage_sees_the_pauses_after_the_next_words(tmp_path):
    """The mark after word t of a unidirectional second stage reads the pauses up to t only; a
    bidirectional one's also reads those after t, and a row's result does not depend on the
    padding of a longer row in its batch."""
    from tests.tiny_models import make_ta_brnn_p

    for bi in (False, True):
        make_ta_brnn_p(tmp_path / f"{bi}.pt", seed=7, bidirectional=bi)
        model, _, _ = ckpt.load_model(tmp_path / f"{bi}.pt")
        ids = torch.tensor([[3, 4, 5, 6, 7, 8], [9, 10, 11, 0, 0, 0]])
        mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
        feats = torch.full((2, 6, 1), 0.1)
        missing = torch.zeros(2, 6, dtype=torch.bool)
        later = feats.clone()
        later[0, 4, 0] = 3.0  # a long pause after word 4 of the first row
        with torch.no_grad():
            a, b = model(ids, mask, feats, missing), model(ids, mask, later, missing)
            alone = model(ids[1:, :3], mask[1:, :3], feats[1:, :3], missing[1:, :3])
        assert torch.equal(a[0, :4], b[0, :4]) != bi  # words 0-3: only the bidirectional one reads word 4's pause
        assert not torch.equal(a[0, 4], b[0, 4])
        torch.testing.assert_close(a[1, :3], alone[0], atol=1e-5, rtol=1e-5)
