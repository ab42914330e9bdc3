"""Timed words for the tests of punct.io's sentences, cues and output forms: regular times
from a punctuated spec, and a call with the awkward times of real Kaldi CTMs (a helper
module, imported as ``tests.io.sample_words``)."""
from __future__ import annotations

from punct.text.words import Utterance


def timed(spec, speaker=None, t0=0.0, gap=0.1, dur=0.3):
    """Words from 'hello, world. how are you?' with regular times."""
    from punct.io.sentences import word_from_token

    words, t = [], t0
    for tok in spec.split():
        w = word_from_token(tok, start=round(t, 3), end=round(t + dur, 3), speaker=speaker)
        words.append(w)
        t += dur + gap
    return words


TEXT = ("good morning, ladies and gentlemen, and welcome to the monroe incorporated earnings conference call for the "
        "third quarter of fiscal twenty twenty. <unk> at this time all participants are in a listen only mode. "
        "later, we will conduct a question and answer session? thank you. [noise] please go ahead, "
        "it's a pleasure to be here with the extraordinarily knowledgeable representatives of our company.")


def call(text: str = TEXT, gap_after: dict | None = None) -> Utterance:
    """One recording's words, 0.3 s each, with a 30-s <unk> and two words whose times overlap
    (as real Kaldi CTMs have them)."""
    from punct.io.sentences import word_from_token

    words, t = [], 1.0
    for k, tok in enumerate(text.split()):
        dur = 30.0 if tok.startswith("<unk>") else 0.3
        w = word_from_token(tok, start=round(t, 3), end=round(t + dur, 3), conf=0.9)
        words.append(w)
        t += dur + (gap_after or {}).get(k, 0.05)
    words[5].start = round(words[4].end - 0.1, 3)  # "gentlemen," begins before "and" ends
    k = next((k for k, w in enumerate(words) if k and words[k - 1].text == "mode"), None)
    if k is not None:  # and a sentence begins before the one before it ends
        words[k].start = round(words[k - 1].end - 0.2, 3)
    return Utterance("call", words, recording="call", channel="A")
