"""punct.engine.budget: when a time budget leaves no room for another step (the validation's
time, or its words at three times the training speed, a quarter more, the step and the saving),
and what the end of a budget saves; a run stopped by a budget and resumed: tests/engine/test_carry.py."""
from __future__ import annotations

import time

import pytest
import torch

from punct.engine import checkpoint as ckpt
from punct.engine.budget import BudgetedRun
from punct.text.labels import LABELS


def run_of(tmp_path, deadline_in=None, valid_seconds=None, words=0, seconds=0.0, valid_words=0):
    run = BudgetedRun()
    run.deadline = None if deadline_in is None else time.monotonic() + deadline_in
    run.valid_seconds, run.valid_words, run.save_seconds = valid_seconds, valid_words, 0.5
    run.prog = {"words": words, "seconds": seconds, "epoch": 0, "batch": 3}
    run.model = torch.nn.Linear(2, 2)
    run.opt = torch.optim.SGD(run.model.parameters(), lr=0.1)
    run._payload = {"model": "linear", "labels": list(LABELS)}
    run.main, run.state, run.exp_dir, run.ck_path = True, None, tmp_path, tmp_path / "checkpoint.pt"
    return run


def test_without_a_budget_there_is_always_time(tmp_path):
    assert not run_of(tmp_path).out_of_time(1e9)


def test_the_last_validations_time_is_kept_free(tmp_path):
    # 1.25 * 2 s of validation + a 1 s step + 0.5 s of saving = 4 s
    assert run_of(tmp_path, deadline_in=3.5, valid_seconds=2.0).out_of_time(1.0)
    assert not run_of(tmp_path, deadline_in=4.5, valid_seconds=2.0).out_of_time(1.0)


def test_before_a_validation_its_words_are_timed_at_three_times_the_training_speed(tmp_path):
    # 1000 words/s in training: 6000 validation words take 2 s, so 4 s are needed as above
    args = dict(words=10_000, seconds=10.0, valid_words=6000)
    assert run_of(tmp_path, deadline_in=3.5, **args).out_of_time(1.0)
    assert not run_of(tmp_path, deadline_in=4.5, **args).out_of_time(1.0)
    assert not run_of(tmp_path, deadline_in=0.1, valid_words=6000).out_of_time(1.0)  # no step timed yet


def test_validation_is_timed_and_best_pt_holds_its_scores(tmp_path):
    run = run_of(tmp_path)
    run.validate = lambda: (time.sleep(0.05), (1.5, 42.0))[1]
    assert run.timed_validate() == (1.5, 42.0) and run.valid_seconds >= 0.05
    run.save_best(3, 1.5, 42.0)
    best = ckpt.load(tmp_path / "best.pt")
    assert (best["model"], best["epoch"], best["valid_ppl"], best["valid_f1"]) == ("linear", 3, 1.5, 42.0)
    assert set(best["state_dict"]) == {"weight", "bias"}


def test_the_end_of_a_budget_with_nothing_trained_saves_the_checkpoint_and_says_why(tmp_path):
    class NoSignal:
        def agreed(self, world):
            return 0

    run = run_of(tmp_path)
    run.trained_now, run.world = False, 1
    prog = run.end_of_budget(NoSignal())
    assert prog["stopped"] == "time budget"
    saved = ckpt.load(tmp_path / "checkpoint.pt")
    # the checkpoint is where the run stands, not a finished run: a rerun trains on from batch 3
    assert saved["progress"]["batch"] == 3 and "stopped" not in saved["progress"] and "optimizer" in saved


def test_a_signal_that_came_with_the_end_of_the_budget_still_stops_the_run(tmp_path):
    from punct.engine.signals import Interrupted

    class Term:
        def agreed(self, world):
            return 15

    run = run_of(tmp_path)
    run.trained_now, run.world = False, 1
    with pytest.raises(Interrupted, match="training stopped by SIGTERM; rerun the same command"):
        run.end_of_budget(Term())
    assert (tmp_path / "checkpoint.pt").is_file()


def test_the_end_of_a_budget_keeps_the_model_it_validated_as_stop_pt(tmp_path):
    class NoSignal:
        def agreed(self, world):
            return 0

    run = run_of(tmp_path)
    run.trained_now, run.world, run.validate = True, 1, lambda: (1.25, 61.5)
    run.note_validation = lambda ppl, f1, partial: None
    run.model.weight.data.fill_(0.5)
    run.end_of_budget(NoSignal())
    stop = ckpt.load(tmp_path / "stop.pt")
    assert (stop["valid_ppl"], stop["valid_f1"], stop["stopped_at"]["batch"]) == (1.25, 61.5, 3)
    assert torch.equal(stop["state_dict"]["weight"], torch.full((2, 2), 0.5)) and "optimizer" not in stop
    assert not (tmp_path / "best.pt").exists()  # best.pt is an epoch's, chosen by validation
