"""punct.engine.averaging: the mean of the kept epochs' weights, which epochs are kept by
select_by (ties to the earlier), the files of the dropped ones deleted, the average's win
decided as the best epoch was (a training run that averages: tests/engine/test_train.py)."""
from __future__ import annotations

import pytest
import torch

from punct.engine import averaging
from punct.engine.config import TrainConfig, ValidationConfig


def test_the_average_is_the_mean_of_the_floats_and_the_last_of_the_rest():
    a = {"w": torch.tensor([1.0, 2.0]), "n": torch.tensor(3), "h": torch.tensor([0.5], dtype=torch.float16)}
    b = {"w": torch.tensor([3.0, 6.0]), "n": torch.tensor(7), "h": torch.tensor([1.5], dtype=torch.float16)}
    avg = averaging.average_state_dicts([a, b])
    assert avg["w"].tolist() == [2.0, 4.0] and avg["n"].item() == 7
    assert avg["h"].dtype == torch.float16 and avg["h"].item() == 1.0
    with pytest.raises(ValueError, match="no models to average"):
        averaging.average_state_dicts([])


ROWS = [{"epoch": 1, "valid_ppl": 1.5, "valid_f1": 40.0}, {"epoch": 2, "valid_ppl": 1.3, "valid_f1": 50.0},
        {"epoch": 3, "valid_ppl": 1.4, "valid_f1": 55.0}, {"epoch": 4, "valid_ppl": 1.4, "valid_f1": 50.0}]


@pytest.mark.parametrize("select_by,kept", [("ppl", [2, 3]), ("f1", [2, 3])])
def test_the_best_epochs_are_kept_in_epoch_order_an_earlier_one_winning_a_tie(select_by, kept):
    cfg = TrainConfig(average_best=2, select_by=select_by)
    assert [s["epoch"] for s in averaging.best_snapshots(cfg, list(reversed(ROWS)))] == kept


def test_better_compares_by_select_by_and_a_tie_is_not_better():
    ppl, f1 = ValidationConfig(select_by="ppl"), ValidationConfig(select_by="f1")
    assert averaging.better(ppl, ROWS[1], ROWS[0]) and not averaging.better(ppl, ROWS[3], ROWS[2])
    assert averaging.better(f1, ROWS[2], ROWS[1]) and not averaging.better(f1, ROWS[1], ROWS[2])
    assert averaging.better(ppl, ROWS[0], None)


def test_the_files_of_dropped_epochs_are_deleted(tmp_path):
    folder = tmp_path / averaging.SNAPSHOT_DIR
    folder.mkdir()
    for e in (1, 2, 3):
        (folder / f"{e}.pt").write_bytes(b"x")
    (folder / "notes.txt").write_text("kept: not a snapshot")
    averaging.prune_snapshots(tmp_path, [{"epoch": 2}])
    assert sorted(p.name for p in folder.iterdir()) == ["2.pt", "notes.txt"]
    averaging.prune_snapshots(tmp_path / "no_run", [])  # no folder: nothing to do


def test_an_epoch_is_written_only_while_it_is_among_the_best(tmp_path, monkeypatch):
    saved = []
    monkeypatch.setattr(averaging.ckpt, "save", lambda path, payload: saved.append(path.name))
    cfg = TrainConfig(average_best=2)
    prog = {"snapshots": []}
    for row in ROWS:
        averaging.keep_snapshot(cfg, prog, tmp_path, dict(row), main=True)
    assert saved == ["1.pt", "2.pt", "3.pt"]  # epoch 4 ties epoch 3 and loses
    assert [s["epoch"] for s in prog["snapshots"]] == [2, 3]
    averaging.keep_snapshot(cfg, {"snapshots": []}, tmp_path, dict(ROWS[0]), main=False)
    assert len(saved) == 3  # only the main rank writes
