"""Each model family learns a mark that is decided by the NEXT word: possible only
if output t belongs to word t and the model sees (part of) word t+1. Trained with
the engine's featurizers and predict_streams, so the input seams are exercised too."""
import random

import numpy as np
import pytest
import torch

from punct.engine.decode import predict_streams
from punct.engine.inputs import INPUT_KINDS
from punct.text.labels import LABELS, label_id
from punct.models import build_model, get_model_class, resolved_model_args

WORDS = [f"w{i}" for i in range(30)]


def rule(nxt):
    if nxt is None:
        return "PERIOD"
    k = int(nxt[1:])
    return "PERIOD" if k < 3 else "COMMA" if k < 6 else "QUESTION" if k < 8 else "O"


def rows(rng, n, T):
    texts = [[rng.choice(WORDS) for _ in range(T)] for _ in range(n)]
    labels = [[label_id(rule(t[i + 1] if i + 1 < T else None)) for i in range(T)] for t in texts]
    return texts, labels


class Cfg:
    min_count = 1
    max_vocab = 0


CASES = {
    "tlstm": (dict(embedding_dim=16, hidden_size=32), 0.02, 150),
    "drnn_lwma": (dict(embedding_dim=16, hidden_size=16, num_layers=2, num_heads=2, dropout=0.0), 0.01, 150),
    "lmc": (dict(vectors="hash-16d", window=3, slot=2, hidden=[64], dropout=0.0), 0.01, 150),
    "crf": (dict(buckets=4096), 0.2, 100),
    "char_delay_lstm": (dict(embedding_dim=8, hidden_size=32, num_layers=1, delay=4, dropout=0.0), 0.02, 200),
    "char_dilated_cnn": (dict(embedding_dim=8, channels=32, blocks=3, dropout=0.0), 0.01, 150),
    "hidden_event_lm": (dict(order=3), None, 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_learns_mark_decided_by_next_word(name, one_torch_thread):
    args, lr, steps = CASES[name]
    cls = get_model_class(name)
    rng = random.Random(0)
    train_texts, train_labels = rows(rng, 64, 12)
    inputs = INPUT_KINDS[getattr(cls, "input_kind", "words")].build(train_texts, Cfg, resolved_model_args(name, args))
    torch.manual_seed(0)
    model = build_model(name, args, inputs.input_size)
    if getattr(cls, "trainer", "sgd") == "fit":
        model.fit([(np.array(inputs.encode(t)), np.array(y)) for t, y in zip(train_texts, train_labels)])
    else:
        opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
        model.train()
        for step in range(steps):
            texts, labels = rows(rng, 16, 12)
            ids = np.array([inputs.encode(t) for t in texts])
            kw = inputs.tensors(ids, np.full(len(ids), ids.shape[1]))
            y = torch.tensor(labels)
            if hasattr(model, "training_loss"):
                loss = model.training_loss(y, **kw) / y.numel()
            else:
                loss = torch.nn.functional.cross_entropy(model(**kw).reshape(-1, len(LABELS)), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    texts, labels = rows(random.Random(1), 20, 12)
    pred = predict_streams(model, [inputs.encode(t) for t in texts], window=12, batch_size=8, inputs=inputs)
    acc = (np.array(pred) == np.array(labels)).mean()
    assert acc > 0.95, acc
