"""Training on a GPU (punct.bin.train --device cuda): the device checked before the data is
read, the model moved there, bf16 matrix products. Everything a run writes stays the CPU's:
the weights are saved from CPU copies (punct.engine.train._Run.payload)."""
from __future__ import annotations

import dataclasses
import logging

import torch

from punct.engine.config import TrainConfig
from punct.errors import PunctError

log = logging.getLogger("punct.engine.train")


def check_device(device: str, world: int) -> None:
    """A one-line error for a device this run cannot train on (before the data is read)."""
    if device == "cpu":
        return
    if not device.startswith("cuda"):
        raise PunctError(f"unknown device {device!r} (cpu, cuda or cuda:N)")
    if not torch.cuda.is_available():
        raise PunctError(f"--device {device}: this torch sees no GPU (torch {torch.__version__}); train on the CPU")
    if world > 1:
        raise PunctError("--device cuda trains in one process (data-parallel runs are for the CPU)")


def on_device(cfg: TrainConfig, model: torch.nn.Module, device: str) -> TrainConfig:
    """Move ``model`` to ``device`` (a GPU: ``cuda`` or ``cuda:N``, passed by ``check_device``
    at the start of the run); the config it then trains with: bf16 matrix products there (what
    is learnt is the same config's, and so is its hash)."""
    model.to(device)
    torch.backends.cuda.matmul.allow_tf32 = True
    if cfg.precision == "fp32":
        log.info("device %s (%s): bf16 matrix products", device, torch.cuda.get_device_name(device))
        cfg = dataclasses.replace(cfg, precision="bf16")
    return cfg


def native_bf16() -> bool:
    """Whether oneDNN runs bfloat16 natively on this CPU (else autocast to bf16 is emulated)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False
