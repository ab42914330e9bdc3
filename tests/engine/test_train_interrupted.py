"""punct.engine.train stopped and run again: a resume from the checkpoint gives the weights of
a run never stopped, a stop request ends it at an epoch boundary, a signal saves the batch it
arrives in, and a second training in the same directory is refused while the first runs."""
import os
import signal
from pathlib import Path

import pytest
import torch

from punct.engine import checkpoint as ckpt
from punct.engine.signals import Interrupted
from punct.engine.train import train
from punct.errors import PunctError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("extra", [[], ["word_dropout=0.3"]])
def test_resume_mid_epoch_gives_identical_weights(tiny_data, tmp_path, extra, tiny_cfg):
    tr, dev = tiny_data
    tiny = lambda: tiny_cfg(*extra)  # noqa: E731
    train(tiny(), tr, dev, tmp_path / "a")

    class Killed(Exception):
        pass

    def kill(epoch, batch):
        if epoch == 1 and batch == 3:
            raise Killed

    with pytest.raises(Killed):
        train(tiny(), tr, dev, tmp_path / "b", on_step=kill)
    assert ckpt.load(tmp_path / "b" / "checkpoint.pt")["progress"]["batch"] == 2  # killed during step 3
    steps = []
    train(tiny(), tr, dev, tmp_path / "b", on_step=lambda e, b: steps.append((e, b)))
    assert steps[0] == (1, 3)  # resumed at the third batch of the second epoch
    a = ckpt.load(tmp_path / "a" / "checkpoint.pt")
    b = ckpt.load(tmp_path / "b" / "checkpoint.pt")
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("seconds", "words_per_s")} for r in rows]
    assert strip(a["progress"]["history"]) == strip(b["progress"]["history"])


def test_resume_refuses_changed_model(tiny_data, tmp_path, tiny_cfg):
    tr, dev = tiny_data
    train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "e")
    with pytest.raises(PunctError, match="hidden_size"):
        train(tiny_cfg("model_args.hidden_size=4"), tr, dev, tmp_path / "e")


def test_stop_request_ends_training_at_the_next_epoch_boundary(tiny_data, tmp_path, tiny_cfg):
    import json

    from punct.engine.expdir import request_stop

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    steps = []

    def ask_to_stop(epoch, batch):
        steps.append((epoch, batch))
        if (epoch, batch) == (0, 2):  # mid-epoch: the epoch is finished, validated and kept
            request_stop(exp, "  flat\n validation F1 ")

    prog = train(tiny_cfg("max_epochs=4"), tr, dev, exp, on_step=ask_to_stop)
    assert prog["epoch"] == 1 and max(e for e, _ in steps) == 0
    done = json.loads((exp / "train_done.json").read_text())
    assert done["stopped"] == "by hand" and done["why"] == "flat validation F1" and done["epochs"] == 1
    assert (exp / "best.pt").is_file() and len((exp / "train_log.tsv").read_text().splitlines()) == 2
    # while the file is there, a rerun (a resumed queue) stops at once
    steps.clear()
    assert train(tiny_cfg("max_epochs=4"), tr, dev, exp, on_step=ask_to_stop)["epoch"] == 1 and steps == []
    # without it, the run goes on from its checkpoint, and while it does it has no recorded end
    (exp / "stop").unlink()
    seen = []
    assert train(tiny_cfg("max_epochs=2"), tr, dev, exp,
                 on_step=lambda e, b: seen.append((exp / "train_done.json").exists()))["epoch"] == 2
    assert seen and not any(seen)
    assert json.loads((exp / "train_done.json").read_text())["stopped"] == "max_epochs"


def test_stop_request_before_any_model_is_refused(tiny_data, tmp_path, tiny_cfg):
    from punct.engine.expdir import request_stop

    tr, dev = tiny_data
    with pytest.raises(PunctError, match="experiment directory not found"):
        request_stop(tmp_path / "none", "why")
    (tmp_path / "empty").mkdir()
    with pytest.raises(PunctError, match="no training here"):
        request_stop(tmp_path / "empty", "why")
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "stop").write_text("\n")
    with pytest.raises(PunctError, match="before the first epoch ended"):
        train(tiny_cfg(), tr, dev, exp)
    assert not (exp / "best.pt").exists() and not (exp / "train_done.json").exists()


# A stop signal during training: the batch it arrives in is kept in the checkpoint, training
# ends with a one-line error and the shell's exit status, and a rerun resumes to the same
# weights as a run never stopped (punct.engine.signals).


