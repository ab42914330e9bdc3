"""punct set-case-lexicon: the words a data directory's written text spells one way, into a model
file with a case head, which punct restore then spells so; --clear; models without a case head."""
import pytest
import torch

from punct.text.labels import CASES, LABELS
from punct.text.words import Utterance, Word


def _case_model(path, tiny_inputs, case_head=True):
    """A tiny transformer tagger whose case head says lower case for every word (and O)."""
    from punct.engine import checkpoint
    from punct.models import build_model, resolved_model_args

    args = resolved_model_args("transformer_tagger", {"encoder": "all-mpnet-base-v2", "max_length": 16, "overlap": 4,
                                                      "pretrained": False, "case_head": case_head, "dropout": 0.0})
    torch.manual_seed(0)
    m = build_model("transformer_tagger", args, tiny_inputs.input_size)
    with torch.no_grad():
        heads = [(m.out, LABELS, "O")] + ([(m.case_out, CASES, "LOWER")] if case_head else [])
        for head, classes, want in heads:
            head.weight.zero_()
            head.bias.fill_(0.0)
            head.bias[classes.index(want)] = 5.0
    checkpoint.save(path, {"model": "transformer_tagger", "model_args": args, "vocab": [],
                           "inputs": tiny_inputs.state(), "labels": list(LABELS), "state_dict": m.state_dict(),
                           "train_config": {"slice_length": 16, "batch_size": 4}})
    return path


@pytest.fixture
def inputs(tiny_mpnet):
    from punct.engine.inputs import PieceInputs

    return PieceInputs("all-mpnet-base-v2")


@pytest.fixture
def data(tmp_path):
    from punct.data.datadir import write_datadir

    words = []
    for t in "we met the CEO of LNG in Paris".split() * 5:
        words.append(Word(t.lower(), written=t if t != t.lower() else None))
    write_datadir(tmp_path / "data", [Utterance("u1", words)])
    return tmp_path / "data"


def test_the_lexicon_goes_into_the_file_and_restore_spells_by_it(tmp_path, inputs, data, caplog):
    import punct
    from punct.bin.set_case_lexicon import main
    from punct.engine import checkpoint

    m = _case_model(tmp_path / "m.pt", inputs)
    assert punct.load(m).restore("the ceo of lng") == "The ceo of lng."
    assert main(["--model", str(m), "--from", str(data)]) == 0
    assert checkpoint.load(m)["case_lexicon"] == {"ceo": "UPPER", "lng": "UPPER", "paris": "CAP"}
    assert "case lexicon of 3 words" in caplog.text
    assert punct.load(m).restore("the ceo of lng in paris") == "The CEO of LNG in Paris."
    assert main(["--model", str(m), "--clear"]) == 0
    assert "case_lexicon" not in checkpoint.load(m)
    assert punct.load(m).restore("the ceo of lng") == "The ceo of lng."


def test_refused_without_a_case_head_or_a_written_file(tmp_path, inputs, data, capsys):
    from punct.bin.set_case_lexicon import main

    m = _case_model(tmp_path / "m.pt", inputs, case_head=False)
    before = m.read_bytes()
    assert main(["--model", str(m), "--from", str(data)]) == 1
    assert "the model has no case head" in capsys.readouterr().err
    assert m.read_bytes() == before  # left as it was
    (data / "written").unlink()
    assert main(["--model", str(m), "--from", str(data)]) == 1
    assert "written" in capsys.readouterr().err
