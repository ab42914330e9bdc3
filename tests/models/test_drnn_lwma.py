"""DRNN-LWMA (punct.models.drnn_lwma): padding never leaks into the words before it; the
embedding starts as the config says; the -pre variant starts from the vectors."""
from __future__ import annotations

import torch

from punct.models import build_model


def _randomize(m):
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return m


def test_drnn_lwma_padding_does_not_leak():
    torch.manual_seed(0)
    m = _randomize(build_model("drnn_lwma", {"embedding_dim": 6, "hidden_size": 4, "num_layers": 2,
                                             "num_heads": 2, "dropout": 0.0}, 30)).eval()
    ids = torch.randint(3, 30, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 4:] = False
    y = m(ids, mask)
    alone = m(ids[1:, :4], mask[1:, :4])
    assert torch.allclose(y[1, :4], alone[0], atol=1e-5)
    assert build_model("drnn_lwma_pre", {"hidden_size": 4, "num_layers": 1}, 30).embedding.weight.shape[1] == 50


def test_drnn_lwma_embedding_init():
    """``embedding_init: xavier`` starts the embedding near zero (T-BRNN's start), ``normal`` is
    torch's N(0, 1); a config naming another start fails as a config error."""
    import pytest

    from punct.errors import PunctError
    from punct.models import PAD_ID

    torch.manual_seed(0)
    args = {"embedding_dim": 64, "hidden_size": 4, "num_layers": 1}
    normal = build_model("drnn_lwma", args, 1000).embedding.weight
    xavier = build_model("drnn_lwma", {**args, "embedding_init": "xavier"}, 1000).embedding.weight
    bound = (6.0 / (1000 + 64)) ** 0.5
    assert 0.8 < normal.std().item() < 1.2
    assert xavier.abs().max().item() <= bound and xavier.std().item() > bound / 3
    assert not xavier[PAD_ID].any() and not normal[PAD_ID].any()
    with pytest.raises(PunctError, match="embedding_init must be normal or xavier, got 'zeros'"):
        build_model("drnn_lwma_pre", {"embedding_init": "zeros"}, 30)
