"""punct.bin.common.run: the environment defaults every entry point gets before torch loads."""
from __future__ import annotations

import argparse
import os

from punct.bin.common import run


def _seen(args):
    args.seen = os.environ.get("OMP_WAIT_POLICY")
    return 0


def test_openmp_threads_sleep_by_default(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    args = argparse.Namespace(verbose=False)
    assert run(_seen, args, prog="t") == 0
    assert args.seen == "PASSIVE"


def test_the_users_setting_wins(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    args = argparse.Namespace(verbose=False)
    assert run(_seen, args, prog="t") == 0
    assert args.seen == "ACTIVE"
