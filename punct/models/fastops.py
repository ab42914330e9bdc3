"""Compiled CPU kernels, built once per machine, with the tensor versions as fallback.

T-BRNN's additive attention spends most of its time on the elementwise
``tanh(P[b,j] + Q[b,t])`` over all query/memory pairs (128 x 200 x 201 x 512 values
per training batch). ``csrc/additive.cpp`` computes the scores and their gradients
in one fused pass instead of the tensor version's eight; torch.utils.cpp_extension
(g++ and ninja) compiles it for this machine's CPU into ``~/.cache/punct/ext/<name>.so``
(about a minute, once). The name hashes what the binary depends on (source, CPU flags,
torch version), not the paths of the source or of torch, so every checkout and venv shares
one build (torch's loader rebuilt it whenever another checkout had built it last).
Inference only uses a kernel built before: it would gain about a second per decode from
a minute of compiling. Without a compiler, or with ``PUNCT_NO_EXT=1``, everything runs on
the tensor version, with the same results up to float rounding.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import platform
import shutil
import tempfile
import time
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("csrc") / "additive.cpp"
_lock = threading.Lock()
_state: dict[str, Any] = {}
#: a build folder untouched this long belongs to a build that was killed (one takes a minute)
STALE_BUILD_S = 3600


@functools.lru_cache(maxsize=1)
def _cpu_tag() -> str:
    """What the -march=native build depends on: the source, the CPU's flags, torch's version
    (once a process: inference asks for an unbuilt kernel at every large batch)."""
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


def ext_dir() -> Path:
    """Where built kernels are kept (``PUNCT_EXT_DIR``, default ``~/.cache/punct/ext``)."""
    return Path(os.environ.get("PUNCT_EXT_DIR", Path.home() / ".cache" / "punct" / "ext"))


def additive_ext(build: bool = True):
    """The compiled module, or None (no compiler, PUNCT_NO_EXT=1, or the build failed once);
    ``build=False``: None as well when it has not been built on this machine yet."""
    if os.environ.get("PUNCT_NO_EXT", "") not in ("", "0"):
        return None
    with _lock:
        if "additive" not in _state:
            name = f"punct_additive_{_cpu_tag()}"
            built = ext_dir() / f"{name}.so"
            if not built.is_file() and not build:
                return None
            _state["additive"] = None
            try:
                _state["additive"] = _import(name, built) if built.is_file() else _build(name, built)
            except Exception as e:  # no compiler, no ninja, a failed build: the tensor version serves
                log.warning("compiled attention kernel unavailable (%s); using the tensor version",
                            str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__)
        return _state["additive"]


def _import(name: str, path: Path):
    """The extension module ``name`` from its shared library ``path`` (torch, whose libraries
    it links against, is already loaded: ``_cpu_tag`` imported it)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(name: str, built: Path):
    """Compile the kernel in a private folder and move its library to ``built`` (atomic:
    a concurrent process sees the whole file or none)."""
    from torch.utils.cpp_extension import load

    built.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_builds(built.parent, name)
    log.info("compiling the attention kernel into %s (about a minute, once per machine)", built)
    with tempfile.TemporaryDirectory(dir=built.parent, prefix=f"{name}.build-") as tmp:
        module = load(name=name, sources=[str(SOURCE)], build_directory=tmp,
                      extra_cflags=["-O3", "-march=native", "-ffast-math", "-fopenmp-simd"], verbose=False)
        os.replace(Path(tmp) / f"{name}.so", built)
    return module


def remove_stale_builds(folder: Path, name: str, max_age_s: float = STALE_BUILD_S) -> list[Path]:
    """Remove the private build folders of ``name`` in ``folder`` that a killed build left
    behind (untouched for ``max_age_s``; a running build's folder is younger); returns them."""
    now, gone = time.time(), []
    for d in folder.glob(f"{name}.build-*"):
        try:
            if d.is_dir() and now - d.stat().st_mtime > max_age_s:
                shutil.rmtree(d, ignore_errors=True)
                gone.append(d)
        except OSError:  # removed meanwhile by another process
            continue
    return gone
