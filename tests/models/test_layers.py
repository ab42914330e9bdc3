"""punct.models.layers: the shared building blocks of the word models: the bidirectional RNN
equal to a packed torch RNN, a token appended after each row, masks, softmax and gathering
over padded rows, rows reversed within their lengths, the acoustic inputs, the embedding start."""
from __future__ import annotations

import torch
from punct.models import EOS_ID
from punct.models.layers import append_token


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


def test_append_token():
    ids = torch.tensor([[5, 6, 7], [8, 9, 0]])
    out = append_token(ids, torch.tensor([3, 2]), EOS_ID, 0)
    assert out.tolist() == [[5, 6, 7, EOS_ID], [8, 9, EOS_ID, 0]]


def test_masks_softmax_and_gathering_of_padded_rows():
    from punct.models.layers import gather_positions, lengths_mask, masked_softmax

    mask = lengths_mask(torch.tensor([3, 1]), 4)
    assert mask.tolist() == [[True, True, True, False], [True, False, False, False]]
    p = masked_softmax(torch.zeros(2, 1, 4), mask)
    assert torch.allclose(p[0, 0], torch.tensor([1 / 3, 1 / 3, 1 / 3, 0])) and p[1, 0].tolist() == [1, 0, 0, 0]
    states = torch.arange(2 * 4 * 2, dtype=torch.float).reshape(2, 4, 2)
    got = gather_positions(states, torch.tensor([[3, 0], [1, 1]]))
    assert got.tolist() == [[[6, 7], [0, 1]], [[10, 11], [10, 11]]]


def test_reverse_padded_reverses_each_row_within_its_length():
    from punct.models.layers import reverse_padded

    x = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
    assert reverse_padded(x, torch.tensor([3, 2])).tolist() == [[3, 2, 1, 0], [5, 4, 0, 0]]


def test_acoustic_inputs_zero_the_rows_of_words_without_evidence_and_flag_them():
    from punct.models.layers import acoustic_inputs

    feats = torch.tensor([[[0.5, 2.0], [9.0, 9.0]]])
    got = acoustic_inputs(feats, torch.tensor([[False, True]]))
    assert got.tolist() == [[[0.5, 2.0, 0.0], [0.0, 0.0, 1.0]]]


def test_xavier_embedding_is_small_and_leaves_padding_zero():
    from punct.models.layers import xavier_embedding_

    torch.manual_seed(0)
    emb = torch.nn.Embedding(100, 10, padding_idx=0)
    xavier_embedding_(emb)
    assert emb.weight.abs().max() <= (6 / 110) ** 0.5 and not emb.weight[0].any()
