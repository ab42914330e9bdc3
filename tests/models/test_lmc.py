"""LMC (punct.models.lmc), Che et al.'s window classifier: the slot after word t reads exactly
the words of its window (t-k+1 .. t+m-k), positions outside the text are zero vectors, and a
slot outside its window is refused."""
from __future__ import annotations

import pytest
import torch

from punct.models import build_model
from punct.text.labels import LABELS


def lmc(**kw):
    torch.manual_seed(0)
    return build_model("lmc", dict({"window": 5, "slot": 3, "hidden": [6], "dropout": 0.0}, **kw), 4).eval()


def test_each_slot_reads_its_window_and_nothing_else():
    m = lmc()
    x = torch.randn(1, 9, 4)
    mask = torch.ones(1, 9, dtype=torch.bool)
    y = m(x, mask)
    assert y.shape == (1, 9, len(LABELS))
    changed = x.clone()
    changed[0, 4] += 1.0  # word 4 is in the windows of the slots after words 2 .. 6 (k=3: t-2 .. t+2)
    moved = [t for t in range(9) if not torch.allclose(y[0, t], m(changed, mask)[0, t])]
    assert moved == [2, 3, 4, 5, 6]


def test_positions_outside_the_text_are_zero_vectors():
    m = lmc()
    x = torch.randn(1, 3, 4)
    padded = torch.cat([torch.zeros(1, 2, 4), x, torch.zeros(1, 2, 4)], 1)
    inner = m(padded, torch.ones(1, 7, dtype=torch.bool))[0, 2:5]
    assert torch.allclose(m(x, torch.ones(1, 3, dtype=torch.bool))[0], inner, atol=1e-6)


def test_the_slot_is_the_kth_word_of_the_window():
    m = lmc(window=4, slot=1)  # the window is words t .. t+3: a change of word 0 moves slot 0 only
    x = torch.randn(1, 6, 4)
    changed = x.clone()
    changed[0, 0] += 1.0
    mask = torch.ones(1, 6, dtype=torch.bool)
    diff = (m(x, mask) - m(changed, mask)).abs().sum(-1)[0]
    assert diff[0] > 0 and (diff[1:] == 0).all()
    with pytest.raises(ValueError, match="slot must be in 1..window, got slot 6, window 5"):
        build_model("lmc", {"window": 5, "slot": 6, "hidden": [4]}, 4)
