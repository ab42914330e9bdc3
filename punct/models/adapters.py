"""Low-rank adapters (LoRA, Hu et al. 2021) on a packaged encoder, with peft.

``add_lora(encoder, family, rank, alpha, dropout, layers, targets)`` freezes every weight
of the encoder and adds a trained pair ``B A`` (rank ``rank``, scaled by ``alpha / rank``)
beside the chosen linear projections of the top ``layers`` transformer layers (0: all):
``attention`` (query, key, value and output of self-attention) and ``ffn`` (the two
feed-forward projections). peft's ``inject_adapter_in_model`` puts them in place without
wrapping the model, so the tagger keeps its own forward, windows and heads.

``frozen_keys(module)`` names the state-dict entries of the frozen encoder;
``trained_part_only(module, keys)`` makes the module save without them and load without
them: they come from the published encoder file (checked against its sha256), so a model
file holds only what training changed (a few MB, small enough for git) and every
checkpoint of the engine (checkpoint.pt, best.pt, a second stage's copy of its stage one)
is that small too.

``merge_lora(module)`` folds every adapter into its base weight (``W + s B A``) for
decoding and export: the merged encoder costs what the plain one does.
"""
from __future__ import annotations

import re

import torch
from torch import nn

#: the linear projections of one transformer layer that ``targets`` names, per family
_TARGETS = {
    "mpnet": {"attention": r"attention\.attn\.(q|k|v|o)", "ffn": r"(intermediate|output)\.dense"},
    "bert": {"attention": r"attention\.(self\.(query|key|value)|output\.dense)", "ffn": r"(intermediate|output)\.dense"},
}
TARGETS = ("attention", "ffn")


def target_pattern(family: str, n_layers: int, layers: int, targets: list[str]) -> str:
    """peft's ``target_modules`` regular expression (a full match of module names) for the
    projections ``targets`` of the top ``layers`` of ``n_layers`` layers (0: all)."""
    if family not in _TARGETS:
        raise ValueError(f"no adapter targets for encoder family {family!r}")
    bad = [t for t in targets if t not in TARGETS]
    if bad or not targets:
        raise ValueError(f"lora_targets must be a non-empty list of {' and '.join(TARGETS)}, got {targets!r}")
    first = n_layers - layers if layers else 0
    ids = "|".join(str(i) for i in range(first, n_layers))
    what = "|".join(_TARGETS[family][t] for t in targets)
    # 'output.dense' of a BERT layer is also the tail of 'attention.output.dense': the layer
    # index sits right before the projection's own path, so each name matches one rule
    return rf"encoder\.layer\.({ids})\.({what})"


def add_lora(encoder: nn.Module, family: str, rank: int, alpha: float, dropout: float, layers: int,
             targets: list[str]) -> int:
    """Freeze ``encoder`` and add LoRA pairs in place; returns the number of adapted projections."""
    from peft import LoraConfig, inject_adapter_in_model

    n_layers = encoder.config.num_hidden_layers
    if not 0 <= layers <= n_layers:
        raise ValueError(f"lora_layers must be in [0, {n_layers}], got {layers}")
    if rank < 1:
        raise ValueError(f"lora_rank must be >= 1, got {rank}")
    for p in encoder.parameters():
        p.requires_grad_(False)
    pattern = target_pattern(family, n_layers, layers, list(targets))
    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=pattern, bias="none")
    # peft's A is Kaiming-uniform and B zero: the adapted encoder starts as the published one.
    # Its draws come from torch's global generator, which the engine seeds before building
    inject_adapter_in_model(config, encoder)
    n = sum(1 for name, _ in encoder.named_modules() if re.fullmatch(pattern, name))
    for name, p in encoder.named_parameters():
        p.requires_grad_("lora_" in name)
    return n


def frozen_keys(module: nn.Module) -> set[str]:
    """The state-dict keys of ``module`` that are not adapter weights (its frozen encoder)."""
    return {k for k in module.state_dict(keep_vars=True) if "lora_" not in k}


def trained_part_only(module: nn.Module, keys: set[str]) -> None:
    """``module.state_dict()`` leaves out ``keys`` (relative to ``module``), and a state dict
    without them loads: the module keeps its own values of those keys."""

    def drop(mod, state_dict, prefix, local_metadata):
        for k in keys:
            state_dict.pop(prefix + k, None)

    def fill(mod, state_dict, prefix, *args):
        # torch hands the children the entries of this dict under their prefix after this
        # hook has run: what is filled in here reaches the encoder's layers, which copy it
        # onto themselves. A full state dict (a test's, an older file's) loads as it is
        if any(prefix + k in state_dict for k in keys):
            return
        current = dict(mod.named_parameters(remove_duplicate=False))
        current.update(mod.named_buffers(remove_duplicate=False))
        for k in keys:
            state_dict[prefix + k] = current[k].detach()

    module.register_state_dict_post_hook(drop)
    module._register_load_state_dict_pre_hook(fill, with_module=True)


@torch.no_grad()
def merge_lora(module: nn.Module) -> int:
    """Fold every LoRA pair of ``module`` into its base layer's weight and put the base layer
    back in its place (no adapter code left in the forward); returns how many were merged."""
    from peft.tuners.lora import LoraLayer

    found = [(name, m) for name, m in module.named_modules() if isinstance(m, LoraLayer)]
    for name, m in found:
        m.merge()
        parent, _, child = name.rpartition(".")
        setattr(module.get_submodule(parent) if parent else module, child, m.get_base_layer())
    return len(found)
