"""A stop signal (SIGTERM, SIGINT) during training is deferred to the end of the
batch being trained, where the checkpoint is saved and training ends with an
:class:`Interrupted` error; rerunning the same command resumes from it. One
that comes while the last epoch is validated ends training after that epoch's
checkpoint, before the ending (checkpoint averaging, ``train_done.json``),
which the rerun does.

A batch scheduler sends SIGTERM some time before it kills a job (SLURM's
``KillWait``, 30 s by default), and Ctrl-C sends SIGINT: without this, everything
after the last periodic checkpoint (``checkpoint_minutes``) was lost. The same
signal again more than :data:`REPEAT_SECONDS` after the first acts at once (the
default action: SIGINT raises KeyboardInterrupt, SIGTERM ends the process); a
repeat within that time is the same request told twice (``torchrun`` forwards
to its ranks the signal that the terminal or ``kill -- -PGID`` also sent them) and
is ignored. In a data-parallel run the ranks agree at every batch on whether
any of them was signalled, so they all stop after the same batch.

Handlers are installed only from the main thread and only around the batch
loop; outside it (loading data, fitting an n-gram model, writing the final
files) a signal acts as it always does.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from typing import Iterator

from punct.errors import PunctError

SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: a repeat of the signal within this many seconds of the first is ignored (see the module docstring)
REPEAT_SECONDS = 1.0


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15."""
    return signal.Signals(signum).name


class Interrupted(PunctError):
    """Training ended by a signal after its checkpoint was saved; the exit code is the
    shell's for that signal (128 + its number). Every rank of a data-parallel run
    raises it after the same batch; ``quiet`` on all but rank 0 has it told once."""

    def __init__(self, message: str, path, signum: int, quiet: bool = False):
        super().__init__(message, path)
        self.signum = signum
        self.exit_code = 128 + signum
        self.quiet = quiet


class StopSignal:
    """The first stop signal received while :func:`deferred` is active (0 if none)."""

    def __init__(self) -> None:
        self.signum = 0
        self.at = 0.0

    def agreed(self, world: int = 1) -> int:
        """The signal number if this rank or (with ``world`` > 1) any rank was signalled.
        With several ranks it is a collective: every rank must call it at the same point."""
        if world <= 1:
            return self.signum
        import torch
        import torch.distributed as dist

        flag = torch.tensor([self.signum])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return int(flag.item())


@contextlib.contextmanager
def deferred(announce: bool = True) -> Iterator[StopSignal]:
    """Within the block, SIGTERM and SIGINT set the yielded :class:`StopSignal` instead
    of acting; the previous handlers come back when the block ends. ``announce`` writes
    one line to stderr when the signal arrives (rank 0 of a data-parallel run)."""
    got = StopSignal()
    if threading.current_thread() is not threading.main_thread():
        yield got  # signal handlers belong to the main thread
        return
    # a signal the process ignores (SIGINT in a job started with & by a script) stays ignored
    previous = {s: signal.getsignal(s) for s in SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}

    def handler(signum, frame):
        now = time.monotonic()
        if not got.signum:
            got.signum, got.at = signum, now
            if announce:  # os.write: a buffered stream may be mid-write in the interrupted code
                os.write(2, (f"{signal_name(signum)}: training stops after this batch, once its checkpoint is "
                             f"saved (the same signal again after {REPEAT_SECONDS:g} s stops it at once)\n").encode())
            return
        if signum == got.signum and now - got.at < REPEAT_SECONDS:
            return
        old = previous[signum]
        signal.signal(signum, old if old is not None else signal.SIG_DFL)
        if callable(old):
            old(signum, frame)
        else:
            os.kill(os.getpid(), signum)

    for s in previous:
        signal.signal(s, handler)
    try:
        yield got
    finally:
        for s, old in previous.items():
            signal.signal(s, old if old is not None else signal.SIG_DFL)
