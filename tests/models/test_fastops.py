"""The compiled attention kernel gives the tensor version's scores and gradients."""
import pytest
import torch

from punct.models import fastops
from punct.models.layers import additive_scores


@pytest.fixture(scope="module")
def ext():
    e = fastops.additive_ext()
    if e is None:
        pytest.skip("no C++ compiler here: the tensor version serves (PUNCT_NO_EXT or a failed build)")
    return e


def test_compiled_scores_and_gradients_match_the_tensor_version(ext):
    torch.manual_seed(0)
    B, T, J, A = 3, 7, 8, 33  # A not a multiple of the vector width
    P, Q, w = torch.randn(B, J, A), torch.randn(B, T, A), torch.randn(A)
    G = torch.randn(B, T, J)
    G[:, :, 6:] = 0  # masked memory positions
    grads = []
    for compiled in (False, True):
        p, q, v = (x.clone().requires_grad_() for x in (P, Q, w))
        E = additive_scores(p, q, v, block=50, compiled=compiled)
        E.backward(G)
        grads.append((E.detach(), p.grad, q.grad, v.grad))
    for a, b in zip(*grads):
        assert torch.allclose(a, b, atol=1e-4, rtol=1e-4)
    direct = (w * torch.tanh(P.unsqueeze(1) + Q.unsqueeze(2))).sum(-1)
    assert torch.allclose(grads[1][0], direct, atol=1e-4)


def test_wrong_inputs_are_refused_not_misread(ext):
    with pytest.raises(RuntimeError, match="float32"):
        ext.scores_forward(torch.zeros(2, 3, 4, dtype=torch.float64), torch.zeros(2, 5, 4), torch.zeros(4))
    with pytest.raises(RuntimeError, match="agree"):
        ext.scores_forward(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6), torch.zeros(4))


def test_no_ext_environment_turns_it_off(monkeypatch):
    monkeypatch.setenv("PUNCT_NO_EXT", "1")
    assert fastops.additive_ext() is None


def test_bf16_inputs_are_scored_by_the_kernel_in_float32(ext):
    # precision: bf16 autocasts the projections: the kernel then scores them in float32, with
    # bf16 gradients back to the bf16 inputs, rather than the slow bf16 tensor version.
    torch.manual_seed(1)
    B, T, J, A = 2, 5, 6, 16
    P, Q, w = (torch.randn(*s).bfloat16() for s in ((B, J, A), (B, T, A), (A,)))
    p, q, v = (x.clone().requires_grad_() for x in (P, Q, w))
    E = additive_scores(p, q, v, compiled=True)
    assert E.dtype == torch.float32
    E.sum().backward()
    assert p.grad.dtype == q.grad.dtype == v.grad.dtype == torch.bfloat16
    direct = (w.float() * torch.tanh(P.float().unsqueeze(1) + Q.float().unsqueeze(2))).sum(-1)
    assert torch.allclose(E.detach(), direct, atol=1e-4)
    # chosen by size alone (compiled=None) once the attention is large
    calls = []
    orig = ext.scores_forward
    big = [torch.randn(*s).bfloat16() for s in ((8, 128, 128), (8, 128, 128), (128,))]
    import punct.models.layers as layers

    class Spy:
        def __getattr__(self, name):
            return getattr(ext, name)

        def scores_forward(self, *a):
            calls.append(a[0].dtype)
            return orig(*a)

    old = fastops._state["additive"]
    fastops._state["additive"] = Spy()
    try:
        additive_scores(*big)
    finally:
        fastops._state["additive"] = old
    assert 8 * 128 * 128 * 128 >= layers.EXT_MIN_VALUES and calls == [torch.float32]


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """additive_ext as in a new process, with an empty kernel folder and builds recorded."""
    monkeypatch.setattr(fastops, "_state", {})
    monkeypatch.setenv("PUNCT_EXT_DIR", str(tmp_path / "ext"))
    monkeypatch.delenv("PUNCT_NO_EXT", raising=False)
    builds = []
    monkeypatch.setattr(fastops, "_build", lambda name, built: builds.append(name) or "built")
    return builds


@pytest.fixture(scope="module")
def built_kernel(ext):
    return fastops.ext_dir() / f"punct_additive_{fastops._cpu_tag()}.so"


def test_a_built_kernel_is_imported_not_rebuilt(built_kernel, fresh):
    # another checkout (another source path, another venv path) finds it by its name alone
    import shutil

    fastops.ext_dir().mkdir()
    shutil.copy(built_kernel, fastops.ext_dir() / built_kernel.name)
    got = fastops.additive_ext()
    assert fresh == [] and got is not None and hasattr(got, "scores_forward")


def test_inference_never_builds_the_kernel(fresh):
    assert fastops.additive_ext(build=False) is None
    big = [torch.randn(*s) for s in ((8, 128, 128), (8, 128, 128), (128,))]
    with torch.no_grad():
        additive_scores(*big)
    assert fresh == []
    assert fastops.additive_ext() == "built" and fresh  # a training still builds it


def test_folders_of_killed_builds_are_removed_and_running_ones_kept(tmp_path):
    import os
    import time

    old, young, other = (tmp_path / n for n in ("k.build-a1", "k.build-b2", "j.build-c3"))
    for d in (old, young, other):
        d.mkdir()
        (d / "k.o").write_bytes(b"x")
    hour_ago = time.time() - 2 * fastops.STALE_BUILD_S
    os.utime(old, (hour_ago, hour_ago))
    os.utime(other, (hour_ago, hour_ago))
    assert fastops.remove_stale_builds(tmp_path, "k") == [old]
    assert not old.exists() and young.is_dir() and other.is_dir()
