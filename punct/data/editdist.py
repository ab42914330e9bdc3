"""Edit-distance alignment of two integer sequences (word keys): ``align_ids(a, b)`` -> ops
``(op, i, j)``, -1 for the missing side; punct.data.transfer aligns words through it.

Costs: match 0, substitution and deletion ``W + 1``, insertion ``W``, ``W = min(n, m) + 1``;
the total ``W * errors + (n - matches)`` minimises the edit distance first, then keeps the
most matches (marks stay on identical words). Ties: the backtrace (from the end) prefers a
diagonal step, then a deletion, then an insertion, so in a run of unmatched words the
substitutions sit at its end and the extra words at its start (the mark after the run's
last reference word stays on its last hypothesis word).

Exact, fast and linear in memory: each DP row is computed with numpy (the insertion chain
as a running minimum), only the diagonals an upper bound of the cost allows (Ukkonen's
band), and Hirschberg's split keeps O(n + m + BASE_CELLS) memory (a split inside a run of
unmatched words may place that run differently, at the same cost). Two 20K-word calls with
15% word errors align in a few seconds (benchmarks/bench_transfer.py). With rapidfuzz,
``align_ids`` runs the DP only between the long runs of equal words it finds (33
Earnings-21 calls: 1.1 s of CPU instead of 13.5).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

MATCH = "match"
SUB = "sub"
INS = "ins"
DEL = "del"

#: A part of the problem is solved directly (band rows kept) below this many cells.
BASE_CELLS = 1 << 21

_INF = np.int64(1) << np.int64(60)



@dataclass(frozen=True)
class _Costs:
    ins: int
    dele: int
    sub: int


def _band(n: int, m: int, t: int) -> tuple[int, int]:
    """Diagonals k = j - i with |k| + |m - n - k| <= t (t >= |m - n|)."""
    d = m - n
    s = max(0, (t - abs(d)) // 2)
    return min(0, d) - s, max(0, d) + s


def _last_row(a: np.ndarray, b: np.ndarray, kmin: int, kmax: int, c: _Costs, keep: list | None = None) -> np.ndarray:
    """Row ``len(a)`` of the banded DP of ``a`` against ``b`` (INF outside the band).

    With ``keep`` a list, every row's band is appended to it as ``(lo, values)``.
    """
    n, m = len(a), len(b)
    jw = np.arange(m + 1, dtype=np.int64) * c.ins
    prev = np.full(m + 1, _INF, dtype=np.int64)
    cur = np.full(m + 1, _INF, dtype=np.int64)
    hi = min(m, kmax)
    prev[: hi + 1] = jw[: hi + 1]
    if keep is not None:
        keep.append((0, prev[: hi + 1].copy()))
    for i in range(1, n + 1):
        lo = max(0, i + kmin)
        hi = min(m, i + kmax)
        ai = a[i - 1]
        seg = cur[lo : hi + 1]
        np.add(prev[lo : hi + 1], c.dele, out=seg)
        jl = max(lo, 1)
        if jl <= hi:
            diag = prev[jl - 1 : hi] + c.sub
            np.subtract(diag, c.sub, out=diag, where=b[jl - 1 : hi] == ai)
            np.minimum(cur[jl : hi + 1], diag, out=cur[jl : hi + 1])
        t = seg - jw[lo : hi + 1]
        np.minimum.accumulate(t, out=t)
        np.add(t, jw[lo : hi + 1], out=seg)
        if lo > 0:
            cur[lo - 1] = _INF
        if hi < m:
            cur[hi + 1] = _INF
        if keep is not None:
            keep.append((lo, seg.copy()))
        prev, cur = cur, prev
    return prev


def _base(a: np.ndarray, b: np.ndarray, kmin: int, kmax: int, c: _Costs, i0: int, j0: int) -> tuple[int, list[tuple[str, int, int]]]:
    """Solve a small part with its band rows kept; return (cost, ops in order)."""
    rows: list[tuple[int, np.ndarray]] = []
    last = _last_row(a, b, kmin, kmax, c, keep=rows)
    n, m = len(a), len(b)
    al, bl = a.tolist(), b.tolist()

    def get(i: int, j: int) -> int:
        lo, r = rows[i]
        k = j - lo
        return int(r[k]) if 0 <= k < len(r) else int(_INF)

    ops: list[tuple[str, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        here = get(i, j)
        if i > 0 and j > 0:
            same = al[i - 1] == bl[j - 1]
            if get(i - 1, j - 1) + (0 if same else c.sub) == here:
                ops.append((MATCH if same else SUB, i0 + i - 1, j0 + j - 1))
                i -= 1
                j -= 1
                continue
        if i > 0 and get(i - 1, j) + c.dele == here:
            ops.append((DEL, i0 + i - 1, -1))
            i -= 1
            continue
        if j == 0 or get(i, j - 1) + c.ins != here:  # pragma: no cover - a broken invariant
            raise AssertionError("alignment backtrace lost its path")
        ops.append((INS, -1, j0 + j - 1))
        j -= 1
    ops.reverse()
    return int(last[m]), ops


def _certified(cost: int, t: int, c: _Costs) -> bool:
    """No path outside the band of width t can cost less than ``cost``."""
    return cost < c.ins * (t + 1)


def _solve(a: np.ndarray, b: np.ndarray, upper: int | None, c: _Costs, i0: int, j0: int, out: list,
           match_prefix: bool = True) -> None:
    """Append the ops of an optimal alignment of a to b (offsets i0, j0) to ``out``.

    ``upper`` is the exact optimal cost when known (it sets the band), else None.
    ``match_prefix=False``: the common prefix is left to the backtrace (see align_ids).
    """
    n, m = len(a), len(b)
    # A common suffix, then a common prefix, is matched off (an optimal alignment
    # matches them); the suffix first, as the backtrace also anchors at the end.
    k = min(n, m)
    neq = a[n - k :][::-1] != b[m - k :][::-1]
    s = int(np.argmax(neq)) if neq.any() else k
    neq = a[: k - s] != b[: k - s]
    p = (int(np.argmax(neq)) if neq.any() else k - s) if match_prefix else 0
    out.extend((MATCH, i0 + q, j0 + q) for q in range(p))
    a, b = a[p : n - s], b[p : m - s]
    i0, j0 = i0 + p, j0 + p
    n, m = len(a), len(b)
    suffix = [(MATCH, i0 + n + q, j0 + m + q) for q in range(s)]
    if n == 0 or m == 0:
        out.extend((INS, -1, j0 + q) for q in range(m))
        out.extend((DEL, i0 + q, -1) for q in range(n))
        out.extend(suffix)
        return
    if upper is None:
        t = abs(m - n) + 2 * max(16, min(n, m) // 16)
    else:
        t = upper // c.ins
    while True:
        kmin, kmax = _band(n, m, t)
        width = kmax - kmin + 1
        if n <= 1 or m <= 1 or (n + 1) * min(width, m + 1) <= BASE_CELLS:
            cost, ops = _base(a, b, kmin, kmax, c, i0, j0)
            if upper is None and not _certified(cost, t, c):
                t = cost // c.ins
                continue
            out.extend(ops)
            break
        mid = n // 2
        fwd = _last_row(a[:mid], b, kmin, kmax, c)
        bwd = _last_row(a[mid:][::-1], b[::-1], kmin, kmax, c)[::-1]
        tot = fwd + bwd
        col = int(np.argmin(tot))
        cost = int(tot[col])
        if upper is None and not _certified(cost, t, c):
            t = cost // c.ins
            continue
        _solve(a[:mid], b[:col], int(fwd[col]), c, i0, j0, out)
        _solve(a[mid:], b[col:], int(bwd[col]), c, i0 + mid, j0 + col, out)
        break
    out.extend(suffix)


def align_ids_dp(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
                 match_prefix: bool = True) -> list[tuple[str, int, int]]:
    """Align two integer sequences with the banded DP alone; ops as (op, i, j) with -1 for the missing side."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    w = min(len(a), len(b)) + 1
    c = _Costs(ins=w, dele=w + 1, sub=w + 1)
    out: list[tuple[str, int, int]] = []
    _solve(a, b, None, c, 0, 0, out, match_prefix)
    return out


