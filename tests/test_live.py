"""Live punctuation (punct.engine.live, punct.io.live, ``punct restore --live``): marks decided
as words arrive equal direct calls with the same right context, however the words are fed;
EOF, SIGINT and SIGTERM flush; bad lines lose no words; the outputs as they are written."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from punct.engine.live import LiveStream, decide, direct_labels
from punct.engine.restorer import Restorer
from punct.io.live import LineReader, LiveWriter
from punct.io.sentences import CueLimits, punctuated, spelling
from punct.text.words import Word
from tests.tiny_models import WORDS, make_tiny_model


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Windows of a few words on one torch thread (tests/conftest.py)."""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("live") / "tiny.pt"
    make_tiny_model(path, seed=3, window=24)
    return path


def _words(n, seed=0, timed=False):
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
def test_live_marks_equal_direct_calls_with_the_same_right_context(tiny, lookahead):
    """Word by word or in chunks of 5, each mark is the one a direct Restorer.restore gives on
    the words from its sentence's start (no left context) to the lookahead-th word after it."""
    r = Restorer.load(tiny, workers=1)
    words = _words(60, seed=lookahead)
    want = [w.label for w in direct_labels(r, words, lookahead)]
    assert len(set(want)) > 1  # the random model predicts marks and sentence ends
    for chunks in (1, 5):
        got = _feed(r, words, lookahead, chunks=chunks, context=0)
        assert [w.label for w in got] == want
        assert [w.text for w in got] == [w.text for w in words]  # every word, once, in order


def test_left_context_and_chunking_change_no_decision_order(tiny):
    """With sentences of left context the labels still do not depend on how the words come,
    and the batched decision of many streams equals one stream at a time."""
    r = Restorer.load(tiny, workers=1)
    streams = [_words(50, seed=s, timed=True) for s in range(3)]
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


def test_a_long_pause_decides_the_words_before_it(tiny):
    """A word followed by a pause over flush_after is decided when the next word arrives, and an
    idle pause (pause()) decides every word so far, before lookahead words have come."""
    r = Restorer.load(tiny, workers=1)
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


def _cli(args, stdin_lines, delay=0.0, signal_after=None, timeout=60):
    env = dict(os.environ, PUNCT_RUNTIME="torch")
    p = subprocess.Popen([sys.executable, "-m", "punct", "restore", "--live", *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in stdin_lines:
        p.stdin.write(line + "\n")
        p.stdin.flush()
        time.sleep(delay)
    if signal_after is not None:  # once the filter has read the input's first line
        seen = ""
        while "live input read as" not in seen:
            line = p.stderr.readline()
            assert line, seen
            seen += line
        time.sleep(signal_after[1])
        p.send_signal(signal_after[0])
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, seen + err
    out, err = p.communicate(timeout=timeout)  # closes the input (EOF) after any signal
    return p.returncode, out, err


def test_cli_through_a_pipe_gives_the_direct_marks(tiny):
    r = Restorer.load(tiny, workers=1)
    words = _words(40, seed=11)
    want = direct_labels(r, words, 3)
    rc, out, err = _cli(["-", "--model", str(tiny), "--lookahead", "3", "--context-sentences", "0",
                         "--output-format", "json"], [w.text for w in words], delay=0.005)
    assert rc == 0, err
    got = [json.loads(line) for line in out.splitlines()]
    assert [(d["text"], d["mark"]) for d in got] == [(spelling(w), punctuated(w)[len(spelling(w)):]) for w in want]


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_flushes_every_pending_word(tiny, sig, code):
    rc, out, err = _cli(["-", "--model", str(tiny), "--lookahead", "50", "--flush-after", "0"],
                        ["good morning and", "welcome to the call"], signal_after=(sig, 0.5))
    assert rc == code, err
    assert out.split()[:7] and [t.rstrip(",.?") for t in out.split()] == "good morning and welcome to the call".split()
    assert out.rstrip().endswith((".", "?"))  # the end of what was said


def test_idle_input_flushes_after_the_pause(tiny):
    """No input for --flush-after seconds decides what has come, while the input stays open."""
    env = dict(os.environ, PUNCT_RUNTIME="torch")
    p = subprocess.Popen([sys.executable, "-m", "punct", "restore", "--live", "-", "--model", str(tiny),
                          "--lookahead", "50", "--flush-after", "0.5", "--output-format", "json"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    p.stdin.write("good morning and welcome\n")
    p.stdin.flush()
    first = p.stdout.readline()  # comes before the input ends
    assert json.loads(first)["text"] == "good"
    p.stdin.close()
    rest = p.stdout.read().splitlines()
    assert p.wait(timeout=30) == 0 and len(rest) == 3


def test_bad_lines_lose_no_words_in_the_cli(tiny, tmp_path):
    src = tmp_path / "in.ctm"
    src.write_text("call A 0.1 0.2 good 1\ncall A 0.3 oops morning 1\ncall A 0.6 0.2 and\ncall A 0.9 0.2 welcome 1\n")
    rc, out, err = _cli([str(src), "--model", str(tiny), "--output-format", "json"], [])
    assert rc == 0, err
    assert [json.loads(x)["text"] for x in out.splitlines()] == ["good", "morning", "and", "welcome"]
    assert f"{src}:2:" in err and "kept without times" in err


def test_live_refuses_what_it_cannot_do(tiny, capsys):
    from punct.bin.restore import main

    for args, msg in ((["--output-format", "datadir"], "--live writes"), (["--lookahead", "-1"], "--lookahead"),
                      (["--input-format", "textgrid"], "--live reads"), (["--weights", "1"], "one model"),
                      (["--context-sentences", "-2"], "--context-sentences")):
        try:
            code = main(["--live", "-", "--model", str(tiny), *args])
        except SystemExit as e:  # argparse's own checks
            code = e.code
        assert code != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("error: ") and msg in err[-1]
