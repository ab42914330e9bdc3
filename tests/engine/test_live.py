"""punct.engine.live: marks decided as words arrive equal direct calls with the same right
context, however the words are fed and however many streams are decided together; a long
pause decides the words before it; pause rows know only the words that have come."""
from __future__ import annotations

import pytest

from punct.engine.live import LiveStream, decide, direct_labels
from punct.engine.restorer import Restorer
from punct.text.words import Word
from tests.tiny_models import random_words


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Windows of a few words on one torch thread (tests/conftest.py)."""


def _feed(restorer, words, lookahead, chunks=1, **kw):
    s = LiveStream(restorer, lookahead, **kw)
    got = []
    for k in range(0, len(words), chunks):
        s.push(words[k:k + chunks])
        got += s.step()
    s.close()
    got += s.step()
    assert s.done
    return got


@pytest.mark.parametrize("lookahead", [0, 1, 3, 7])
def test_live_marks_equal_direct_calls_with_the_same_right_context(live_model, lookahead):
    """Word by word or in chunks of 5, each mark is the one a direct Restorer.restore gives on
    the words from its sentence's start (no left context) to the lookahead-th word after it."""
    r = Restorer.load(live_model, workers=1)
    words = random_words(60, seed=lookahead)
    want = [w.label for w in direct_labels(r, words, lookahead)]
    assert len(set(want)) > 1  # the random model predicts marks and sentence ends
    for chunks in (1, 5):
        got = _feed(r, words, lookahead, chunks=chunks, context=0)
        assert [w.label for w in got] == want
        assert [w.text for w in got] == [w.text for w in words]  # every word, once, in order


def test_left_context_and_chunking_change_no_decision_order(live_model):
    """With sentences of left context the labels still do not depend on how the words come,
    and the batched decision of many streams equals one stream at a time."""
    r = Restorer.load(live_model, workers=1)
    streams = [random_words(50, seed=s, timed=True) for s in range(3)]
    one = [[w.label for w in _feed(r, s, 4, chunks=1, context=2)] for s in streams]
    assert one == [[w.label for w in _feed(r, s, 4, chunks=7, context=2)] for s in streams]
    lives = [LiveStream(r, 4, context=2) for _ in streams]
    for k in range(51):
        for s, live in zip(streams, lives):
            if k < len(s):
                live.push([s[k]])
            else:
                live.close()
        decide(r, lives)
    assert [[w.label for w in live.take()] for live in lives] == one


def test_a_long_pause_decides_the_words_before_it(live_model):
    """A word followed by a pause over flush_after is decided when the next word arrives, and an
    idle pause (pause()) decides every word so far, before lookahead words have come."""
    r = Restorer.load(live_model, workers=1)
    s = LiveStream(r, 10, flush_after=1.0)
    a = [Word("good", start=0.0, end=0.3), Word("morning", start=0.3, end=0.6)]
    s.push(a)
    assert s.step() == []
    s.push([Word("and", start=2.0, end=2.2)])  # 1.4 s after morning
    assert [w.text for w in s.step()] == ["good", "morning"]
    s.push([Word("welcome", start=2.2, end=2.5)])
    assert s.step() == []
    s.pause()
    assert [w.text for w in s.step()] == ["and", "welcome"]
    assert s.delays == [2, 1, 1, 0]  # words that came after each before it was decided


def test_pause_rows_know_only_what_has_come():
    """The window's last word has its pause after flagged unknown while more words may follow;
    at a gap the next word's start gives it; at the end it is the recording's edge."""
    from punct.engine.live import END, GAP, OPEN, LiveStream
    from punct.prosody.pause import PAUSE_FEATURES

    class Fake:
        window, has_case, inputs = 100, False, object()

        def model_tokens(self, w):
            return [w.text]

    s = LiveStream(Fake(), 1)
    s.push([Word("a", start=0.0, end=0.5), Word("b", start=0.7, end=1.0), Word("c", start=3.0, end=3.2)])
    col = {n: i for i, n in enumerate(PAUSE_FEATURES)}
    for tail, after, unknown in ((OPEN, 0.0, 1.0), (GAP, 2.0, 0.0), (END, 2.0, 0.0)):
        win = s._window(0, 1, tail, [0])
        rows = [win.pauses[id(w)] for w in win.utt.words]
        assert rows[0][col["pause_after"]] == pytest.approx(0.2)
        assert rows[1][col["pause_after"]] == pytest.approx(after if tail != END else 2.0)
        assert rows[1][col["pause_after_unknown"]] == unknown
