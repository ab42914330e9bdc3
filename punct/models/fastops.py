"""Compiled CPU kernels, built on first use, with the tensor versions as fallback.

T-BRNN's additive attention spends most of its time on the elementwise
``tanh(P[b,j] + Q[b,t])`` over all query/memory pairs (128 x 200 x 201 x 512 values
per training batch). ``csrc/additive.cpp`` computes the scores and their gradients
in one fused pass instead of the tensor version's eight; it is compiled by
torch.utils.cpp_extension (g++ and ninja) for this machine's CPU the first time a
large enough attention runs, and cached under ``~/.cache/punct/ext/`` (about a
minute, once). Without a compiler, or with ``PUNCT_NO_EXT=1``, everything runs on
the tensor version, with the same results up to float rounding.
"""
from __future__ import annotations

import hashlib
import logging
import os
import platform
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("csrc") / "additive.cpp"
_lock = threading.Lock()
_state: dict[str, Any] = {}


def _cpu_tag() -> str:
    """What the -march=native build depends on: the source, the CPU's flags, torch's version."""
    import torch

    flags = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = line
                break
    except OSError:
        flags = platform.processor()
    h = hashlib.sha1(SOURCE.read_bytes() + flags.encode() + torch.__version__.encode()).hexdigest()
    return h[:12]


def additive_ext():
    """The compiled module, or None (no compiler, PUNCT_NO_EXT=1, or the build failed once)."""
    if os.environ.get("PUNCT_NO_EXT", "") not in ("", "0"):
        return None
    with _lock:
        if "additive" not in _state:
            _state["additive"] = None
            try:
                from torch.utils.cpp_extension import load

                name = f"punct_additive_{_cpu_tag()}"
                build = Path(os.environ.get("PUNCT_EXT_DIR", Path.home() / ".cache" / "punct" / "ext")) / name
                build.mkdir(parents=True, exist_ok=True)
                _state["additive"] = load(name=name, sources=[str(SOURCE)], build_directory=str(build),
                                          extra_cflags=["-O3", "-march=native", "-ffast-math", "-fopenmp-simd"],
                                          verbose=False)
            except Exception as e:  # no compiler, no ninja, a failed build: the tensor version serves
                log.warning("compiled attention kernel unavailable (%s); using the tensor version",
                            str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__)
        return _state["additive"]
