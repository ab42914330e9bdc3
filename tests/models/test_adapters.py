"""punct.models.adapters: low-rank adapters on a tiny random MPNet merged into the encoder for
decoding, the projections they adapt, a module saved without its frozen part (the accurate
tier trained and resumed with them: tests/engine/test_carry.py)."""
from __future__ import annotations

import pytest
import torch


def test_merged_adapters_decode_as_the_adapted_encoder(tiny_mpnet):
    from punct.models import build_model
    from punct.models.adapters import merge_lora

    torch.manual_seed(0)
    m = build_model("transformer_tagger", {"encoder": "all-mpnet-base-v2", "pretrained": False, "adapter": "lora",
                                           "lora_rank": 2, "max_length": 16, "overlap": 4}, 43)
    for name, p in m.named_parameters():
        if "lora_B" in name:
            torch.nn.init.normal_(p)  # B starts at zero: give the adapters something to add
    m.eval()
    pieces = torch.randint(4, 43, (2, 30))
    ones = torch.ones(2, 30, dtype=torch.bool)
    last = torch.arange(30).repeat(2, 1)
    before = m(pieces, ones, last, ones)
    assert merge_lora(m) == 2 * 6
    assert not any("lora_" in n for n, _ in m.named_parameters())
    torch.testing.assert_close(m(pieces, ones, last, ones), before, atol=1e-5, rtol=1e-4)


def test_target_pattern_names_the_projections_of_the_top_layers():
    import re

    from punct.models.adapters import target_pattern

    p = target_pattern("mpnet", 4, 2, ["attention"])
    assert re.fullmatch(p, "encoder.layer.3.attention.attn.q") and re.fullmatch(p, "encoder.layer.2.attention.attn.o")
    assert not re.fullmatch(p, "encoder.layer.1.attention.attn.q")  # below the top two
    assert not re.fullmatch(p, "encoder.layer.3.intermediate.dense")  # a feed-forward projection
    b = target_pattern("bert", 2, 0, ["ffn"])
    assert re.fullmatch(b, "encoder.layer.0.output.dense") and re.fullmatch(b, "encoder.layer.1.intermediate.dense")
    assert not re.fullmatch(b, "encoder.layer.0.attention.output.dense")  # attention's output, not the ffn's


@pytest.mark.parametrize("family,targets,message", [("gpt", ["ffn"], "no adapter targets for encoder family 'gpt'"),
                                                    ("mpnet", [], "lora_targets must be a non-empty list"),
                                                    ("mpnet", ["mlp"], "lora_targets must be a non-empty list")])
def test_target_pattern_refuses_unknown_families_and_targets(family, targets, message):
    from punct.models.adapters import target_pattern

    with pytest.raises(ValueError, match=message):
        target_pattern(family, 2, 0, targets)


def test_the_trained_part_alone_is_saved_and_loads_over_the_frozen_rest():
    from punct.models.adapters import frozen_keys, trained_part_only

    m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 2))
    m[1].register_parameter("lora_A", torch.nn.Parameter(torch.ones(2)))
    frozen = frozen_keys(m)
    assert frozen == {"0.weight", "0.bias", "1.weight", "1.bias"}
    trained_part_only(m, {"0.weight", "0.bias"})
    sd = m.state_dict()
    assert set(sd) == {"1.weight", "1.bias", "1.lora_A"}
    first = m[0].weight.detach().clone()
    m.load_state_dict({k: torch.zeros_like(v) for k, v in sd.items()})  # no entry of the frozen part: kept
    assert torch.equal(m[0].weight, first) and torch.equal(m[1].lora_A, torch.zeros(2))
