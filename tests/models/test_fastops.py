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
