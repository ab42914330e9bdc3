"""punct.models.pretrained: pretrained word vectors, the words that share a row reported, an
embedding initialised from the vectors."""
from __future__ import annotations

import numpy as np
import torch


def test_words_that_share_a_vector_row_are_reported(caplog):
    from collections import Counter

    from punct.models.pretrained import WordVectors, report_shared_rows, shared_rows

    rows = {"but": 0, "that": 0, "they": 0, "the": 1, "in": 1}
    words = ["the", "in", "that", "but", "they", "a", "of", "to", "and", "so", "rare", "seldom"]
    v = WordVectors("toy", np.zeros((20, 2), np.float32), lambda w: rows.get(w, 2 + words.index(w) if w in words else -1))
    assert shared_rows(v, words) == [["that", "but", "they"], ["the", "in"]]
    counts = Counter({w: 100 - i for i, w in enumerate(words)})
    with caplog.at_level("INFO", logger="punct.models.pretrained"):
        assert report_shared_rows(v, counts, top=10, among=12) == 5
    assert caplog.records[-1].levelname == "WARNING"
    assert "5 of the 10 most frequent training words" in caplog.text and "that = but = they; the = in" in caplog.text
    caplog.clear()
    rows.clear()  # every word its own row: nothing to say
    assert report_shared_rows(v, counts, top=10, among=12) == 0 and caplog.text == ""


def test_pretrained_init_copies_vectors():
    from punct.models.pretrained import init_embedding, load_vectors

    emb = torch.nn.Embedding(6, 8)
    before = emb.weight.detach().clone()
    cov = init_embedding(emb.weight, ["<pad>", "<unk>", "</s>", "the", "cat", "zzz"], "hash-8d", skip=3)
    assert cov == 1.0  # hash vectors cover every word
    vec = load_vectors("hash-8d")
    assert torch.allclose(emb.weight[4], torch.from_numpy(vec.matrix[vec.row("cat")]))
    assert torch.equal(emb.weight[:3], before[:3])
