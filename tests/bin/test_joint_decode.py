"""punct.bin.joint_decode: its inputs checked before anything is decoded, one line each (the
tune -> decode chain on a tiny corpus: tests/bin/test_joint_tune.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_missing_model_is_one_line_error(tmp_path, capsys):
    from punct.bin import joint_decode

    rc = joint_decode.main(["--lexical", str(tmp_path / "l.pt"), "--acoustic", str(tmp_path / "a.pt"), "--config",
                            str(ROOT / "conf/joint.yaml"), "--data", str(tmp_path), "--out", str(tmp_path / "o")])
    assert rc == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {tmp_path / 'l.pt'}: model file not found"]


def test_a_missing_data_directory_or_text_is_named_before_the_models_load(tmp_path, capsys):
    from punct.bin import joint_decode

    for name in ("l.pt", "a.pt"):
        (tmp_path / name).write_bytes(b"not read: the data is checked first")
    (tmp_path / "data").mkdir()
    argv = ["--lexical", str(tmp_path / "l.pt"), "--acoustic", str(tmp_path / "a.pt"), "--config",
            str(ROOT / "conf/joint.yaml"), "--out", str(tmp_path / "o"), "--threads", "1"]
    for data, line in ((tmp_path / "none", f"error: {tmp_path / 'none'}: data directory not found"),
                       (tmp_path / "data", f"error: {tmp_path / 'data' / 'text'}: input not found")):
        assert joint_decode.main(argv + ["--data", str(data)]) == 1
        assert capsys.readouterr().err.strip().splitlines() == [line]
    assert not (tmp_path / "o").exists()


def test_only_stages_1_and_2_exist(tmp_path, capsys):
    from punct.bin import joint_decode

    with pytest.raises(SystemExit) as e:
        joint_decode.main(["--lexical", "l.pt", "--acoustic", "a.pt", "--config", "j.yaml", "--data", str(tmp_path),
                           "--out", str(tmp_path / "o"), "--stage", "3"])
    assert e.value.code == 2 and "invalid choice: 3" in capsys.readouterr().err
