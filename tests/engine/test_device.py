"""punct.engine.device: a device a run cannot train on is one line before the data is read;
on a GPU the config trains in bf16 (checked where the CPU can), and whether this CPU runs
bfloat16 natively."""
from __future__ import annotations

import pytest
import torch

from punct.engine.device import check_device, native_bf16, on_device
from punct.errors import PunctError


def test_the_cpu_passes_and_an_unknown_device_is_named():
    check_device("cpu", 1)
    check_device("cpu", 4)
    with pytest.raises(PunctError, match=r"unknown device 'tpu' \(cpu, cuda or cuda:N\)"):
        check_device("tpu", 1)


def test_a_gpu_that_is_not_there_or_data_parallel_on_one_is_refused():
    if torch.cuda.is_available():
        with pytest.raises(PunctError, match="trains in one process"):
            check_device("cuda", 2)
    else:
        with pytest.raises(PunctError, match="--device cuda:1: this torch sees no GPU"):
            check_device("cuda:1", 1)


def test_on_device_keeps_a_bf16_config_and_moves_the_model(tiny_cfg):
    cfg = tiny_cfg("precision=bf16")
    m = torch.nn.Linear(2, 2)
    assert on_device(cfg, m, "cpu") is cfg and m.weight.device.type == "cpu"


def test_native_bf16_is_a_yes_or_no(monkeypatch):
    assert native_bf16() in (True, False)

    def unsupported():
        raise RuntimeError("no oneDNN")

    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", unsupported)
    assert native_bf16() is False
