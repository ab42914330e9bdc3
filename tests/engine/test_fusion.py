"""punct.engine.fusion: the joint decision applied to the utterances of a data directory (words,
times and speakers kept), the grid of the tuner, and the tuner choosing on hand-made posteriors
(the decision itself: tests/models/test_joint.py; on trained models: tests/bin/test_joint_tune.py)."""
from __future__ import annotations

import numpy as np
import pytest

from punct.data.datadir import write_datadir
from punct.engine import fusion
from punct.errors import PunctError
from punct.models.joint import JointConfig, joint_labels
from punct.text.words import Utterance, Word

# lexical posteriors [O, COMMA, PERIOD, QUESTION] and the acoustic boundary probability of 6 words
LEX = np.array([[0.7, 0.2, 0.1, 0.0], [0.2, 0.1, 0.7, 0.0], [0.6, 0.3, 0.1, 0.0],
                [0.5, 0.1, 0.1, 0.3], [0.8, 0.1, 0.1, 0.0], [0.3, 0.1, 0.6, 0.0]])
PA = np.array([0.0, 0.9, 0.1, 0.95, 0.0, 0.8])
AC = np.stack([1 - PA, np.zeros(6), PA, np.zeros(6)], 1)


def posteriors(missing=None) -> fusion.Posteriors:
    words = [Word(f"w{i}", start=0.5 * i, end=0.5 * i + 0.4) for i in range(6)]
    utts = [Utterance("a", words[:2], speaker="s1"), Utterance("b", words[2:], speaker="s2")]
    miss = None if missing is None else [missing[:2], missing[2:]]
    return fusion.Posteriors(utts, [LEX[:2], LEX[2:]], [AC[:2], AC[2:]], miss)


def test_decide_labels_each_utterance_as_the_joint_decision_and_keeps_its_words():
    cfg = JointConfig(expected_length=3.0)
    out = fusion.decide(posteriors(), cfg, 1)
    assert [u.id for u in out] == ["a", "b"] and [u.speaker for u in out] == ["s1", "s2"]
    assert [w.start for u in out for w in u.words] == [0.5 * i for i in range(6)]
    assert [u.labels for u in out] == [joint_labels(LEX[:2], AC[:2], None, cfg, 1),
                                       joint_labels(LEX[2:], AC[2:], None, cfg, 1)]
    assert out[0].labels[1] == "PERIOD" and out[1].labels[1] == "QUESTION"


def test_a_word_without_acoustic_evidence_takes_the_lexical_decision():
    missing = np.array([False, False, False, True, False, False])
    out = fusion.decide(posteriors(missing), JointConfig(expected_length=3.0), 1)
    assert out[1].labels[1] == "O"  # the lexical argmax, whatever the pause says


def test_the_grid_is_every_combination_and_a_key_without_values_keeps_its_own():
    cfg = JointConfig(grid={"hard_weight": [0.1, 0.2], "min_acoustic": [0.0, 0.05, 0.1]})
    grid = fusion._grid(cfg, fusion.STAGE1_KEYS)
    assert len(grid) == 6 and all(g["hard_offset"] == cfg.hard_offset for g in grid)
    pairs = {(g["hard_weight"], g["min_acoustic"]) for g in grid}
    assert pairs == {(w, m) for w in (0.1, 0.2) for m in (0.0, 0.05, 0.1)}


def test_tune_estimates_the_length_and_picks_the_best_setting(tmp_path, monkeypatch):
    marks = [["O", "PERIOD"], ["O", "QUESTION", "O", "PERIOD"]]
    utts = [Utterance(u, [Word(f"w{i}", lab) for i, lab in enumerate(m)]) for u, m in zip("ab", marks)]
    write_datadir(tmp_path / "dev", utts)
    write_datadir(tmp_path / "train", utts)
    monkeypatch.setattr(fusion, "posteriors_of", lambda lex, ac, d: posteriors())
    cfg = JointConfig(grid={"hard_offset": [0.0, 0.7], "soft_threshold": [0.4, 0.6]})
    chosen, rows = fusion.tune("lex.pt", "ac.pt", tmp_path / "dev", tmp_path / "train", cfg)
    assert chosen.expected_length == 2.0  # two sentences of 2 words each, in the training labels
    assert [r["stage"] for r in rows] == [1, 2, 1, 1, 2, 2] and rows[0]["configured"] and rows[1]["configured"]
    best1 = max((r for r in rows[2:4]), key=lambda r: r["objective"])
    assert chosen.hard_offset == best1["hard_offset"] and rows[-1]["overall_f1"] >= 0


def test_stage_2_needs_an_expected_length_and_tuning_needs_labels(tmp_path):
    with pytest.raises(PunctError, match="stage 2 needs expected_length"):
        fusion.joint_decode("lex.pt", "ac.pt", tmp_path, JointConfig(), 2)
    (tmp_path / "dev").mkdir()
    with pytest.raises(PunctError, match="the tuning set needs reference labels"):
        fusion.tune("lex.pt", "ac.pt", tmp_path / "dev", tmp_path, JointConfig())
