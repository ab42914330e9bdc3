"""punct.align.output: an alignment written as a word CTM, a phone CTM (silences as SIL, in
time order across recordings) and a TextGrid of words and phones (overlaps trimmed)."""
from __future__ import annotations

import pytest

from punct.align.aligner import Alignment, PhoneSeg
from punct.align.output import (alignment_utterance, phone_ctm_lines, write_phone_ctm, write_textgrid,
                                write_word_ctm)
from punct.text.words import Word


def aligned(utt: str, t0: float) -> Alignment:
    """Two words of two phones each from ``t0``, a silence between them."""
    words = [Word("hello", start=t0, end=t0 + 0.4, conf=0.9), Word("world", start=t0 + 0.6, end=t0 + 1.0, conf=0.5)]
    phones = [[PhoneSeg("HH", t0, t0 + 0.2), PhoneSeg("OW", t0 + 0.2, t0 + 0.4)],
              [PhoneSeg("W", t0 + 0.6, t0 + 0.8), PhoneSeg("D", t0 + 0.8, t0 + 1.0)]]
    return Alignment(utt, words, phones, silences=[(t0 + 0.4, t0 + 0.6)])


def test_the_utterance_of_an_alignment_is_its_words_in_its_recording():
    al = aligned("u1", 0.0)
    assert alignment_utterance(al).recording == "u1"
    u = alignment_utterance(al, "call")
    assert (u.id, u.recording, u.texts) == ("u1", "call", ["hello", "world"])


def test_word_ctm_has_the_posteriors_and_no_marks(tmp_path):
    al = aligned("u1", 1.0)
    al.words[0].label = "COMMA"
    write_word_ctm([(al, "call")], tmp_path / "w.ctm")
    rows = [line.split() for line in (tmp_path / "w.ctm").read_text().splitlines()]
    assert [r[:2] + r[4:5] for r in rows] == [["call", "1", "hello"], ["call", "1", "world"]]
    assert [float(r[2]) for r in rows] == [1.0, 1.6] and [float(r[5]) for r in rows] == [0.9, 0.5]


def test_a_word_ctm_of_alignments_without_words_is_an_empty_file(tmp_path):
    write_word_ctm([(Alignment("u", [], []), "call")], tmp_path / "w.ctm")
    assert (tmp_path / "w.ctm").read_text() == ""


def test_phone_ctm_lines_hold_every_phone_and_the_silences():
    lines = [line for _, line in sorted(phone_ctm_lines(aligned("u1", 0.0), "call"))]
    assert [line.split()[4] for line in lines] == ["HH", "OW", "SIL", "W", "D"]
    assert lines[2] == "call 1 0.400 0.200 SIL\n"


def test_the_phone_ctm_is_in_time_order_within_each_recording(tmp_path):
    write_phone_ctm([(aligned("b2", 5.0), "b"), (aligned("a1", 2.0), "a"), (aligned("b1", 0.0), "b")],
                    tmp_path / "p.ctm")
    rows = [line.split() for line in (tmp_path / "p.ctm").read_text().splitlines()]
    assert [r[0] for r in rows] == ["a"] * 5 + ["b"] * 10
    starts = [float(r[2]) for r in rows if r[0] == "b"]
    assert starts == sorted(starts) and starts[0] == 0.0 and starts[-1] == 5.8


def test_textgrid_tiers_trim_an_overlap_and_span_the_recording(tmp_path):
    from praatio import textgrid

    al = aligned("u1", 0.5)
    al.words[1].start = 0.8  # overlaps the first word, which ends at 0.9
    al.words.append(Word("untimed"))
    write_textgrid(al, tmp_path / "u1.TextGrid", duration=3.0)
    tg = textgrid.openTextgrid(str(tmp_path / "u1.TextGrid"), includeEmptyIntervals=False)
    assert tg.tierNames == ("words", "phones") and tg.maxTimestamp == pytest.approx(3.0)
    words = [(e.start, e.end, e.label) for e in tg.getTier("words").entries]
    assert words == [(0.5, 0.9, "hello"), (0.9, 1.5, "world")]
    assert [e.label for e in tg.getTier("phones").entries] == ["HH", "OW", "W", "D"]
