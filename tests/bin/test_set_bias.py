"""``punct set-bias`` (punct.bin.set_bias): a decision bias kept in a model file moves its labels
as ``--bias`` does and leaves its posteriors alone; a second stage labels its words without
times with its stage one's bias; bad inputs are one line."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from punct.engine import checkpoint as ckpt

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def labels(hyp):
    return [x for u in hyp for x in u.labels]


@pytest.mark.parametrize("runtime", ["torch", "onnx"])
def test_the_files_bias_moves_its_labels_and_not_its_posteriors(stage1_models, tiny_model_data, tmp_path, runtime,
                                                               monkeypatch):
    from punct.bin.set_bias import main
    from punct.engine.decode import decode, decode_ensemble, posteriors

    monkeypatch.setenv("PUNCT_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model.pt"
    shutil.copy(stage1_models["tbrnn"], model)
    dev = tiny_model_data[1]
    plain = labels(decode(model, dev, runtime=runtime))
    given = labels(decode_ensemble([model], dev, bias=[2.0, 0.0, -1.0], runtime=runtime))
    _, before, _ = posteriors(model, dev, runtime=runtime)
    assert given != plain
    assert main(["--model", str(model), "--bias", "2", "0", "-1"]) == 0
    ck = ckpt.load(model)
    assert ck["decision_bias"] == {"COMMA": 2.0, "PERIOD": 0.0, "QUESTION": -1.0}
    assert ck["decision_bias_from"] == {"given": True}
    assert labels(decode(model, dev, runtime=runtime)) == given  # punct decode and restore of the file
    assert labels(decode_ensemble([model], dev, runtime=runtime)) == given  # one member: its file's bias
    assert labels(decode_ensemble([model], dev, bias=[0, 0, 0], runtime=runtime)) == plain  # a given one replaces it
    _, after, _ = posteriors(model, dev, runtime=runtime)
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(before, after))
    assert main(["--model", str(model), "--clear"]) == 0
    assert "decision_bias" not in ckpt.load(model)
    assert labels(decode(model, dev, runtime=runtime)) == plain


def test_a_tuned_bias_is_read_with_where_it_was_tuned(stage1_models, tmp_path, capsys):
    from punct.bin.set_bias import main

    model = tmp_path / "model.pt"
    shutil.copy(stage1_models["tbrnn"], model)
    tuned = tmp_path / "tuned.json"
    tuned.write_text(json.dumps({"on": "data/x/dev", "weights": [1.0], "bias": {"COMMA": 0.3, "PERIOD": 0.7},
                                 "f1": 70.5, "f1_without_bias": 70.0}))
    assert main(["--model", str(model), "--from", str(tuned)]) == 0
    ck = ckpt.load(model)
    assert ck["decision_bias"] == {"COMMA": 0.3, "PERIOD": 0.7, "QUESTION": 0.0}
    assert ck["decision_bias_from"] == {"on": "data/x/dev", "f1": 70.5, "f1_without_bias": 70.0}
    for bad, why in [({"on": "d", "weights": [1.0]}, "no bias in it"),
                     ({"on": "d", "weights": [0.5, 0.5], "bias": {"COMMA": 1}}, "an ensemble of 2 models"),
                     ({"on": "d", "weights": [1.0], "bias": {"COLON": 1}}, "unknown mark")]:
        tuned.write_text(json.dumps(bad))
        capsys.readouterr()
        assert main(["--model", str(model), "--from", str(tuned)]) == 1
        err = capsys.readouterr().err.strip()
        assert why in err and str(tuned) in err and len(err.splitlines()) == 1
    assert ckpt.load(model)["decision_bias"]["PERIOD"] == 0.7  # a refused bias leaves the file as it was
    assert main(["--model", str(tmp_path / "missing.pt"), "--clear"]) == 1
    assert "missing.pt" in capsys.readouterr().err


def test_a_second_stage_labels_words_without_times_as_its_stage_one(repo_root, stage1_models, tiny_model_data,
                                                                     tmp_path):
    """A pause stage shipped beside its stage one (export --stage1-file, as models/accurate/):
    words without times take the stage one's decisions, its file's bias included, whatever the
    second stage's own bias."""
    from punct.bin.export import export
    from punct.bin.set_bias import main
    from punct.data.datadir import load_utterances, write_datadir
    from punct.engine.decode import decode
    from punct.engine.train import train
    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.errors import PunctError
    from punct.text.words import Utterance, Word
    from tests.synthetic import RUN1

    ship = tmp_path / "ship"
    ship.mkdir()
    first = ship / "tagger.pt"
    shutil.copy(stage1_models["tbrnn"], first)
    cfg = load_config(repo_root / "conf/ta_brnn_p.yaml", TrainConfig, ["model_args.hidden_size=8", f"init_from={first}"] + RUN1)
    train(cfg, *tiny_model_data, tmp_path / "exp")
    untimed = tmp_path / "untimed"
    write_datadir(untimed, [Utterance(u.id, [Word(w.text, w.label) for w in u.words])
                            for u in load_utterances(tiny_model_data[1])])
    assert main(["--model", str(first), "--bias", "2", "0", "-1"]) == 0
    export(tmp_path / "exp" / "best.pt", ship / "pauses.pt", stage1_file=first)
    alone = labels(decode(first, untimed, runtime="torch"))
    assert alone != labels(decode(stage1_models["tbrnn"], untimed, runtime="torch"))
    assert labels(decode(ship / "pauses.pt", untimed, runtime="torch")) == alone
    assert main(["--model", str(ship / "pauses.pt"), "--bias", "-1", "1", "0"]) == 0  # its own, for timed words
    assert not any(k.startswith("stage1.") for k in ckpt.load(ship / "pauses.pt", fill_stage1=False)["state_dict"])
    assert labels(decode(ship / "pauses.pt", untimed, runtime="torch")) == alone
    # the stage one's file rewritten: the pair is refused until the second stage is exported again
    assert main(["--model", str(first), "--clear"]) == 0
    with pytest.raises(PunctError, match="not the file it was trained on"):
        ckpt.load(ship / "pauses.pt")
