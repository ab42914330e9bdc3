"""The parts of a training run that keep it and carry it across machines and time budgets:
its files (checkpoint.pt, best.pt, the validation curve and the state file of
punct.engine.carry), timing validation, telling when the time budget leaves no room for
another step, and ending the run there (punct.engine.train._Run inherits them)."""
from __future__ import annotations

import logging
import time
from typing import Any

import torch

from punct.engine import checkpoint as ckpt
from punct.engine import signals

log = logging.getLogger("punct.engine.train")


class BudgetedRun:
    """What punct.engine.train._Run does with its files, a state file and a time budget. It
    reads the run's ``prog``, ``model``, ``opt``, ``validate``, ``_payload``, ``note_validation()`` and the attributes
    ``_Run.__init__`` sets (``exp_dir``, ``ck_path``, ``main``, ``state``, ``deadline``,
    ``valid_seconds``, ``valid_words``, ``trained_now``, ``save_seconds``)."""

    def payload(self) -> dict[str, Any]:
        """What every saved model holds: the model's name, arguments and weights, its inputs, the config."""
        return dict(self._payload, state_dict={k: v.cpu() for k, v in self.model.state_dict().items()})

    def save_checkpoint(self) -> None:
        if self.main:
            ckpt.save(self.ck_path, dict(self.payload(), optimizer=self.opt.state_dict(), progress=self.prog,
                                         rng=torch.get_rng_state()))

    def save_best(self, epoch: int, ppl: float, f1: float) -> None:
        if self.main:
            ckpt.save(self.exp_dir / "best.pt", dict(self.payload(), epoch=epoch, valid_ppl=ppl, valid_f1=f1))

    def save_state(self) -> None:
        """Write the state file (``state``) from where the run stands, if it carries one."""
        if self.main and self.state is not None:
            from punct.engine.carry import write_state

            write_state(self.state, dict(self.payload(), progress=self.prog, rng=torch.get_rng_state(),
                                         resume_command=self.command), self.opt.state_dict())

    def timed_validate(self) -> tuple[float, float]:
        """``validate()``, timed (the time budget keeps room for the next one)."""
        t = time.monotonic()
        out = self.validate()
        self.valid_seconds = time.monotonic() - t
        return out

    def out_of_time(self, step_seconds: float) -> bool:
        """Whether another step would leave too little of the time budget to validate and save:
        the last validation's time (or, before one, the validation words at three times the
        training speed, as a forward pass costs about a third of a step), a quarter more, a
        step and half a minute for the files."""
        if self.deadline is None:
            return False
        valid = self.valid_seconds
        if valid is None:
            if self.prog["seconds"] <= 0:
                return False  # no step timed yet: the first one tells the speed
            valid = self.valid_words / (3.0 * max(1.0, self.prog["words"] / self.prog["seconds"]))
        return time.monotonic() + 1.25 * valid + step_seconds + self.save_seconds > self.deadline

    def end_of_budget(self, got) -> dict[str, Any]:
        """The time budget is spent: validate where the run stands (inside an epoch, most
        likely), save that model as ``stop.pt`` (a candidate beside best.pt, which only whole
        epochs replace), the checkpoint and the state file; a rerun trains on from there."""
        prog = self.prog
        if self.trained_now:
            ppl, f1 = self.timed_validate()
            self.model.train()
            self.note_validation(ppl, f1, partial=prog["batch"] > 0)
            log.info("time budget: stopped at epoch %d, batch %d, %d words seen; valid ppl %.4f, valid F1 %.1f "
                     "(the model: %s)", prog["epoch"] + 1, prog["batch"], prog.get("words_seen", 0), ppl, f1,
                     self.exp_dir / "stop.pt")
            if self.main:
                ckpt.save(self.exp_dir / "stop.pt", dict(self.payload(), epoch=prog["epoch"], valid_ppl=ppl, valid_f1=f1,
                                                         stopped_at={"epoch": prog["epoch"] + 1, "batch": prog["batch"],
                                                                     "words_seen": prog.get("words_seen", 0)}))
        else:
            log.info("time budget: too little of it left to train a step and validate; nothing done")
        self.save_checkpoint()
        self.save_state()
        prog["stopped"] = "time budget"
        signum = got.agreed(self.world)
        if signum:
            raise signals.Interrupted(f"training stopped by {signals.signal_name(signum)}; rerun the same command to "
                                      "resume", self.ck_path, signum, quiet=not self.main)
        return prog

