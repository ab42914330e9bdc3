"""punct.bin.joint_tune (and punct.bin.joint_decode after it): help without torch, and the
tune -> decode chain on a tiny corpus (joint_decode's own errors: test_joint_decode.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mod,flag", [("joint_tune", "--dev"), ("joint_decode", "--stage")])
def test_help_does_not_import_torch(mod, flag):
    code = (f"import sys\nfrom punct.bin.{mod} import main\ntry:\n  main(['--help'])\nexcept SystemExit as e:\n"
            "  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout and flag in r.stdout


def test_tune_then_decode(tmp_path):
    import torch

    from punct.bin import joint_decode, joint_tune
    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.train import train
    from tests import synthetic as mc

    torch.set_num_threads(1)
    tr, dev = mc.make_feature_data(tmp_path / "data")
    conf, over = mc.STAGE1["tbrnn"]
    train(load_config(ROOT / conf, TrainConfig, over + mc.RUN1), tr, dev, tmp_path / "lex")
    train(load_config(ROOT / "conf/che_pause.yaml", TrainConfig, ["slice_length=20"]), tr, dev, tmp_path / "pause")
    chosen = tmp_path / "joint" / "joint.yaml"
    assert joint_tune.main(["--lexical", str(tmp_path / "lex/best.pt"), "--acoustic", str(tmp_path / "pause/best.pt"),
                            "--dev", str(dev), "--train", str(tr), "--config", str(ROOT / "conf/joint.yaml"),
                            "--out", str(chosen)]) == 0
    c = yaml.safe_load(chosen.read_text())
    assert c["expected_length"] > 1 and c["hard_weight"] in (0.15, 0.25, 0.35)
    rows = (chosen.parent / "joint.yaml.tsv").read_text().splitlines()
    assert len(rows) == 1 + 2 + 27 + 9  # header, the configured values at stages 1 and 2, the grids
    assert [r.split("\t")[-1] for r in rows[1:3]] == ["True", "True"] and rows[3].endswith("\tFalse")
    for stage in (1, 2):
        out = tmp_path / f"joint{stage}" / "decode_dev"
        assert joint_decode.main(["--lexical", str(tmp_path / "lex/best.pt"), "--acoustic", str(tmp_path / "pause/best.pt"),
                                  "--config", str(chosen), "--stage", str(stage), "--data", str(dev), "--out", str(out)]) == 0
        assert (out / "labels").is_file() and (out / "joint.yaml").is_file() and (out / "decode_stats.json").is_file()
    from punct.data.datadir import load_utterances

    assert sum(len(u) for u in load_utterances(tmp_path / "joint2" / "decode_dev")) == 120
