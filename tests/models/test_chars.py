"""The character models (punct.models.chars): every family gives one row of logits per word;
a delayed LSTM's mark after a word has read exactly ``delay`` characters past its space; the
bidirectional LSTM's rows are the same padded in a batch as alone (learning: test_learning.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from punct.engine.inputs import CharInputs
from punct.models import build_model
from punct.text.labels import LABELS

SMALL = {
    "char_delay_lstm": dict(embedding_dim=6, hidden_size=8, num_layers=1, delay=2, dropout=0.0),
    "char_bilstm": dict(embedding_dim=6, hidden_size=8, num_layers=1, dropout=0.0),
    "char_ngram_lstm": dict(embedding_dim=6, hidden_size=8, num_layers=1, delay=2, buckets=64, dropout=0.0),
    "char_cnn_highway": dict(embedding_dim=6, hidden_size=8, num_layers=1, delay=2, filters=4, dropout=0.0),
    "char_dilated_cnn": dict(embedding_dim=6, channels=8, blocks=2, dropout=0.0),
}


class Cfg:
    min_count = 1
    max_vocab = 0


def featurize(rows):
    f = CharInputs.build(rows, Cfg, {})
    ids = [f.encode(r) for r in rows]
    width = max(len(r) for r in ids)
    arr = np.array([r + [0] * (width - len(r)) for r in ids], dtype=np.int32)
    return f, f.tensors(arr, np.array([len(r) for r in rows]))


def model(name, f):
    torch.manual_seed(0)
    m = build_model(name, SMALL[name], f.input_size).eval()
    with torch.no_grad():  # zero-initialised outputs would hide every difference
        for p in m.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    return m


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_family_gives_a_row_of_logits_per_word(name):
    f, t = featurize([["so", "we", "grew"], ["thanks"]])
    out = model(name, f)(**t)
    assert out.shape == (2, 3, len(LABELS)) and torch.isfinite(out).all()


def test_the_delayed_lstm_reads_delay_characters_past_the_space_and_no_further():
    # "ab cd ef gh ": the mark after a word is read 2 characters past its space (2, 5, 8, 11)
    rows = [["ab", "cd", "ef", "gh"], ["ab", "xd", "ef", "gh"], ["ab", "cd", "ef", "xh"]]
    f, t = featurize(rows)
    out = model("char_delay_lstm", f)(**t)
    assert not torch.allclose(out[0, 0], out[1, 0])  # character 3, the next word's first, was read
    assert torch.allclose(out[0, 0], out[2, 0]) and torch.allclose(out[0, 1], out[2, 1])  # 9 was not, by 4 or 7
    assert not torch.allclose(out[0, 2], out[2, 2])  # but by 10


def test_the_bidirectional_lstm_is_the_same_padded_as_alone():
    rows = [["so", "we", "grew", "revenue"], ["we", "grew"]]
    f, t = featurize(rows)
    m = model("char_bilstm", f)
    both = m(**t)
    ids = np.array([f.encode(rows[1])], dtype=np.int32)
    alone = m(**f.tensors(ids, np.array([2])))
    assert torch.allclose(both[1, :2], alone[0], atol=1e-6)