def test_sigterm_saves_the_batch_and_a_rerun_resumes_to_the_same_weights(tiny_data, tmp_path, tiny_cfg):
    tr, dev = tiny_data
    train(tiny_cfg(), tr, dev, tmp_path / "a")
    before = signal.getsignal(signal.SIGTERM)

    def term(epoch, batch):
        if (epoch, batch) == (1, 3):
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(Interrupted) as e:
        train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=term)
    assert e.value.exit_code == 128 + signal.SIGTERM
    assert str(e.value).startswith(f"{tmp_path / 'b' / 'checkpoint.pt'}: training stopped by SIGTERM at epoch 2, "
                                   "batch 3 of ")
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is gone with the loop
    assert ckpt.load(tmp_path / "b" / "checkpoint.pt")["progress"]["batch"] == 3  # the signalled batch is kept
    steps = []
    train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=lambda e, b: steps.append((e, b)))
    assert steps[0] == (1, 4)
    a = ckpt.load(tmp_path / "a" / "checkpoint.pt")
    b = ckpt.load(tmp_path / "b" / "checkpoint.pt")
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k



def test_sigint_on_the_last_batch_of_an_epoch_resumes_at_its_validation(tiny_data, tmp_path, sigint_handled, tiny_cfg):
    tr, dev = tiny_data
    steps = []
    train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "a", on_step=lambda e, b: steps.append(b))
    last = steps[-1]

    def interrupt(epoch, batch):
        if (epoch, batch) == (0, last):
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(Interrupted, match=f"by SIGINT at epoch 1, batch {last} of {last};"):
        train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=interrupt)
    prog = ckpt.load(tmp_path / "b" / "checkpoint.pt")["progress"]
    assert (prog["epoch"], prog["batch"], prog["history"]) == (0, last, [])
    steps = []
    prog = train(tiny_cfg(), tr, dev, tmp_path / "b", on_step=lambda e, b: steps.append((e, b)))
    assert steps[0] == (1, 1) and prog["epoch"] == 2 and len(prog["history"]) == 2  # epoch 1 validated first


def test_a_signal_while_validating_the_last_epoch_stops_before_the_ending(tiny_data, tmp_path, monkeypatch, tiny_cfg):
    import punct.engine.validation as engine_validation

    tr, dev = tiny_data
    evaluate = engine_validation.evaluate

    def signalled_evaluate(*args, **kw):
        os.kill(os.getpid(), signal.SIGTERM)  # after the last batch: no batch is left to stop after
        return evaluate(*args, **kw)

    monkeypatch.setattr(engine_validation, "evaluate", signalled_evaluate)
    with pytest.raises(Interrupted, match="by SIGTERM after epoch 1; rerun the same command to finish"):
        train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "b")
    assert not (tmp_path / "b" / "train_done.json").exists() and (tmp_path / "b" / "best.pt").exists()
    monkeypatch.setattr(engine_validation, "evaluate", evaluate)
    assert train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "b")["epoch"] == 1
    assert (tmp_path / "b" / "train_done.json").exists()


def test_a_second_training_in_the_same_directory_is_refused_while_the_first_runs(tiny_data, tmp_path, tiny_cfg):
    """A rerun while the first run still trains (run.sh killed alone leaves its training
    going) would interleave two runs' checkpoints: it stops at once, naming the holder."""
    import subprocess
    import sys

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    refused = []

    def second(epoch, batch):
        if (epoch, batch) == (0, 2):
            with pytest.raises(PunctError) as e:
                train(tiny_cfg(), tr, dev, exp)
            refused.append(str(e.value))

    train(tiny_cfg(), tr, dev, exp, on_step=second)
    assert refused == [f"{exp / '.train.lock'}: a training is already running here (host {os.uname().nodename}, "
                       f"pid {os.getpid()}); wait for it to end, or stop it (kill -TERM its pid) and rerun"]
    assert (exp / "train_done.json").is_file()  # the first run was not disturbed
    # a holder killed outright (SIGKILL: no cleanup) leaves the file, not the lock
    code = ("import os, signal; from punct.fsutil import exclusive\n"
            f"with exclusive({str(tmp_path / 'k' / '.train.lock')!r}, 'a training'):\n"
            "    os.kill(os.getpid(), signal.SIGKILL)")
    (tmp_path / "k").mkdir()
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == -signal.SIGKILL and (tmp_path / "k" / ".train.lock").is_file()
    assert train(tiny_cfg(), tr, dev, tmp_path / "k")["epoch"] == 2


def test_a_file_system_without_locks_trains_unguarded(tiny_data, tmp_path, monkeypatch, caplog, tiny_cfg):
    import errno
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    tr, dev = tiny_data
    assert train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "exp")["epoch"] == 1
    assert "cannot lock (No locks available)" in caplog.text
