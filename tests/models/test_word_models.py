"""Conventions of the word models: output t is word t's mark; T-LSTM reads exactly one
word ahead; padding never leaks; the -pre variants start from the vectors."""
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


def test_pretrained_init_copies_vectors():
    from punct.models.pretrained import init_embedding, load_vectors

    emb = torch.nn.Embedding(6, 8)
    before = emb.weight.detach().clone()
    cov = init_embedding(emb.weight, ["<pad>", "<unk>", "</s>", "the", "cat", "zzz"], "hash-8d", skip=3)
    assert cov == 1.0  # hash vectors cover every word
    vec = load_vectors("hash-8d")
    assert torch.allclose(emb.weight[4], torch.from_numpy(vec.matrix[vec.row("cat")]))
    assert torch.equal(emb.weight[:3], before[:3])


def test_birnn_equals_packed_bidirectional_rnn():
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    from punct.models.layers import BiRNN

    torch.manual_seed(0)
    for cell, cls in (("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU)):
        ref = cls(5, 4, 2, batch_first=True, bidirectional=True)
        m = BiRNN(cell, 5, 4, 2)
        with torch.no_grad():
            for i in range(2):
                for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    getattr(m.fwd[i], n + "_l0").copy_(getattr(ref, f"{n}_l{i}"))
                    getattr(m.bwd[i], n + "_l0").copy_(getattr(ref, f"{n}_l{i}_reverse"))
        x = torch.randn(3, 9, 5)
        lengths = torch.tensor([9, 6, 2])
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        want = pad_packed_sequence(ref(packed)[0], batch_first=True, total_length=9)[0]
        assert torch.allclose(m(x, lengths), want, atol=1e-6), cell
