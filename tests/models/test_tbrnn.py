"""The T-BRNN (punct.models.tbrnn): shapes, padding that does not leak, dropout in training
only, attention blocks equal to the dense scores, learning a mark decided by the next word,
and its optional case head."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from punct.models import build_model
from punct.models.layers import additive_scores
from punct.text.labels import CASES, LABELS


def small(**kw):
    torch.manual_seed(0)
    args = dict(embedding_dim=8, hidden_size=8, attention_dim=6)
    args.update(kw)
    return build_model("tbrnn", args, 40)


def test_shapes_and_padding_does_not_leak():
    m = small()
    # non-zero late fusion / output weights, so every path reaches the logits
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.3)
    ids = torch.randint(3, 40, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[1, 4:] = False
    y = m(ids, mask)
    assert y.shape == (3, 7, 4)
    alone = m(ids[1:2, :4], mask[1:2, :4])
    assert torch.allclose(y[1, :4], alone[0], atol=1e-5)
    ids2 = ids.clone()
    ids2[1, 5] = 3  # a padded position: must not change anything
    assert torch.allclose(m(ids2, mask)[1, :4], y[1, :4], atol=1e-6)


def test_dropout_acts_in_training_only():
    import pytest

    ids = torch.randint(3, 40, (2, 6))
    mask = torch.ones(2, 6, dtype=torch.bool)
    m = small(dropout=0.5)
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.3)
    m.eval()
    assert torch.equal(m(ids, mask), m(ids, mask))
    m.train()
    assert not torch.allclose(m(ids, mask), m(ids, mask))
    plain = small()  # the default is punctuator2's network: no dropout
    assert plain.drop.p == 0.0
    with pytest.raises(ValueError, match="dropout"):
        small(dropout=1.0)


def test_attention_blocks_match_dense():
    torch.manual_seed(1)
    P, Q, w = torch.randn(2, 5, 3, dtype=torch.double), torch.randn(2, 4, 3, dtype=torch.double), torch.randn(3, dtype=torch.double)
    dense = torch.tanh(P[:, None] + Q[:, :, None]) @ w
    for block in (1, 7, 15, 1000):
        assert torch.allclose(additive_scores(P, Q, w, block), dense)
    P.requires_grad_(), Q.requires_grad_(), w.requires_grad_()
    assert torch.autograd.gradcheck(lambda P, Q, w: additive_scores(P, Q, w, 7), (P, Q, w))


def test_learns_mark_decided_by_next_word():
    """The mark after word t is a function of word t+1: learnable only if output t
    belongs to word t and the model sees the word after it."""
    from punct.engine.decode import predict_streams

    rng = np.random.default_rng(0)

    def data(n, T):
        x = rng.integers(3, 13, size=(n, T))
        nxt = np.concatenate([x[:, 1:], np.full((n, 1), 3)], axis=1)  # end of sequence acts as word 3
        y = np.where(nxt < 5, 2, np.where(nxt < 7, 1, 0))  # PERIOD / COMMA / O
        return torch.from_numpy(x), torch.from_numpy(y)

    torch.manual_seed(0)
    m = build_model("tbrnn", dict(embedding_dim=16, hidden_size=16, attention_dim=8), 13)
    opt = torch.optim.Adam(m.parameters(), lr=0.02)
    for step in range(250):
        x, y = data(16, 12)
        mask = torch.ones_like(x, dtype=torch.bool)
        loss = torch.nn.functional.cross_entropy(m(x, mask).reshape(-1, 4), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    x, y = data(20, 12)
    pred = predict_streams(m, x.tolist(), window=12)  # whole rows in one window
    acc = (np.array(pred) == y.numpy()).mean()
    assert acc > 0.95, acc


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
