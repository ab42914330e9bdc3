"""punct.text.words: the Word and Utterance that readers, models and scorers share (a word's
duration, an utterance's texts and labels), and which tokens are a recognizer's non-speech."""
from __future__ import annotations

import pytest

from punct.text.words import Utterance, Word, is_nonspeech


def test_a_word_is_unmarked_and_untimed_unless_told():
    w = Word("hello")
    assert (w.label, w.start, w.end, w.conf, w.speaker, w.written) == ("O", None, None, None, None, None)
    assert w.duration is None and Word("a", start=1.0).duration is None
    assert Word("a", start=1.25, end=1.5).duration == pytest.approx(0.25)


def test_the_raw_ctm_fields_do_not_take_part_in_equality():
    a = Word("so", start=1.0, end=1.2, raw_times=("1.00", "0.20", "0.9"))
    assert a == Word("so", start=1.0, end=1.2) and a != Word("so", "COMMA", start=1.0, end=1.2)


def test_an_utterance_gives_its_texts_labels_and_length():
    u = Utterance("u1", [Word("so", "COMMA"), Word("yes", "PERIOD")])
    assert (u.texts, u.labels, len(u)) == (["so", "yes"], ["COMMA", "PERIOD"], 2)
    assert (u.recording, u.channel, u.speaker) == (None, "1", None)
    assert Utterance("a").words == [] and Utterance("a").words is not Utterance("b").words


@pytest.mark.parametrize("token,nonspeech", [
    ("[noise]", True), ("[LAUGHTER]", True), ("<sil>", True), ("<spoken_noise>", True), ("!SIL", True),
    ("<unk>", False), ("<UNK>", False), ("[]", False), ("hello", False), ("[x", False), ("a]", False),
])
def test_nonspeech_tokens(token, nonspeech):
    assert is_nonspeech(Word(token.lower(), written=token if token != token.lower() else None)) is nonspeech