#: Gaps up to this many DP cells are aligned in plain Python (``_small_dp``): numpy's cost
#: per row outweighs its speed on the few words between two anchors.
SMALL_CELLS = 1 << 14


def _small_dp(a: list[int], b: list[int]) -> list[tuple[str, int, int]]:
    """``align_ids_dp(a, b, match_prefix=False)`` on a small problem: the same costs, the
    same common suffix matched off, the same backtrace over the whole table (the band of
    the DP leaves out no optimal path, so the two agree op for op)."""
    n, m = len(a), len(b)
    s = 0
    while s < min(n, m) and a[n - 1 - s] == b[m - 1 - s]:
        s += 1
    suffix = [(MATCH, n - s + q, m - s + q) for q in range(s)]
    n, m = n - s, m - s
    if n == 0 or m == 0:
        return [(INS, -1, q) for q in range(m)] + [(DEL, q, -1) for q in range(n)] + suffix
    w = min(len(a), len(b)) + 1
    ins, dele, sub = w, w + 1, w + 1
    rows = [[j * ins for j in range(m + 1)]]
    for i in range(1, n + 1):
        prev, ai = rows[-1], a[i - 1]
        cur = [prev[0] + dele]
        for j in range(1, m + 1):
            d = prev[j - 1] + (0 if b[j - 1] == ai else sub)
            v = prev[j] + dele
            if v < d:
                d = v
            v = cur[j - 1] + ins
            cur.append(v if v < d else d)
        rows.append(cur)
    ops: list[tuple[str, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        here = rows[i][j]
        if i > 0 and j > 0:
            same = a[i - 1] == b[j - 1]
            if rows[i - 1][j - 1] + (0 if same else sub) == here:
                ops.append((MATCH if same else SUB, i - 1, j - 1))
                i -= 1
                j -= 1
                continue
        if i > 0 and rows[i - 1][j] + dele == here:
            ops.append((DEL, i - 1, -1))
            i -= 1
            continue
        ops.append((INS, -1, j - 1))
        j -= 1
    ops.reverse()
    return ops + suffix


#: Runs of at least ANCHOR_WORDS equal words in rapidfuzz's alignment anchor ``align_ids``,
#: less ANCHOR_MARGIN words at either end, which the DP of the gaps places (a repeated word
#: at a run's edge, ``the the``, is matched as the DP alone would match it).
ANCHOR_WORDS = 8
ANCHOR_MARGIN = 3
REPEAT_PERIOD = 16


def rapidfuzz_levenshtein():
    """rapidfuzz's Levenshtein module, or None when rapidfuzz is not installed."""
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:  # not installed: the DP does it all, about 40 times slower
        return None
    return Levenshtein


def align_ids(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> list[tuple[str, int, int]]:
    """Align two integer sequences; ops as (op, i, j) with -1 for the missing side.

    rapidfuzz's bit-parallel Levenshtein (unit costs, C++) finds the long runs of equal
    words; the words between them are aligned by the DP (the costs of the module
    docstring, its backtrace's tie rule, no common prefix matched off). The runs pin an
    alignment of minimal edit distance, so the distance is the DP's own; the placement
    could differ only where the DP over the whole would cross such a run. On the 33
    Earnings-21 calls of the four engines and of Kaldi's recognizer the result is, op for
    op, that of the DP solved in one piece (``align_ids_dp`` with no Hirschberg split and
    no common prefix matched off), which the split version itself misses in a few
    repeated words (``in in``, ``the the``) of 6-19 calls each. Without rapidfuzz the DP
    aligns the whole (about 12 times the CPU time).
    """
    lev = rapidfuzz_levenshtein()
    if lev is None:
        return align_ids_dp(a, b)
    a = [int(x) for x in a]
    b = [int(x) for x in b]
    out: list[tuple[str, int, int]] = []
    i0 = j0 = 0  # the start of the gap not yet aligned

    def gap(i1: int, j1: int) -> None:
        if i1 > i0 or j1 > j0:
            x, y = a[i0:i1], b[j0:j1]
            ops = _small_dp(x, y) if (len(x) + 1) * (len(y) + 1) <= SMALL_CELLS else align_ids_dp(x, y, False)
            out.extend((op, i0 + i if i >= 0 else -1, j0 + j if j >= 0 else -1) for op, i, j in ops)

    for tag, ra, rb, ha, hb in lev.opcodes(a, b):
        if tag != "equal" or rb - ra < max(ANCHOR_WORDS, 2 * ANCHOR_MARGIN + 1):
            continue
        # the run's edges go to the gaps, and so does any word that repeats a word up to
        # REPEAT_PERIOD before it (or after it, at the run's end): ``in the in the`` is
        # placed by the DP as a whole
        lo, hi = ra + ANCHOR_MARGIN, rb - ANCHOR_MARGIN
        while lo < hi and any(a[lo] == a[lo - p] for p in range(1, REPEAT_PERIOD + 1)):
            lo += 1
        while hi > lo and any(hi - 1 + p < len(a) and a[hi - 1] == a[hi - 1 + p] for p in range(1, REPEAT_PERIOD + 1)):
            hi -= 1
        if lo >= hi:
            continue
        gap(lo, ha + lo - ra)
        out.extend((MATCH, q, ha + q - ra) for q in range(lo, hi))
        i0, j0 = hi, ha + hi - ra
    gap(len(a), len(b))
    return out
