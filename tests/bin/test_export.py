"""punct.bin.export: the shipping copy of a model (no training state, optional float16)."""
from pathlib import Path

import torch

from punct.data.datadir import load_utterances
from punct.engine import checkpoint as ckpt
from punct.engine.decode import predict_streams

ROOT = Path(__file__).resolve().parents[2]


def _train(tiny_data, tiny_args, exp):
    from punct.bin import train

    tr, dev = tiny_data
    assert train.main(["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev),
                       "--exp", str(exp), "--max-epochs", "2", "batch_size=4", "slice_length=20", *tiny_args]) == 0
    return exp / "best.pt"


def test_export_half_is_smaller_and_decodes_the_same(tiny_data, tiny_args, tmp_path):
    from punct.bin import export

    best = _train(tiny_data, tiny_args, tmp_path / "exp")
    out = tmp_path / "models" / "default.pt"
    assert export.main(["--model", str(best), "--out", str(out), "--half", "--note", "test"]) == 0
    raw = torch.load(out, map_location="cpu", weights_only=True)
    assert "optimizer" not in raw and "progress" not in raw
    assert raw["export"]["note"] == "test" and raw["export"]["half"] is True
    assert "punct.bin.train" in raw["export"]["train_command"]
    assert all(v.dtype == torch.float16 for v in raw["state_dict"].values() if torch.is_floating_point(v))
    full = tmp_path / "models" / "full.pt"
    assert export.main(["--model", str(best), "--out", str(full)]) == 0

    def weight_bytes(path):
        sd = torch.load(path, map_location="cpu", weights_only=True)["state_dict"]
        return sum(v.numel() * v.element_size() for v in sd.values() if torch.is_floating_point(v))

    assert 2 * weight_bytes(out) == weight_bytes(full) > 0  # the weights in half the bytes
    assert out.stat().st_size < full.stat().st_size
    m_full, vocab, _ = ckpt.load_model(best)
    m_half, vocab2, _ = ckpt.load_model(out)
    assert all(p.dtype == torch.float32 for p in m_half.parameters())
    streams = [vocab.encode(u.texts) for u in load_utterances(tiny_data[1])]
    a = predict_streams(m_full, streams, window=20, batch_size=4)
    b = predict_streams(m_half, [vocab2.encode(u.texts) for u in load_utterances(tiny_data[1])], window=20, batch_size=4)
    same = sum(x == y for s, t in zip(a, b) for x, y in zip(s, t))
    assert same >= 0.95 * sum(len(s) for s in a)


def test_export_over_size_limit_fails_and_writes_nothing(tiny_data, tiny_args, tmp_path, capsys):
    from punct.bin import export

    best = _train(tiny_data, tiny_args, tmp_path / "exp")
    out = tmp_path / "m.pt"
    assert export.main(["--model", str(best), "--out", str(out), "--max-mb", "0.00001"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "over the limit" in err[0]
    assert not out.exists() and list(tmp_path.glob(".m.pt*")) == []


def test_export_missing_model(tmp_path, capsys):
    from punct.bin import export

    assert export.main(["--model", str(tmp_path / "none.pt"), "--out", str(tmp_path / "o.pt")]) == 1
    assert "model file not found" in capsys.readouterr().err
