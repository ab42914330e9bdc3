"""T-LSTM (punct.models.tlstm): output t reads exactly one word ahead, the projection of its
input bounded by tanh when asked."""
from __future__ import annotations

import torch

from punct.models import build_model


def _randomize(m):
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return m


def test_tlstm_reads_one_word_ahead_and_no_further():
    torch.manual_seed(0)
    m = _randomize(build_model("tlstm", {"embedding_dim": 6, "hidden_size": 5}, 30)).eval()
    ids = torch.randint(3, 30, (1, 8))
    mask = torch.ones(1, 8, dtype=torch.bool)
    y = m(ids, mask)
    changed = ids.clone()
    changed[0, 4] = (changed[0, 4] + 1 - 3) % 27 + 3  # word 4
    y2 = m(changed, mask)
    assert torch.allclose(y[0, :3], y2[0, :3])  # outputs 0..2 have not read word 4
    assert not torch.allclose(y[0, 3], y2[0, 3])  # output 3 (the mark after word 3) has


def test_tlstm_tanh_projection_bounds_the_lstm_input():
    import pytest

    torch.manual_seed(0)
    m = _randomize(build_model("tlstm", {"embedding_dim": 6, "hidden_size": 5, "projection": "tanh"}, 30))
    x = torch.randint(3, 30, (2, 8))
    assert torch.equal(m.project(x), torch.tanh(m.embedding(x)))
    assert m.projection == "tanh" and build_model("tlstm", {}, 30).projection == "linear"
    with pytest.raises(ValueError, match="projection"):
        build_model("tlstm", {"projection": "relu"}, 30)
