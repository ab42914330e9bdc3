"""Che et al.'s acoustic models: the Pause formula, the PPE context, and both falling back
(no boundary) where acoustic evidence is missing."""
import math

import pytest
import torch

from punct.models import build_model
from punct.models.acoustic import boundary_logits, pause_probability


@pytest.mark.parametrize("p", [0.0, 0.03, 0.2747, 0.45, 1.0, 2.0])
def test_pause_formula(p):
    expected = (1 - math.exp(-4 * p)) / (1 + math.exp(-4 * p))
    assert float(pause_probability(torch.tensor(p))) == pytest.approx(expected, abs=1e-6)


def test_pause_formula_landmarks():
    # 0 s: no boundary; ln(3)/4 = 0.2747 s: even odds; Earnings-22 median pauses: .45 s before a period, .03 before a comma
    pa = pause_probability(torch.tensor([0.0, math.log(3) / 4, 0.45, 0.03])).tolist()
    assert pa[0] == 0.0 and pa[1] == pytest.approx(0.5) and pa[2] > 0.7 and pa[3] < 0.06
    assert float(pause_probability(torch.tensor(-0.5))) == 0.0  # overlapping words: no pause


def test_pause_model_outputs_period_or_o_and_ignores_missing_words():
    m = build_model("che_pause", {"feature_names": ["pause_after"]}, 10)
    feats = torch.tensor([[[0.0], [0.6], [1.5], [0.9]]])
    missing = torch.tensor([[False, False, True, False]])
    probs = torch.softmax(m(torch.ones(1, 4, dtype=torch.long), torch.ones(1, 4, dtype=torch.bool), feats, missing), -1)
    pa = pause_probability(feats[0, :, 0])
    assert probs[0, :, 2].tolist() == pytest.approx([max(1e-6, pa[0].item()), pa[1].item(), 1e-6, pa[3].item()], abs=1e-5)
    assert probs[0, :, 1].max() < 1e-10 and probs[0, :, 3].max() < 1e-10  # never a comma or question mark
    assert probs[0].argmax(-1).tolist() == [0, 2, 0, 2]  # the missing word: no boundary, whatever its pause said
    with pytest.raises(ValueError, match="pause_after"):
        build_model("che_pause", {"feature_names": ["duration"]}, 10)


def test_boundary_logits_are_finite():
    out = boundary_logits(torch.tensor([0.0, 1.0]))
    assert torch.isfinite(out).all()


def ppe(**kw):
    args = {"feature_names": ["pause_after", "pitch_mean", "energy_mean", "x"], "hidden": [4]}
    args.update(kw)
    return build_model("che_ppe", args, 10)


def test_ppe_has_25_inputs_over_8_words():
    m = ppe()
    assert m.n_inputs == 25  # 8 words x (pause, pitch, energy) + the boundary word's missing flag


def test_ppe_context_is_words_t_minus_3_to_t_plus_4():
    m = ppe()
    T = 10
    f = torch.zeros(1, T, 4)
    f[0, :, 0] = torch.arange(1, T + 1, dtype=torch.float)  # pause of word t = t + 1
    f[0, :, 1] = 100 + torch.arange(1, T + 1, dtype=torch.float)
    missing = torch.zeros(1, T, dtype=torch.bool)
    missing[0, 6] = True
    x = m.context(f, missing)
    assert x.shape == (1, T, 25)
    # t = 4: words 1..8 -> pauses 2..9, word-major (pause, pitch, energy) triples
    assert x[0, 4, 0:24:3].tolist() == [2, 3, 4, 5, 6, 0, 8, 9]  # word 6 is missing: zeros
    assert x[0, 4, 1:24:3].tolist() == [102, 103, 104, 105, 106, 0, 108, 109]
    assert x[0, 0, 0:24:3].tolist() == [0, 0, 0, 1, 2, 3, 4, 5]  # before the start: zeros
    assert x[0, 6, 24] == 1.0 and x[0, 4, 24] == 0.0  # the boundary word's missing flag


def test_ppe_missing_boundary_word_gets_no_boundary_and_garbage_is_ignored():
    torch.manual_seed(0)
    m = ppe().eval()
    f = torch.randn(2, 12, 4)
    missing = torch.rand(2, 12) < 0.3
    ids = torch.ones(2, 12, dtype=torch.long)
    mask = torch.ones(2, 12, dtype=torch.bool)
    a = m(ids, mask, f, missing)
    g = f.clone()
    g[missing] = 1e6  # whatever the missing words' rows hold
    b = m(ids, mask, g, missing)
    assert torch.equal(a, b)
    p = torch.softmax(a, -1)[..., 2]
    assert (p[missing] < 1e-5).all()
