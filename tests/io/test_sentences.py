"""punct.io.sentences: tokens split into words and marks, sentences split at marks and speakers,
missing times estimated, lines wrapped and cues cut at phrase boundaries within the limits."""
from __future__ import annotations

import pytest

from punct.io.sentences import (CueLimits, estimated_times, make_cues, punctuated, split_sentences, split_token,
                                 wrap_lines)
from punct.text.words import Utterance, Word
from tests.io.sample_words import call, timed


def test_split_sentences_at_marks_and_speakers():
    ws = timed("so, yes. no") + timed("me too", speaker="B")
    sents = split_sentences(ws)
    assert [[w.text for w in s] for s in sents] == [["so", "yes"], ["no"], ["me", "too"]]


def test_estimated_times_spread_missing_ones():
    ws = [Word("a", start=1.0, end=None), Word("b"), Word("c"), Word("d", start=None, end=2.2)]
    # the 8 boundaries from 1.0 to 2.2 in equal steps of 1.2 / 7
    flat = [x for se in estimated_times(ws) for x in se]
    assert flat == pytest.approx([1.0 + 1.2 * k / 7 for k in range(8)])
    assert estimated_times([Word("a")]) is None


def test_wrap_lines_balanced():
    toks = "the quick brown fox jumps over the lazy dog and keeps running far away".split()
    lines = wrap_lines(toks, 42, 2)
    assert len(lines) == 2 and all(len(line) <= 42 for line in lines)
    assert abs(len(lines[0]) - len(lines[1])) <= 10
    assert wrap_lines(["short", "line"], 42, 2) == ["short line"]


def test_long_sentence_split_at_comma_within_limits():
    text = ("well, we saw revenue grow in every region this quarter, and margins improved across the board "
            "thanks to pricing, mix and lower freight costs, which we expect to continue into next year.")
    u = Utterance("u", timed(text, dur=0.25, gap=0.05))
    limits = CueLimits()
    cues = make_cues([u], limits)
    assert len(cues) > 1
    assert [w for c in cues for w in c.words] == u.words  # every word once, in order
    for c in cues:
        assert len(" ".join(c.lines)) <= limits.max_line_chars * limits.max_lines or len(c.words) == 1
        assert all(len(line) <= limits.max_line_chars for line in c.lines) or len(c.words) == 1
        assert c.end - c.start <= limits.max_seconds
    # cues end at commas where the text has them
    assert sum(c.words[-1].label == "COMMA" for c in cues[:-1]) >= len(cues) - 2
    assert cues[-1].words[-1].label == "PERIOD"


def test_long_silence_splits_a_cue():
    ws = timed("one two") + timed("three four.", t0=10.0)
    cues = make_cues([Utterance("u", ws)])
    assert [[w.text for w in c.words] for c in cues] == [["one", "two"], ["three", "four"]]


def test_a_short_cue_stays_its_minimum_where_the_next_leaves_room():
    # "yeah." spoken in 0.13 s, then a long pause; "okay." right before the next sentence
    ws = [Word("yeah", "PERIOD", start=1.0, end=1.13), Word("so", start=4.0, end=4.2),
          Word("okay", "PERIOD", start=4.2, end=4.4), Word("next", start=4.7, end=5.0), Word("one", "PERIOD", start=5.0, end=5.2)]
    cues = make_cues([Utterance("u", ws)])
    assert [(c.start, round(c.end, 3)) for c in cues] == [(1.0, round(1.0 + 5 / 6, 3)), (4.0, 4.7), (4.7, 5.2)]
    # 0 keeps the spoken times
    cues = make_cues([Utterance("u", ws)], CueLimits(min_seconds=0.0))
    assert [(c.start, c.end) for c in cues] == [(1.0, 1.13), (4.0, 4.4), (4.7, 5.2)]  # the last: as spoken


@pytest.mark.parametrize("token,word,label", [
    ("hello", "hello", "O"),
    ("Hello,", "Hello", "COMMA"),
    ("GOOD.", "GOOD", "PERIOD"),
    ("why?!", "why", "QUESTION"),
    ("so...", "so", "PERIOD"),
    ("well;", "well", "PERIOD"),
    ('"quoted",', "quoted", "COMMA"),
    ("(aside)", "aside", "O"),
    ("U.S.", "U.S.", "O"),        # abbreviation keeps its dot
    ("U.S.,", "U.S.", "COMMA"),
    ("Mr.", "Mr.", "O"),
    ("3.5.", "3.5", "PERIOD"),
    ("th-", "th-", "O"),          # a cut-off word, not a dash mark
    ("<unk>", "<unk>", "O"),
    ("[noise]", "[noise]", "O"),
    ("[NOISE].", "[NOISE]", "PERIOD"),  # marks after a bracketed token are its label
    ("<sil>,", "<sil>", "COMMA"),
    ("students'", "students'", "O"),
    (",", "", "COMMA"),
    ("--", "", "COMMA"),
])
def test_split_token(token, word, label):
    assert split_token(token) == (word, label)


def test_cues_break_at_phrase_boundaries():
    from punct.io.sentences import make_cues, wrap_lines

    from punct.io.sentences import break_costs, word_from_token

    # 65 characters: two lines, and the break comes after the comma, not inside "the third quarter"

    toks = "we grew revenue in every region, and the third quarter was strong".split()
    words = [word_from_token(t) for t in toks]
    lines = wrap_lines([punctuated(w) for w in words], 42, 2, break_costs(words))
    assert lines == ["we grew revenue in every region,", "and the third quarter was strong"]
    # no line ends with an article or a preposition when another layout fits as well
    toks = "so we think that the outlook for the rest of the year remains very good".split()
    words = [word_from_token(t) for t in toks]
    lines = wrap_lines(toks, 42, 2, break_costs(words))
    assert all(x.split()[-1] not in ("the", "of", "for", "that") for x in lines[:-1]), lines
    # a sentence cut into cues at its comma rather than in the middle of a phrase
    u = call("thank you all for joining us this morning, and welcome to the first quarter earnings conference call.")
    cues = make_cues([u])
    assert [punctuated(c.words[-1]) for c in cues][0] == "morning,"


def test_a_cue_of_words_out_of_time_order_spans_all_their_times():
    # a CTM read in file order (out of time order, as a recognizer wrote it): the cue covers
    # every word's time, not the first word's start to the last word's end
    ws = [Word("world", "COMMA", 1.0, 1.2), Word("hello", "O", 0.2, 0.5), Word("big", "PERIOD", 0.6, 0.8)]
    (c,) = make_cues([Utterance("u", ws)], CueLimits(min_seconds=0.0))
    assert (c.start, c.end) == (0.2, 1.2)
