"""punct.engine.expdir, a training's experiment directory: the log written and read back, a
stop request and its reason, train_done.json, the run's config and command, a warm start's
progress, and the config changes a resume refuses (a training stopped and resumed:
tests/engine/test_train_interrupted.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from punct.config import to_dict
from punct.engine import expdir
from punct.engine.config import TrainConfig
from punct.errors import PunctError

ROWS = [{"epoch": 1, "train_loss": 0.5, "valid_ppl": 1.4, "valid_f1": 40.25, "seconds": 10.0, "words_per_s": 99.6,
         "f1_COMMA": 50.5, "f1_PERIOD": 40.0, "f1_QUESTION": None},
        {"epoch": 2, "train_loss": 0.4, "valid_ppl": 1.3, "valid_f1": 45.0, "seconds": 11.5, "words_per_s": 100}]


def test_the_log_is_read_back_as_written(tmp_path):
    """Each mark's validation F1 has its column; a mark without one (never predicted nor in the
    reference, or a row resumed from before the columns) is '-', read back as None."""
    expdir.write_log(tmp_path, ROWS)
    lines = (tmp_path / "train_log.tsv").read_text().splitlines()
    assert lines[0] == "\t".join(expdir.LOG_COLUMNS)
    assert lines[1] == "1\t0.5000\t1.4000\t40.2500\t10.0000\t99.6000\t50.5000\t40.0000\t-"
    assert lines[2].endswith("\t-\t-\t-")
    back = expdir.read_train_log(tmp_path / "train_log.tsv")
    assert [r["epoch"] for r in back] == [1, 2] and back[0]["words_per_s"] == 100 and back[1]["valid_f1"] == 45.0
    assert back[0]["f1_COMMA"] == 50.5 and back[0]["f1_QUESTION"] is None and back[1]["f1_PERIOD"] is None


def test_a_log_of_before_the_per_mark_columns_still_reads(tmp_path):
    (tmp_path / "train_log.tsv").write_text("\t".join(expdir.BASE_LOG_COLUMNS) + "\n1\t0.5\t1.4\t40.25\t10\t99.6\n")
    (row,) = expdir.read_train_log(tmp_path / "train_log.tsv")
    assert row["valid_f1"] == 40.25 and "f1_COMMA" not in row


@pytest.mark.parametrize("text,where,problem", [
    ("epoch\tloss\n", 1, "expected the columns epoch train_loss"),
    ("\t".join(expdir.LOG_COLUMNS) + "\n1\t0.5\n", 2, "expected 9 tab-separated fields, found 2"),
    ("\t".join(expdir.BASE_LOG_COLUMNS) + "\n1\t0.5\t1.4\tnan?\t10\t99\n", 2, "a field is not a number"),
    ("\t".join(expdir.LOG_COLUMNS) + "\n1\t0.5\t1.4\t40\t10\t99\t-\t-\tx\n", 2, "a field is not a number"),
    ("\t".join(expdir.BASE_LOG_COLUMNS) + "\n1\t0.5\t-\t40\t10\t99\n", 2, "a field is not a number"),
])
def test_a_bad_log_is_named_by_line(tmp_path, text, where, problem):
    (tmp_path / "train_log.tsv").write_text(text)
    with pytest.raises(PunctError, match=f"train_log.tsv:{where}: {problem}"):
        expdir.read_train_log(tmp_path / "train_log.tsv")


def test_a_stop_request_needs_a_training_and_keeps_its_reason_on_one_line(tmp_path):
    with pytest.raises(PunctError, match="experiment directory not found"):
        expdir.request_stop(tmp_path / "none", "x")
    with pytest.raises(PunctError, match="no training here"):
        expdir.request_stop(tmp_path, "x")
    assert expdir.stop_requested(tmp_path) is None
    (tmp_path / "best.pt").write_bytes(b"x")
    assert expdir.request_stop(tmp_path, "  the dev set\n changed ") == tmp_path / expdir.STOP_FILE
    assert expdir.stop_requested(tmp_path) == "the dev set changed"
    expdir.request_stop(tmp_path, "")
    assert expdir.stop_requested(tmp_path) == "stop requested"
    assert expdir.stop_requested(tmp_path, rank=1) is None  # only rank 0 reads the file (one process here)


def test_train_done_says_why_and_where_a_warm_start_came_from(tmp_path):
    prog = dict(expdir.new_progress(), epoch=4, best_epoch=3, best_ppl=1.25, best_f1=50.0, best_averaged=[2, 3],
                warm_start={"from": "exp/a/best.pt", "epoch": 2})
    expdir.write_done(tmp_path, "patience", prog, reason="no gain")
    assert json.loads((tmp_path / "train_done.json").read_text()) == {
        "stopped": "patience", "epochs": 4, "best_epoch": 3, "best_valid_ppl": 1.25, "best_valid_f1": 50.0,
        "why": "no gain", "averaged_epochs": [2, 3], "warm_start": {"from": "exp/a/best.pt", "epoch": 2}}


def test_the_command_file_keeps_the_first_command_and_each_resume(tmp_path):
    expdir.write_run_files(tmp_path, {"lr": 0.1}, "punct train a", resumed=False)
    expdir.write_run_files(tmp_path, {"lr": 0.1, "threads": 2}, "punct train b", resumed=True)
    assert (tmp_path / "cmd").read_text() == "punct train a\n# resumed with: punct train b\n"
    assert yaml.safe_load((tmp_path / "config.yaml").read_text()) == {"lr": 0.1, "threads": 2}


def test_a_warm_start_goes_on_from_the_epochs_of_its_model(tmp_path):
    expdir.write_log(tmp_path, ROWS + [dict(ROWS[1], epoch=3)])
    prog = expdir.warm_progress({"epoch": 2}, tmp_path / "best.pt")
    assert (prog["epoch"], prog["best_epoch"]) == (2, 2) and [r["epoch"] for r in prog["history"]] == [1, 2]
    assert prog["warm_start"] == {"from": str(tmp_path / "best.pt"), "epoch": 2}
    assert expdir.warm_progress({"epoch": 5}, tmp_path / "elsewhere" / "best.pt")["history"] == []


def test_a_resume_refuses_what_changes_the_learning_and_allows_the_rest():
    from punct.models import resolved_model_args

    args = resolved_model_args("tbrnn", {})
    saved = dict(to_dict(TrainConfig(model="tbrnn", lr=0.1)), model_args={})
    cfg = TrainConfig(model="tbrnn", lr=0.1, threads=4, max_epochs=99)
    expdir.check_resume(saved, cfg, args, Path("ck.pt"))  # threads and max_epochs may change
    with pytest.raises(PunctError, match=r"ck.pt: cannot resume: lr was 0.1, now 0.2"):
        expdir.check_resume(saved, TrainConfig(model="tbrnn", lr=0.2), args, Path("ck.pt"))
    # lr_decay is read by the plateau schedule only
    expdir.check_resume(saved, TrainConfig(model="tbrnn", lr=0.1, lr_decay=0.25), args, Path("ck.pt"))
    with pytest.raises(PunctError, match="cannot resume: model_args was"):
        expdir.check_resume(saved, cfg, resolved_model_args("tbrnn", {"hidden_size": 8}), Path("ck.pt"))
    with pytest.raises(PunctError, match="cannot resume: lr_schedule was 'constant', now 'plateau'"):
        expdir.check_resume(saved, TrainConfig(model="tbrnn", lr=0.1, lr_schedule="plateau", lr_decay=0.25), args,
                            Path("ck.pt"))
