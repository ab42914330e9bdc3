"""punct.engine.loss: the summed training loss (weighted by mark, with a case head, against a
model's own sequence loss), targets mapped to a model's classes, word dropout drawn alike by
every run of a step, the forward pass's precision (the mark weights as a config: test_config.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from punct.engine import loss
from punct.engine.config import TrainConfig
from punct.errors import PunctError
from punct.models import UNK_ID


class Fixed(torch.nn.Module):
    """Logits given at construction, whatever the input."""

    def __init__(self, logits):
        super().__init__()
        self.logits = torch.nn.Parameter(logits)

    def forward(self, ids, mask):
        return self.logits


def test_the_loss_is_the_summed_cross_entropy_of_the_words_with_a_target():
    torch.manual_seed(0)
    logits = torch.randn(1, 3, 4)
    y = torch.tensor([[1, -100, 3]])
    kw = {"ids": torch.zeros(1, 3, dtype=torch.long), "mask": torch.ones(1, 3, dtype=torch.bool)}
    got = loss.loss_sum_of(Fixed(logits), kw, y)
    want = F.cross_entropy(logits[0, [0, 2]], torch.tensor([1, 3]), reduction="sum")
    assert torch.allclose(got, want)
    w = torch.tensor([1.0, 1.0, 1.0, 4.0])
    weighed = loss.loss_sum_of(Fixed(logits), kw, y, label_weights=w)
    each = F.cross_entropy(logits[0, [0, 2]], torch.tensor([1, 3]), reduction="none")
    assert torch.allclose(weighed, each[0] + 4 * each[1])


def test_mark_weights_cannot_weigh_a_models_own_sequence_loss():
    class Crf(Fixed):
        def training_loss(self, y, ids, mask):
            return self.logits.sum()

    m = Crf(torch.zeros(1, 2, 4))
    kw = {"ids": torch.zeros(1, 2, dtype=torch.long), "mask": torch.ones(1, 2, dtype=torch.bool)}
    assert loss.loss_sum_of(m, kw, torch.tensor([[0, 1]])).item() == 0.0  # its own loss
    with pytest.raises(PunctError, match="trains with its own sequence loss: mark_weights cannot weigh it"):
        loss.loss_sum_of(m, kw, torch.tensor([[0, 1]]), label_weights=torch.ones(4))


def test_targets_are_mapped_to_the_models_classes_and_no_target_stays():
    class TwoClass(torch.nn.Module):
        target_map = ["O", "PERIOD", "PERIOD", "PERIOD"]  # a boundary model: every mark ends a sentence

    y = torch.tensor([[0, 1, 3, -100]])
    assert loss.map_targets(TwoClass(), y).tolist() == [[0, 2, 2, -100]]
    assert loss.map_targets(torch.nn.Linear(1, 1), y) is y


def test_word_dropout_makes_words_unknown_and_leaves_padding():
    kw = {"ids": torch.tensor([[5, 6, 7, 0]]), "mask": torch.tensor([[True, True, True, False]])}
    out = loss.drop_words(kw, 0.5, np.array([[0.1, 0.9, 0.4, 0.0, 0.0]]))
    assert out["ids"].tolist() == [[UNK_ID, 6, UNK_ID, 0]] and kw["ids"].tolist() == [[5, 6, 7, 0]]


def test_word_dropout_draws_once_per_step_and_splits_the_draw_between_ranks():
    cfg = TrainConfig(word_dropout=0.3, seed=4)
    assert loss.word_dropout_of(TrainConfig(), 0, 0, 4, 8, 0, 1) is None
    kw = {"ids": torch.arange(10, 74).reshape(8, 8), "mask": torch.ones(8, 8, dtype=torch.bool)}
    whole = loss.word_dropout_of(cfg, 1, 2, 8, 8, 0, 1)(kw)["ids"]
    assert torch.equal(whole, loss.word_dropout_of(cfg, 1, 2, 8, 8, 0, 1)(kw)["ids"])  # the same draw again
    halves = [loss.word_dropout_of(cfg, 1, 2, 8, 8, r, 2)({k: v[4 * r:4 * r + 4] for k, v in kw.items()})["ids"]
              for r in (0, 1)]
    assert torch.equal(torch.cat(halves), whole)
    assert not torch.equal(loss.word_dropout_of(cfg, 1, 3, 8, 8, 0, 1)(kw)["ids"], whole)  # another step


def test_precision_and_device():
    assert loss.device_of(torch.nn.Linear(2, 2)) == "cpu" and loss.device_of(torch.nn.ReLU()) == "cpu"
    with loss.autocast("bf16"):
        assert torch.is_autocast_enabled("cpu")
    with loss.autocast("fp32"):
        assert not torch.is_autocast_enabled("cpu")
    assert loss.Distill.of(TrainConfig()) is None


def test_a_second_stage_learns_its_marks_from_soft_labels_with_case_and_leaves_stage_ones_case_alone():
    """A two-stage model passes its fixed stage one's case head through (case_head, no
    case_weight): a teacher's case columns add no case loss, its mark columns the KL term."""
    from punct.engine.soft_labels import SoftLayout

    class PassesCase(Fixed):
        case_head = True

        def forward(self, ids, mask, return_case=False):
            return (self.logits, torch.zeros(*self.logits.shape[:2], 4)) if return_case else self.logits

    torch.manual_seed(0)
    logits = torch.randn(1, 3, 4)
    y = torch.tensor([[1, 0, 3]])
    kw = {"ids": torch.zeros(1, 3, dtype=torch.long), "mask": torch.ones(1, 3, dtype=torch.bool)}
    soft = torch.softmax(torch.randn(1, 3, SoftLayout(True).width), -1)
    distill = loss.Distill(0.7, 1.0, False)
    got = loss.loss_sum_of(PassesCase(logits), dict(kw, soft=soft), y, distill=distill)
    assert got.item() > 0  # the marks' loss, the same as a model without a case head gets
    assert torch.allclose(got, loss.loss_sum_of(Fixed(logits), dict(kw, soft=soft[..., :4]), y, distill=distill))
