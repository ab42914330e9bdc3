"""``punct restore --live`` (punct.live): through a pipe the marks are the direct calls'; EOF,
SIGINT, SIGTERM and an idle input flush; bad lines lose no words; what it cannot do is refused
(the live stream: tests/engine/test_live.py; the lines read and written: tests/io/test_live.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from punct.engine.live import direct_labels
from punct.engine.restorer import Restorer
from punct.io.sentences import punctuated, spelling
from tests.tiny_models import random_words


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Windows of a few words on one torch thread (tests/conftest.py)."""


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


def test_cli_through_a_pipe_gives_the_direct_marks(live_model):
    r = Restorer.load(live_model, workers=1)
    words = random_words(40, seed=11)
    want = direct_labels(r, words, 3)
    rc, out, err = _cli(["-", "--model", str(live_model), "--lookahead", "3", "--context-sentences", "0",
                         "--output-format", "json"], [w.text for w in words], delay=0.005)
    assert rc == 0, err
    got = [json.loads(line) for line in out.splitlines()]
    assert [(d["text"], d["mark"]) for d in got] == [(spelling(w), punctuated(w)[len(spelling(w)):]) for w in want]


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_flushes_every_pending_word(live_model, sig, code):
    rc, out, err = _cli(["-", "--model", str(live_model), "--lookahead", "50", "--flush-after", "0"],
                        ["good morning and", "welcome to the call"], signal_after=(sig, 0.5))
    assert rc == code, err
    assert out.split()[:7] and [t.rstrip(",.?") for t in out.split()] == "good morning and welcome to the call".split()
    assert out.rstrip().endswith((".", "?"))  # the end of what was said


def test_idle_input_flushes_after_the_pause(live_model):
    """No input for --flush-after seconds decides what has come, while the input stays open."""
    env = dict(os.environ, PUNCT_RUNTIME="torch")
    p = subprocess.Popen([sys.executable, "-m", "punct", "restore", "--live", "-", "--model", str(live_model),
                          "--lookahead", "50", "--flush-after", "0.5", "--output-format", "json"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    p.stdin.write("good morning and welcome\n")
    p.stdin.flush()
    first = p.stdout.readline()  # comes before the input ends
    assert json.loads(first)["text"] == "good"
    p.stdin.close()
    rest = p.stdout.read().splitlines()
    assert p.wait(timeout=30) == 0 and len(rest) == 3


def test_bad_lines_lose_no_words_in_the_cli(live_model, tmp_path):
    src = tmp_path / "in.ctm"
    src.write_text("call A 0.1 0.2 good 1\ncall A 0.3 oops morning 1\ncall A 0.6 0.2 and\ncall A 0.9 0.2 welcome 1\n")
    rc, out, err = _cli([str(src), "--model", str(live_model), "--output-format", "json"], [])
    assert rc == 0, err
    assert [json.loads(x)["text"] for x in out.splitlines()] == ["good", "morning", "and", "welcome"]
    assert f"{src}:2:" in err and "kept without times" in err


def test_live_refuses_what_it_cannot_do(live_model, capsys):
    from punct.bin.restore import main

    for args, msg in ((["--output-format", "datadir"], "--live writes"), (["--lookahead", "-1"], "--lookahead"),
                      (["--input-format", "textgrid"], "--live reads"), (["--weights", "1"], "one model"),
                      (["--context-sentences", "-2"], "--context-sentences")):
        try:
            code = main(["--live", "-", "--model", str(live_model), *args])
        except SystemExit as e:  # argparse's own checks
            code = e.code
        assert code != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("error: ") and msg in err[-1]
