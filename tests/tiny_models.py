"""Tiny random models saved as punct.engine.train saves best.pt, for the test files of several
folders (a helper module: conftest.py files hold fixtures). Import as ``tests.tiny_models``."""
from __future__ import annotations

import torch

from punct.engine.vocab import Vocabulary
from punct.text.labels import LABELS
from punct.text.words import Word

WORDS = ["good", "morning", "and", "welcome", "to", "the", "call", "we", "grew", "revenue", "do", "n't", "it", "'s",
         "so", "what", "is", "next", "thank", "you"]
#: a call of 114 words in upper case, WORDS and <unk>, as a recognizer's CTM writes them (confidence on 2 of 3)
CTM = "".join(f"call A {i * 0.4:.2f} 0.30 {w}{' 0.9' if i % 3 else ''}\n"
              for i, w in enumerate(("GOOD MORNING AND WELCOME TO THE CALL WE GREW REVENUE SO WHAT IS NEXT THANK YOU "
                                     "IT'S <unk> DON'T " * 6).split()))


def make_tiny_model(path, seed=0, window=16):
    """A randomly initialised small T-BRNN saved like punct.engine.train saves best.pt."""
    from punct.engine import checkpoint
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(seed)
    vocab = Vocabulary.build([WORDS], min_count=1)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8})
    model = build_model("tbrnn", args, len(vocab))
    with torch.no_grad():  # punctuator2 starts output weights at zero: shake them so every label is predicted
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.7)
    checkpoint.save(path, {"model": "tbrnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(), "train_config": {"slice_length": window, "batch_size": 4}})
    return model.eval(), vocab


def make_pause_model(path, sets=("pause",), columns=("pause_after",)):
    """Che et al.'s Pause model (no weights) saved as a checkpoint over the WORDS vocabulary."""
    from punct.engine import checkpoint
    from punct.engine.inputs import FeatureInputs
    from punct.models import resolved_model_args

    vocab = Vocabulary.build([WORDS], min_count=1)
    inputs = FeatureInputs(vocab, list(sets), list(columns), normalize=False)
    args = resolved_model_args("che_pause", {"feature_names": list(columns)})
    checkpoint.save(path, {"model": "che_pause", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": {}, "inputs": inputs.state(),
                           "train_config": {"slice_length": 8, "batch_size": 4}})


#: the vocabulary of make_ta_brnn_p (tests/engine/test_runtime.py writes its calls from it)
TA_WORDS = ["good", "morning", "and", "welcome", "to", "the", "call", "we", "grew", "revenue", "do", "n't", "so",
            "what", "is", "next", "thank", "you"]


#: the tiny stage ones of make_ta_brnn_p: (stage one's name, its arguments, the second stage's name)
TINY_STAGE1 = {"tbrnn": ({"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8}, "ta_brnn"),
               "drnn_lwma_pre": ({"embedding_dim": 8, "hidden_size": 8, "num_layers": 2, "num_heads": 2,
                                  "head_dim": 4}, "ta_drnn")}


def make_ta_brnn_p(path, seed=0, case=False, mixed=None, bidirectional=False, stage1="tbrnn"):
    """A randomly initialised tiny TA-BRNN-p (T-BRNN stage one, pause_after, over TA_WORDS), saved as
    training saves it; ``case``: stage one has a case head (``mixed``: the checkpoint's spellings of the MIXED class);
    ``bidirectional``: its second stage reads both ways; ``stage1="drnn_lwma_pre"``: a DRNN-LWMA stage one
    (the second stage ``ta_drnn``)."""
    from punct.engine import checkpoint
    from punct.engine.inputs import FeatureInputs
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(seed)
    vocab = Vocabulary.build([TA_WORDS], min_count=1)
    s1_args, name = TINY_STAGE1[stage1]
    s1 = resolved_model_args(stage1, {**s1_args, "case_head": case})
    args = resolved_model_args(name, {"hidden_size": 8, "feature_names": ["pause_after"],
                                      "stage1": {"model": stage1, "model_args": s1},
                                      "bidirectional": bidirectional})
    model = build_model(name, args, len(vocab))
    with torch.no_grad():  # zero-initialised output layers predict O everywhere: shake them
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.7)
    inputs = FeatureInputs(vocab, ["pause"], ["pause_after"], mean=[0.2], std=[0.4])
    checkpoint.save(path, {"model": name, "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(), "inputs": inputs.state(),
                           "train_config": {"slice_length": 12, "batch_size": 4}, "mixed_spellings": mixed or {}})


def random_words(n, seed=0, timed=False):
    """``n`` words drawn from WORDS (timed: 0.3 s each, with gaps of 0-1.5 s)."""
    import random

    rng = random.Random(seed)
    out, t = [], 0.0
    for _ in range(n):
        w = Word(text=rng.choice(WORDS))
        if timed:
            w.start, w.end = round(t, 2), round(t + 0.3, 2)
            t += 0.3 + rng.choice([0.0, 0.05, 0.4, 1.5])
        out.append(w)
    return out
