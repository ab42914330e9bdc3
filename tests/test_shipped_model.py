"""The model the repository ships (models/default.pt): small, loads on the CPU, punctuates."""
from __future__ import annotations

import torch

from punct.engine import checkpoint
from punct.io.sentences import punctuated
from punct.engine.restorer import DEFAULT_MODEL, Restorer
from punct.text.words import Utterance, Word

# an earnings-call opening, as a Kaldi CTM would give it: lower case, no marks, with times
CALL = ("good morning everyone and welcome to the third quarter earnings call my name is sarah "
        "and i will be your operator today at this time all participants are in a listen only mode "
        "later we will conduct a question and answer session how was the quarter it was a strong quarter "
        "revenue grew twelve percent and margins improved thank you").split()


def test_size_and_provenance():
    assert DEFAULT_MODEL.is_file()
    assert DEFAULT_MODEL.stat().st_size <= 10 * 10**6  # the 10 MB budget of the issue
    ck = torch.load(DEFAULT_MODEL, map_location="cpu", weights_only=False)
    assert ck["format"] == checkpoint.FORMAT
    assert ck["export"]["half"] is True and "punct.bin.train" in ck["export"]["train_command"]
    assert ck["epoch"] >= 1 and ck["labels"] == ["O", "COMMA", "PERIOD", "QUESTION"]


#: the words after which the speaker pauses (half a second), as at sentence ends in a real call
PAUSE_AFTER = {"call", "sarah", "today", "mode", "session", "quarter", "improved"}


def _timed(words: list[str]) -> list[Word]:
    out, t = [], 0.0
    for w in words:
        out.append(Word(w, start=round(t, 2), end=round(t + 0.25, 2)))
        t += 0.25 + (0.5 if w in PAUSE_AFTER else 0.03)
    return out


def test_punctuates_a_call_and_keeps_words_and_times():
    words = _timed(CALL)
    utt = Utterance("call", words)
    out = Restorer.load(None).restore([utt])[0]
    assert [w.text for w in out.words] == CALL
    assert [(w.start, w.end) for w in out.words] == [(w.start, w.end) for w in words]
    labels = [w.label for w in out.words]
    # a trained model ends sentences here, not a constant guess: some periods, some commas or
    # questions, and most slots empty
    assert labels.count("PERIOD") >= 2, " ".join(punctuated(w) for w in out.words)
    assert labels.count("O") >= len(CALL) * 0.6
    assert len(set(labels)) >= 3
