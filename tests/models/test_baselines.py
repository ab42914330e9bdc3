"""The hidden-event LM and the CRF against brute force on short rows."""
import itertools
import math

import numpy as np
import torch

from punct.text.labels import LABELS
from punct.models import EOS_ID, build_model
from punct.models.ngram import BOS_ID


def _streams(rng, n=30, T=25, V=12):
    out = []
    for _ in range(n):
        w = rng.integers(3, V, size=T)
        y = rng.choice(4, size=T, p=[0.6, 0.2, 0.15, 0.05])
        out.append((w, y))
    return out


def test_kneser_ney_distributions_sum_to_one():
    rng = np.random.default_rng(0)
    m = build_model("hidden_event_lm", {"order": 3}, 12)
    m.fit(_streams(rng))
    V = m.n_tokens
    for ctx in [(BOS_ID, 5), (5, 7), (5, m.mark_token(1)), (11, 11), (EOS_ID, 4)]:
        grams = np.array([[ctx[0], ctx[1], w] for w in range(V)], np.int64)
        assert math.isclose(np.exp(m.logprob(grams)).sum(), 1.0, rel_tol=1e-9), ctx


def test_slot_chain_equals_the_lm_and_posteriors_equal_enumeration():
    rng = np.random.default_rng(1)
    m = build_model("hidden_event_lm", {"order": 3}, 12)
    m.fit(_streams(rng))
    words = np.array([4, 9, 3, 7], np.int64)
    s = m.slot_scores(words)
    joint = {}
    for seq in itertools.product(range(4), repeat=len(words)):
        # the LM's log probability of the token stream, minus the first word's (the same for every seq)
        toks = m.token_stream(words, np.array(seq))
        lp = sum(m.logprob(np.array([toks[i - 2 : i + 1]]))[0] for i in range(3, len(toks)))
        chain = sum(s[i, seq[i - 1] if i else 0, seq[i]] for i in range(len(words)))
        assert math.isclose(lp, chain, rel_tol=1e-9, abs_tol=1e-9), seq
        joint[seq] = lp
    z = np.logaddexp.reduce(list(joint.values()))
    post = m.posteriors(words)
    for i in range(len(words)):
        for b in range(4):
            want = np.logaddexp.reduce([v for k, v in joint.items() if k[i] == b]) - z
            assert math.isclose(post[i, b], want, abs_tol=1e-9)


@torch.no_grad()
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
