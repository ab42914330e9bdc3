"""Edit-distance alignment of reference words to hypothesis words, and mark transfer.

``align(ref, hyp)`` aligns two word sequences (Levenshtein), matching words
case- and format-insensitively through a replaceable ``normalize`` function
(``normalize_word``: lower case, straight apostrophes, no quotes or marks at
the edges, no abbreviation dots). Clitics split off as tokens of their own
(``we 're``, ``do n't``, the IWSLT style) are joined to the word before them
for matching, so ``we 're`` matches ``we're`` at no cost.

``transfer_marks(ref, hyp)`` carries every reference mark onto the hypothesis
word aligned to its word; the mark of a deleted reference word goes onto the
nearest preceding hypothesis word (as Tilk and Alumäe 2015 did for their ASR
test set); when two marks land on one word the stronger wins
(``punct.labels.stronger``); a mark with no preceding hypothesis word is
dropped.

The algorithm, chosen to be exact, fast and linear in memory:

- Costs. Match 0, substitution and deletion ``W + 1``, insertion ``W``, with
  ``W = min(n, m) + 1``. The total is ``W * errors + (n - matches)``, so an
  alignment minimises the edit distance first and, among alignments with the
  same distance, has the most matches (marks stay on identical words); a
  substitution always beats a deletion plus an insertion. Ties left after that
  are broken the same way every time: the backtrace (from the end) prefers a
  diagonal step, then a deletion, then an insertion, so in a run of unmatched
  words the substitutions sit at its end, next to the following matched word,
  and the extra words at its start (the mark after the run's last reference
  word stays on the run's last hypothesis word). A Hirschberg split takes the
  leftmost best column; where a split falls inside such a run, the placement
  inside that one run may differ from the one-piece backtrace (same cost).
- Rows. A DP row is computed with numpy: first the vertical and diagonal steps
  ``E[j]``, then the horizontal (insertion) chain inside the row as a running
  minimum, ``D[j] = j*c + cummin_k(E[k] - k*c)`` (``np.minimum.accumulate``).
- Band (Ukkonen). A path through diagonal ``k = j - i`` costs at least
  ``c_ins * (|k| + |m - n - k|)``, so with an upper bound ``U`` of the optimum
  only the diagonals where that bound is at most ``U`` are computed. At the top
  a narrow band is tried first; its result is an upper bound, and when it cannot
  be certified optimal the band is widened to exactly what that bound allows.
- Memory (Hirschberg). Rows are computed forward to the middle reference word
  and backward from the end; the best split column cuts the problem in two whose
  optimal costs are then known exactly (so their bands are exact too). A part
  small enough (``BASE_CELLS`` band cells) is solved with its band rows kept and
  a backtrace. A common suffix and prefix are matched off first.

Memory is O(n + m + BASE_CELLS); time is about 2-3 passes over the band, which
for ASR output is a few thousand diagonals wide. Two 20K-word calls with 15%
word errors align in a few seconds (benchmarks/bench_transfer.py).

With rapidfuzz installed, ``align_ids`` runs this DP only between the long runs of
equal words that rapidfuzz's edit operations find (the alignment of the 33 Earnings-21
calls of one engine: 1.1 s of CPU instead of 13.5; see ``align_ids``).
``exact_word_errors`` counts the standard WER's errors (words equal only as spelled).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Callable, NamedTuple, Sequence

import numpy as np

from punct.labels import O, stronger
from punct.words import Word

MATCH = "match"
SUB = "sub"
INS = "ins"
DEL = "del"

#: Tokens joined to the word before them for matching (``we 're`` = ``we're``).
CLITICS = frozenset({"'s", "'re", "'m", "'ll", "'ve", "'d", "n't"})

#: A part of the problem is solved directly (band rows kept) below this many cells.
BASE_CELLS = 1 << 21

_INF = np.int64(1) << np.int64(60)

_APOS_RE = re.compile(r"[\u2018\u2019\u02bc`\u00b4]")
_EDGE_RE = re.compile(r"^\W+|\W+$")
_ABBREV_DOT_RE = re.compile(r"(?<=[^\W\d_])\.(?=[^\W\d_]|$)")


def normalize_word(word: str) -> str:
    """The matching key of a word: ``"U.S."`` -> ``us``, ``"Gentlemen,"`` -> ``gentlemen``.

    Lower case, curly apostrophes made straight, quotes, marks and hyphens at
    the edges removed (``the-`` is ``the``), dots after letters removed
    (``p.m.`` is ``pm``; ``4.1`` stays). A token that is nothing but symbols
    (``&``, ``/``) keys as itself.
    """
    w = _APOS_RE.sub("'", word).lower()
    core = _EDGE_RE.sub("", w)
    if not core:
        return w
    if "." in core:
        core = _ABBREV_DOT_RE.sub("", core)
    return core


class AlignOp(NamedTuple):
    """One step of an alignment: ``op`` is match, sub, ins or del; indices into ref and hyp."""

    op: str
    ref: int | None
    hyp: int | None


@dataclass
class Alignment:
    """The ops of an alignment, in order, and their counts.

    Every reference index and every hypothesis index occurs in at least one op.
    Where clitic joining pairs words of different counts (``we 're`` with
    ``we're``) a word occurs in more than one ``match`` op; the counts below
    then count words of the longer side as matched, not as errors.
    """

    ops: list[AlignOp]
    n_ref: int
    n_hyp: int

    def _count(self, op: str) -> int:
        return sum(1 for o in self.ops if o.op == op)

    @property
    def matches(self) -> int:
        return self._count(MATCH)

    @property
    def substitutions(self) -> int:
        return self._count(SUB)

    @property
    def insertions(self) -> int:
        return self._count(INS)

    @property
    def deletions(self) -> int:
        return self._count(DEL)

    @property
    def errors(self) -> int:
        return sum(1 for o in self.ops if o.op != MATCH)

    @property
    def wer(self) -> float | None:
        """Word error rate in percent; None for an empty reference."""
        return 100.0 * self.errors / self.n_ref if self.n_ref else None

    def hyp_of_ref(self) -> list[int | None]:
        """For each reference word, the (last) hypothesis word aligned to it; None if deleted."""
        out: list[int | None] = [None] * self.n_ref
        for o in self.ops:
            if o.ref is not None and o.hyp is not None:
                out[o.ref] = o.hyp
        return out


# ---------------------------------------------------------------------------
# The DP on integer sequences.


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


def _rapidfuzz_levenshtein():
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
    lev = _rapidfuzz_levenshtein()
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


# ---------------------------------------------------------------------------
# Words.


def _units(words: Sequence[str], normalize: Callable[[str], str], join_clitics: bool) -> tuple[list[tuple[int, int]], list[str]]:
    """Word spans matched as one (a word and the clitics after it) and their keys."""
    spans: list[tuple[int, int]] = []
    raw: list[str] = []
    clitic: dict[str, bool] = {}
    for i, w in enumerate(words):
        is_clitic = clitic.get(w)
        if is_clitic is None:
            is_clitic = clitic[w] = _APOS_RE.sub("'", w).lower() in CLITICS
        if join_clitics and spans and is_clitic:
            spans[-1] = (spans[-1][0], i + 1)
            raw[-1] += w
        else:
            spans.append((i, i + 1))
            raw.append(w)
    keys: dict[str, str] = {}  # a call repeats its words: each is normalized once
    return spans, [keys[r] if r in keys else keys.setdefault(r, normalize(r)) for r in raw]


def _expand(op: str, r: tuple[int, int], h: tuple[int, int]) -> list[AlignOp]:
    """Word ops of a matched or substituted pair of units (paired from their ends)."""
    (ra, rb), (ha, hb) = r, h
    lr, lh = rb - ra, hb - ha
    k = min(lr, lh)
    out: list[AlignOp] = []
    if lr > lh:
        out += [AlignOp(op, i, ha) if op == MATCH else AlignOp(DEL, i, None) for i in range(ra, rb - k)]
    elif lh > lr:
        out += [AlignOp(op, ra, j) if op == MATCH else AlignOp(INS, None, j) for j in range(ha, hb - k)]
    out += [AlignOp(op, rb - k + q, hb - k + q) for q in range(k)]
    return out


def align(ref: Sequence[str], hyp: Sequence[str], normalize: Callable[[str], str] = normalize_word,
          join_clitics: bool = True) -> Alignment:
    """Align reference words to hypothesis words by edit distance (see the module docstring).

    ``normalize`` maps a word to its matching key; with ``join_clitics`` a clitic
    token (``'re``, ``n't``) is matched together with the word before it.
    """
    rs, rk = _units(ref, normalize, join_clitics)
    hs, hk = _units(hyp, normalize, join_clitics)
    vocab: dict[str, int] = {}
    a = [vocab.setdefault(x, len(vocab)) for x in rk]
    b = [vocab.setdefault(x, len(vocab)) for x in hk]
    ops: list[AlignOp] = []
    for op, i, j in align_ids(a, b):
        if op == INS:
            ops += [AlignOp(INS, None, q) for q in range(*hs[j])]
        elif op == DEL:
            ops += [AlignOp(DEL, q, None) for q in range(*rs[i])]
        else:
            ops += _expand(op, rs[i], hs[j])
    return Alignment(ops=ops, n_ref=len(ref), n_hyp=len(hyp))


def edit_distance(ref: Sequence[str], hyp: Sequence[str], normalize: Callable[[str], str] = normalize_word,
                  join_clitics: bool = True) -> int:
    """The number of word errors (substitutions + deletions + insertions) of the best alignment."""
    return align(ref, hyp, normalize, join_clitics).errors


# ---------------------------------------------------------------------------
# Mark transfer.


@dataclass
class TransferStats:
    """What happened to the reference marks, and the word errors of the alignment.

    Every reference mark is counted once: ``carried`` (kept on its aligned word),
    ``moved`` (its word was deleted; kept on the preceding hypothesis word) or
    dropped (``dropped_no_word``: deleted with no hypothesis word before it;
    ``dropped_merged``: it landed on a word with a mark at least as strong).
    ``on_deleted`` counts the marks whose reference word was deleted.
    """

    ref_words: int = 0
    hyp_words: int = 0
    matches: int = 0
    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0
    marks: int = 0
    carried: int = 0
    moved: int = 0
    dropped_no_word: int = 0
    dropped_merged: int = 0
    on_deleted: int = 0
    #: word errors when words match only if spelled the same (``exact_word_errors``): the
    #: standard WER's count, as sclite and jiwer make it; ``word_errors`` matches them looser
    exact_errors: int = 0

    @property
    def dropped(self) -> int:
        return self.dropped_no_word + self.dropped_merged

    @property
    def word_errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float | None:
        """Word error rate in percent of the alignment (words matched by ``normalize_word``,
        clitics joined); None without reference words."""
        return 100.0 * self.word_errors / self.ref_words if self.ref_words else None

    @property
    def exact_wer(self) -> float | None:
        """The standard word error rate in percent (words match when spelled the same)."""
        return 100.0 * self.exact_errors / self.ref_words if self.ref_words else None

    def __add__(self, other: "TransferStats") -> "TransferStats":
        return TransferStats(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d.update(dropped=self.dropped, word_errors=self.word_errors, wer=self.wer, exact_wer=self.exact_wer)
        return d


def exact_word_errors(ref: Sequence[str], hyp: Sequence[str]) -> int:
    """The edit distance of two word sequences whose words match only when spelled the same
    (unit costs): the errors of the standard word error rate, as NIST sclite and jiwer count
    them on the same words."""
    lev = _rapidfuzz_levenshtein()
    if lev is not None:
        return int(lev.distance(list(ref), list(hyp)))
    return align(ref, hyp, normalize=str, join_clitics=False).errors


def transfer_marks(ref: Sequence[Word], hyp: Sequence[Word], normalize: Callable[[str], str] = normalize_word,
                   join_clitics: bool = True, alignment: Alignment | None = None) -> tuple[list[Word], TransferStats]:
    """Put the reference marks onto the hypothesis words.

    Returns copies of the hypothesis words (times, speakers kept) whose labels
    are the transferred reference marks (the hypothesis' own labels are
    replaced), and the TransferStats.
    """
    words, st, _ = transfer_marks_lost(ref, hyp, normalize, join_clitics, alignment)
    return words, st


def transfer_marks_lost(ref: Sequence[Word], hyp: Sequence[Word], normalize: Callable[[str], str] = normalize_word,
                        join_clitics: bool = True, alignment: Alignment | None = None
                        ) -> tuple[list[Word], TransferStats, list[tuple[int, str]]]:
    """transfer_marks, and the dropped marks: ``(j, label)`` for each, ``j`` the hypothesis word it
    was merged into (-1 when no hypothesis word came before it), in reference order."""
    lost: list[tuple[int, str]] = []
    al = alignment or align([w.text for w in ref], [w.text for w in hyp], normalize, join_clitics)
    labels = [O] * len(hyp)
    kind: list[str | None] = [None] * len(hyp)
    st = TransferStats(ref_words=len(ref), hyp_words=len(hyp), matches=al.matches, substitutions=al.substitutions,
                       deletions=al.deletions, insertions=al.insertions)
    target: dict[int, tuple[int | None, str]] = {}
    last_hyp: int | None = None
    for o in al.ops:
        if o.hyp is not None:
            last_hyp = o.hyp
        if o.ref is None:
            continue
        if o.op == DEL:
            target[o.ref] = (last_hyp, "moved")
        else:
            target[o.ref] = (o.hyp, "carried")
    for i, w in enumerate(ref):
        if w.label == O:
            continue
        st.marks += 1
        j, how = target[i]
        if how == "moved":
            st.on_deleted += 1
        if j is None:
            st.dropped_no_word += 1
            lost.append((-1, w.label))
            continue
        old = labels[j]
        if old == O:
            labels[j], kind[j] = w.label, how
        elif stronger(w.label, old) == w.label and w.label != old:
            labels[j], kind[j] = w.label, how
            st.dropped_merged += 1
            lost.append((j, old))
        else:
            st.dropped_merged += 1
            lost.append((j, w.label))
    st.carried = sum(1 for k in kind if k == "carried")
    st.moved = sum(1 for k in kind if k == "moved")
    return [_relabelled(w, lab) for w, lab in zip(hyp, labels)], st, lost


def _relabelled(w: Word, label: str) -> Word:
    """A copy of ``w`` with ``label`` (``dataclasses.replace`` without its checks: a call has
    a quarter of a million words)."""
    if not hasattr(w, "__dict__"):  # a class with slots
        return replace(w, label=label)
    out = object.__new__(type(w))
    out.__dict__.update(w.__dict__)
    out.label = label
    return out
