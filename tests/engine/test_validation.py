"""punct.engine.validation: the F1 a training validates with and what its log says of each mark,
the validation set decoded whole (``valid_decode: whole``), the choice of the best epoch."""
from __future__ import annotations

import re

import pytest

from punct.engine import checkpoint as ckpt
from punct.engine.train import train


def test_validation_logs_each_marks_f1(caplog):
    """The epoch's validation F1 is the overall one; each mark's F1 and counts are logged,
    so a mark the model never predicts is seen during training."""
    import logging

    from punct.engine.validation import mark_f1

    with caplog.at_level(logging.INFO, logger="punct.engine.validation"):
        f1 = mark_f1(["O", "COMMA", "QUESTION", "PERIOD"], ["O", "COMMA", "PERIOD", "PERIOD"])
    assert f1 == pytest.approx(200 / 3)
    assert "QUESTION 0.0 (0 predicted, 1 in the reference)" in caplog.text
    assert "PERIOD 66.7 (2 predicted, 1 in the reference)" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="punct.engine.validation"):
        mark_f1(["O", "COMMA"], ["O", "O"])  # a mark absent from both sides has no F1
    assert "QUESTION - (0 predicted, 0 in the reference)" in caplog.text


def test_valid_decode_whole_scores_the_validation_set_as_decoding_it_does(tiny_data, tmp_path, caplog, tiny_cfg):
    """valid_decode whole: the validation F1 is that of the validation utterances decoded whole
    (every word, a sentence longer than a slice too), the number decoding best.pt gives."""
    import logging

    from punct.data.datadir import load_utterances, write_datadir
    from punct.engine.decode import decode
    from punct.scoring.score import score_labels
    from punct.text.words import Utterance, Word

    tr, dev = tiny_data
    # dev and a 45-word sentence, longer than the 20-word slices (left out of the slices' F1)
    long = Utterance("long", [Word(f"w{8 + i % 20}", "O") for i in range(44)] + [Word("w9", "PERIOD")])
    write_datadir(tmp_path / "dev", load_utterances(dev) + [long])
    exp = tmp_path / "exp"
    args = ("max_epochs=3", "lr=0.5")
    with caplog.at_level(logging.INFO, logger="punct"):
        prog = train(tiny_cfg("valid_decode=whole", *args), tr, tmp_path / "dev", exp)
    assert "decoded whole: 4 utterances, 165 words, 20-word windows" in caplog.text
    hyp = decode(exp / "best.pt", tmp_path / "dev", runtime="torch", end_sentence=False)  # validation: the model alone
    ref = load_utterances(tmp_path / "dev")
    f1 = float(score_labels([x for u in ref for x in u.labels], [x for u in hyp for x in u.labels]).overall.f1)
    assert f1 > 30  # the model learnt something: the comparison below is not of two zeros
    assert ckpt.load(exp / "best.pt")["valid_f1"] == pytest.approx(f1, abs=1e-9)
    # the same training validated on the slices: the same perplexities, another F1
    slices = train(tiny_cfg(*args), tr, tmp_path / "dev", tmp_path / "slices")
    for a, b in zip(prog["history"], slices["history"], strict=True):
        assert a["valid_ppl"] == pytest.approx(b["valid_ppl"], rel=1e-6)
    assert [r["valid_f1"] for r in prog["history"]] != [r["valid_f1"] for r in slices["history"]]
    # each epoch logs both F1s: the one kept, and the one the slices would have given
    both = re.findall(r"validation F1 ([\d.]+) decoded whole, ([\d.]+) on the slices", caplog.text)
    assert [float(w) for w, _ in both] == [pytest.approx(r["valid_f1"], abs=0.005) for r in prog["history"]]
    assert [float(s) for _, s in both] == [pytest.approx(r["valid_f1"], abs=0.005) for r in slices["history"]]


def test_each_marks_f1_and_counts_are_kept_for_the_progress_record():
    from punct.engine.validation import LAST_BY_MARK, mark_f1

    mark_f1(["O", "COMMA", "PERIOD", "PERIOD"], ["COMMA", "COMMA", "PERIOD", "O"])
    assert LAST_BY_MARK["COMMA"] == {"f1": pytest.approx(66.67), "predicted": 2, "reference": 1}
    assert LAST_BY_MARK["PERIOD"] == {"f1": pytest.approx(66.67), "predicted": 1, "reference": 2}
    assert LAST_BY_MARK["QUESTION"] == {"f1": None, "predicted": 0, "reference": 0}


@pytest.mark.parametrize("select_by,ppl,f1,better", [
    ("ppl", 1.30, 10.0, True), ("ppl", 1.40, 90.0, False), ("ppl", 1.35, 50.0, False),  # a tie keeps the earlier
    ("f1", 1.10, 55.0, True), ("f1", 1.10, 50.0, False), ("f1", 9.00, 51.0, True),
    ("last", 9.00, 0.0, True),
])
def test_the_best_epoch_is_chosen_by_select_by(select_by, ppl, f1, better):
    from punct.engine.config import ValidationConfig
    from punct.engine.validation import improves

    prog = {"best_ppl": 1.35, "best_f1": 50.0}
    assert improves(ValidationConfig(select_by=select_by), prog, ppl, f1) is better


def test_the_first_epoch_by_f1_is_the_best_so_far():
    from punct.engine.config import ValidationConfig
    from punct.engine.validation import improves

    assert improves(ValidationConfig(select_by="f1"), {"best_ppl": float("inf")}, 2.0, 0.0)
