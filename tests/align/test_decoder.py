"""punct.align.decoder: recognition with word times and posteriors, tokenized like references."""
from __future__ import annotations

import numpy as np

from punct.align.decoder import Recognizer, is_filler, split_word
from punct.audio import read_audio
from punct.data.transfer import edit_distance


def test_split_word_at_the_clitic_phones():
    words = split_word("don't", 1.0, 1.4, 0.9, ["D", "OW", "N", "T"], [1.0, 1.1, 1.25, 1.33])
    assert [(w.text, w.start, w.end, w.conf) for w in words] == [("do", 1.0, 1.25, 0.9), ("n't", 1.25, 1.4, 0.9)]
    words = split_word("it's", 0.0, 0.3, 0.5, [], [])  # no phones: cut by letters
    assert [w.text for w in words] == ["it", "'s"] and words[0].end == words[1].start and words[1].end == 0.3
    assert [w.text for w in split_word("hello", 0, 1, 1, [], [])] == ["hello"]
    assert is_filler("<sil>") and is_filler("[NOISE]") and is_filler("++um++") and not is_filler("um")


def test_decodes_synthesized_speech(festival_speech):
    rec = Recognizer()
    wav, truth = festival_speech[1]
    x = read_audio(wav)
    words = rec.decode(x, "s1", offset=5.0)
    assert words, "no hypothesis"
    ref = [t.text for t in truth]
    wer = edit_distance(ref, [w.text for w in words]) / len(ref)
    assert wer < 0.5, [w.text for w in words]
    assert all(5.0 <= w.start <= w.end <= 5.0 + len(x) / 16000 + 0.01 for w in words)
    assert all(0.0 <= w.conf <= 1.0 for w in words)
    assert [w.start for w in words] == sorted(w.start for w in words)
    assert rec.decode(np.zeros(100, dtype=np.float32)) == []


def test_results_do_not_depend_on_what_was_decoded_before(festival_speech):
    """pocketsphinx's noise removal adapts across utterances unless reset: a job's
    output would then depend on the split of the data into jobs."""
    (wav_a, _), (wav_b, _) = festival_speech[0], festival_speech[2]
    a, b = read_audio(wav_a), read_audio(wav_b)
    alone = [(w.text, w.start, w.end, w.conf) for w in Recognizer().decode(b)]
    rec = Recognizer()
    rec.decode(a)
    after = [(w.text, w.start, w.end, w.conf) for w in rec.decode(b)]
    assert after == alone
