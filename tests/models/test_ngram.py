"""The hidden-event LM (punct.models.ngram): Kneser-Ney distributions that sum to one, and its
slot chain equal to the LM with posteriors equal to enumeration on short rows."""
import itertools
import math

import numpy as np

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
