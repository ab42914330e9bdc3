"""punct.engine.signals: SIGINT and SIGTERM deferred to the end of the batch (a repeat forwarded
at once ignored, a second Ctrl-C later acting), an ignored signal left alone, the exit status."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from punct.bin.common import run
from punct.engine import signals
from punct.engine.signals import Interrupted



def test_a_repeat_within_the_window_is_ignored_and_a_later_one_acts(monkeypatch, sigint_handled):
    with signals.deferred(announce=False) as got:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)  # torchrun forwarding what the ranks got already
    assert got.signum == signal.SIGINT
    monkeypatch.setattr(signals, "REPEAT_SECONDS", 0.0)
    with signals.deferred(announce=False) as got:
        os.kill(os.getpid(), signal.SIGINT)
        assert got.signum == signal.SIGINT  # the first is deferred (reaching this line shows it)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C again: stop now
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_signal_stays_ignored():
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals.deferred(announce=False) as got:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
        assert got.signum == 0
    finally:
        signal.signal(signal.SIGINT, old)


def test_the_entry_point_exits_with_the_signals_status(capsys):
    def stopped(args):
        raise Interrupted("training stopped by SIGTERM", Path("exp/x/checkpoint.pt"), signal.SIGTERM)

    assert run(stopped, None, prog="t") == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == "error: exp/x/checkpoint.pt: training stopped by SIGTERM"


def test_a_signal_is_named_and_its_exit_code_is_the_shells():
    assert signals.signal_name(signal.SIGTERM) == "SIGTERM" and signals.signal_name(2) == "SIGINT"
    e = Interrupted("training stopped by SIGINT", Path("exp/x/checkpoint.pt"), signal.SIGINT, quiet=True)
    assert (e.exit_code, e.signum, e.quiet) == (130, signal.SIGINT, True)


def test_sigterm_is_deferred_too_and_the_handlers_come_back():
    before = signal.getsignal(signal.SIGTERM)
    with signals.deferred(announce=False) as got:
        os.kill(os.getpid(), signal.SIGTERM)
        assert got.signum == signal.SIGTERM and got.at > 0
    assert signal.getsignal(signal.SIGTERM) is before
