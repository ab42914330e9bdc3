"""punct.io.live: the lines of a live source (Vosk JSON, CTM, plain words) read as they come,
the words of bad lines kept; text, JSON and subtitle output written as words are decided."""
from __future__ import annotations

import io
import json

from punct.io.live import LineReader, LiveWriter
from punct.io.sentences import CueLimits
from punct.text.words import Word


def test_line_reader_reads_vosk_ctm_and_words_and_keeps_the_words_of_bad_lines(caplog):
    vosk = LineReader()
    lines = ['{"partial": "good mor"}',
             '{"result": [{"conf": 1.0, "end": 0.5, "start": 0.1, "word": "good"},',
             '            {"conf": 0.9, "end": 0.9, "start": 0.5, "word": "morning"}], "text": "good morning"}',
             '{"text": "and welcome"}', '{"text": "to the call"', '{"text": ""}', 'not json at all']
    chunks = [c for k, line in enumerate(lines, 1) for c in vosk.feed(line, k)]
    assert [[(w.text, w.start) for w in c.words] for c in chunks] == [
        [("good", 0.1), ("morning", 0.5)], [("and", None), ("welcome", None)],
        [("to", None), ("the", None), ("call", None)],  # the text of the object left unfinished
        [("not", None), ("json", None), ("at", None), ("all", None)]]  # a line of words: kept
    assert vosk.end() == [] and vosk.kind == "vosk" and vosk.partials == 1 and vosk.warnings == 2
    assert "<stdin>:5: a JSON object that does not end" in caplog.text
    assert "<stdin>:7: not a JSON object; its words kept as plain words" in caplog.text
    assert [w.text for c in vosk.feed('{"text": "so', 8) + vosk.end() for w in c.words] == ["so"]
    many = vosk.feed('{"result": [{"word": "new york", "start": 1.0, "end": 1.5}, {"word": "city", "start": 1.5, '
                     '"end": 1.8}]}', 9)
    assert [(w.text, w.start) for c in many for w in c.words] == [("new", None), ("york", None), ("city", 1.5)]
    assert "<stdin>:9: result item 1 holds 2 words; kept without times" in caplog.text

    ctm = LineReader(name="in.ctm")
    got = [c for k, line in enumerate(["call A 0.10 0.30 good 0.9", ";; comment", "call A 0.40 x morning",
                                       "call B 1.0 0.2 hello"], 1) for c in ctm.feed(line, k)]
    assert [(c.key, [(w.text, w.start) for w in c.words]) for c in got] == [
        (("call", "A"), [("good", 0.1)]), (("call", "A"), [("morning", None)]), (("call", "B"), [("hello", 1.0)])]
    assert "in.ctm:3:" in caplog.text and "kept without times" in caplog.text

    plain = LineReader()
    assert [w.text for c in plain.feed("Hello there, how are you?", 1) for w in c.words] == \
        ["hello", "there", "how", "are", "you"]
    assert plain.kind == "words"


def _decided(*specs):
    out = []
    for text, label, start in specs:
        out.append(Word(text=text, label=label, start=start, end=start + 0.3))
    return out


def test_text_and_json_lines_are_written_as_words_are_decided():
    buf = io.StringIO()
    w = LiveWriter(buf, "text")
    w.write(_decided(("good", "O", 0.0), ("morning", "PERIOD", 0.3)))
    assert buf.getvalue() == "good morning.\n"
    w.write(_decided(("how", "O", 1.0)))
    assert buf.getvalue().endswith("how")  # shown before its sentence ends
    w.close()
    assert buf.getvalue() == "good morning.\nhow\n"
    buf = io.StringIO()
    w = LiveWriter(buf, "json")
    w.write(_decided(("so", "COMMA", 0.0)), ("call", "A"))
    assert json.loads(buf.getvalue()) == {"text": "so", "mark": ",", "start": 0.0, "end": 0.3,
                                          "recording": "call", "channel": "A"}


def test_cues_are_written_when_the_next_word_says_how_long_they_stay():
    buf = io.StringIO()
    w = LiveWriter(buf, "srt", limits=CueLimits(min_seconds=5 / 6))
    w.write(_decided(("yeah", "PERIOD", 0.0)))
    assert buf.getvalue() == ""  # held: the next cue's start decides how long it stays
    w.write(_decided(("so", "O", 0.5)))
    assert buf.getvalue() == "1\n00:00:00,000 --> 00:00:00,500\nyeah.\n"  # up to the next word
    w.write(_decided(("next", "PERIOD", 2.0)))
    w.close()
    assert buf.getvalue().endswith("\n2\n00:00:00,500 --> 00:00:02,300\nso next.\n")
    buf = io.StringIO()
    w = LiveWriter(buf, "vtt", flush_after=1.0)  # a pause of 1 s at least leaves room for 5/6 s
    w.write(_decided(("hello", "O", 0.0), ("there", "PERIOD", 0.4)))
    w.pause()
    assert buf.getvalue().startswith("WEBVTT\n\n00:00:00.000 --> 00:00:00.833\nhello <00:00:00.400>there.\n")
