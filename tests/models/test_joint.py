"""The joint decision of Che et al. (2016) on hand-made posteriors, checked by hand."""
import numpy as np
import pytest

from punct.models.joint import (JointConfig, expected_sentence_length, hard_boundaries, joint_labels, length_adjusted,
                                soft_boundaries)

# lexical posteriors [O, COMMA, PERIOD, QUESTION] and acoustic boundary probabilities of 12 words
LEX = np.array([
    [0.1, 0.1, 0.8, 0.0],   # 0  P_l .8, P_a 0: no pause, so no hard boundary (P_a <= .05)
    [0.5, 0.1, 0.1, 0.3],   # 1  P_l .4, P_a .9: 1 - .4 = .6 < .25 * .9 + .7 = .925: hard; QUESTION > PERIOD
    [0.3, 0.6, 0.1, 0.0],   # 2  P_l .1, P_a .5: .9 < .825 fails; COMMA > O
    [0.7, 0.1, 0.2, 0.0],   # 3  P_l .2, P_a .06: .8 < .715 fails
    [0.2, 0.1, 0.6, 0.1],   # 4  missing: the lexical decision (argmax PERIOD): hard
    [0.6, 0.3, 0.1, 0.0],   # 5  missing: the lexical decision (argmax O), whatever P_a says
    [0.4, 0.1, 0.5, 0.0],   # 6  d = 2: odds 1 * (2/4)^3 -> .111
    [0.5, 0.1, 0.4, 0.0],   # 7  d = 3: (.4/.6) * 27/64 -> .2195
    [0.55, 0.1, 0.35, 0.0],  # 8  d = 4 = L: unchanged .35
    [0.6, 0.1, 0.3, 0.0],   # 9  d = 5: (.3/.7) * 125/64 -> .4557
    [0.7, 0.0, 0.3, 0.0],   # 10 d = 6: (.3/.7) * 216/64 -> .5912 > .5: soft boundary, PERIOD
    [0.2, 0.0, 0.8, 0.0],   # 11 d = 1: (.8/.2) / 64 -> .0588: held back right after a boundary
])
PA = np.array([0.0, 0.9, 0.5, 0.06, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
MISSING = np.zeros(12, bool)
MISSING[[4, 5]] = True
AC = np.stack([1 - PA, np.zeros(12), PA, np.zeros(12)], 1)  # an acoustic model's posteriors: P_a = 1 - P(O)
CFG = JointConfig(expected_length=4.0)


def test_che_defaults():
    c = JointConfig()
    assert (c.hard_weight, c.hard_offset, c.min_acoustic, c.length_lambda) == (0.25, 0.7, 0.05, 3.0)


def test_stage1_hard_boundaries():
    p_lex = LEX[:, 2] + LEX[:, 3]
    hard = hard_boundaries(p_lex, PA, MISSING, CFG, lexical_end=LEX.argmax(1) >= 2)
    assert np.flatnonzero(hard).tolist() == [1, 4]
    # without the missing flags, word 5's P_a = 1 would confirm its weak lexical boundary (.9 < .95)
    assert np.flatnonzero(hard_boundaries(p_lex, PA, None, CFG)).tolist() == [1, 5]


def test_length_adjustment_by_hand():
    assert length_adjusted(0.35, 4, 4.0, 3.0) == pytest.approx(0.35)
    assert length_adjusted(0.3, 6, 4.0, 3.0) == pytest.approx(0.3 * 3.375 / (0.3 * 3.375 + 0.7))
    assert length_adjusted(0.8, 1, 4.0, 3.0) == pytest.approx(0.8 / 64 / (0.8 / 64 + 0.2))
    assert length_adjusted(0.8, 1, 4.0, 0.0) == 0.8  # lambda 0: the lexical posterior as it is


def test_stage2_soft_boundaries_between_hard_ones():
    hard = np.zeros(12, bool)
    hard[[1, 4]] = True
    soft = soft_boundaries(LEX[:, 2] + LEX[:, 3], hard, CFG)
    assert np.flatnonzero(soft).tolist() == [10]


def test_joint_labels_both_stages():
    s1 = joint_labels(LEX, AC, MISSING, CFG, stage=1)
    assert s1 == ["O", "QUESTION", "COMMA", "O", "PERIOD", "O", "O", "O", "O", "O", "O", "O"]
    s2 = joint_labels(LEX, AC, MISSING, CFG, stage=2)
    assert s2 == s1[:10] + ["PERIOD", "O"]


def test_all_words_missing_is_the_lexical_decision():
    lab = joint_labels(LEX, AC, np.ones(12, bool), CFG, stage=1)
    best = ["O", "COMMA", "PERIOD", "QUESTION"]
    assert lab == [best[i] if i >= 2 else best[int(LEX[k, 1] > LEX[k, 0])] for k, i in enumerate(LEX.argmax(1))]


def test_stage2_needs_the_expected_length_and_shapes_must_match():
    with pytest.raises(ValueError, match="expected_length"):
        joint_labels(LEX, AC, MISSING, JointConfig(), stage=2)
    with pytest.raises(ValueError, match="do not match"):
        joint_labels(LEX, AC[:5], MISSING, CFG, stage=1)
    with pytest.raises(ValueError, match="grid keys"):
        JointConfig(grid={"lambda": [1]})


def test_expected_sentence_length():
    assert expected_sentence_length([["O", "PERIOD", "O"], ["O", "O", "QUESTION", "COMMA", "O"]]) == 4.0
    with pytest.raises(ValueError, match="no sentence ends"):
        expected_sentence_length([["O", "COMMA"]])
