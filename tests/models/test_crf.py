"""The linear-chain CRF (punct.models.crf): its likelihood and marginals against enumeration of
every label sequence of short rows."""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from punct.models import build_model
from punct.text.labels import LABELS


def _crf_brute(m, ids, y_obs):
    em = m.emissions(ids[None], torch.ones(1, len(ids), dtype=torch.bool))[0].double()
    A, st, en = m.trans.double(), m.start.double(), m.end.double()
    scores = {}
    for seq in itertools.product(range(4), repeat=len(ids)):
        sc = st[seq[0]] + en[seq[-1]] + sum(em[t, seq[t]] for t in range(len(ids)))
        sc = sc + sum(A[seq[t - 1], seq[t]] for t in range(1, len(ids)))
        scores[seq] = float(sc)
    z = np.logaddexp.reduce(list(scores.values()))
    ok = [v for k, v in scores.items() if all(o < 0 or o == k[t] for t, o in enumerate(y_obs))]
    marg = np.array([[np.logaddexp.reduce([v for k, v in scores.items() if k[t] == b]) - z for b in range(4)]
                     for t in range(len(ids))])
    return z - np.logaddexp.reduce(ok), marg


def test_crf_likelihood_and_marginals_equal_enumeration():
    torch.manual_seed(0)
    m = build_model("crf", {"buckets": 257}, 20)
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.5)
    ids = torch.tensor([5, 9, 3, 17])
    y = torch.tensor([1, -100, 0, 2])  # one unobserved slot: marginalised
    nll_want, marg_want = _crf_brute(m, ids, y.tolist())
    nll = m.training_loss(y[None], ids[None], torch.ones(1, 4, dtype=torch.bool))
    assert math.isclose(float(nll.detach()), nll_want, rel_tol=1e-4)
    # padding after a shorter row changes nothing
    ids2 = torch.stack([torch.cat([ids, torch.tensor([7, 7])]), torch.tensor([4, 4, 4, 4, 4, 4])])
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[0, 4:] = False
    with torch.no_grad():
        marg = m(ids2, mask)[0, :4].double().numpy()
    assert np.allclose(marg, marg_want, atol=1e-4)
    assert len(LABELS) == marg.shape[1]
