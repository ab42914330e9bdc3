"""Edit-distance alignment of reference words to hypothesis words, and mark transfer.

``align(ref, hyp)`` aligns two word sequences (Levenshtein, punct.data.editdist), matching words
case- and format-insensitively through a replaceable ``normalize`` function
(``normalize_word``: lower case, straight apostrophes, no quotes or marks at
the edges, no abbreviation dots). Clitics split off as tokens of their own
(``we 're``, ``do n't``, the IWSLT style) are joined to the word before them
for matching, so ``we 're`` matches ``we're`` at no cost.

``transfer_marks(ref, hyp)`` carries every reference mark onto the hypothesis
word aligned to its word; the mark of a deleted reference word goes onto the
nearest preceding hypothesis word (as Tilk and Alumäe 2015 did for their ASR
test set); when two marks land on one word the stronger wins
(``punct.text.labels.stronger``); a mark with no preceding hypothesis word is
dropped. ``exact_word_errors`` counts the standard WER's errors (words equal only as spelled).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Callable, NamedTuple, Sequence

from punct.data import editdist
from punct.data.editdist import DEL, INS, MATCH, SUB, align_ids
from punct.text.labels import O, stronger
from punct.text.textnorm import CLITICS, straight_apostrophes  # CLITICS: joined to the word before them for matching (we 're = we're)
from punct.text.words import Word

__all__ = ["CLITICS", "DEL", "INS", "MATCH", "SUB", "AlignOp", "Alignment", "TransferStats", "align", "align_ids",
           "edit_distance", "exact_word_errors", "normalize_word", "transfer_marks", "transfer_marks_lost"]


_EDGE_RE = re.compile(r"^\W+|\W+$")
_ABBREV_DOT_RE = re.compile(r"(?<=[^\W\d_])\.(?=[^\W\d_]|$)")


def normalize_word(word: str) -> str:
    """The matching key of a word: ``"U.S."`` -> ``us``, ``"Gentlemen,"`` -> ``gentlemen``.

    Lower case, curly apostrophes made straight, quotes, marks and hyphens at
    the edges removed (``the-`` is ``the``), dots after letters removed
    (``p.m.`` is ``pm``; ``4.1`` stays). A token that is nothing but symbols
    (``&``, ``/``) keys as itself.
    """
    w = straight_apostrophes(word).lower()
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
# Words.


def _units(words: Sequence[str], normalize: Callable[[str], str], join_clitics: bool) -> tuple[list[tuple[int, int]], list[str]]:
    """Word spans matched as one (a word and the clitics after it) and their keys."""
    spans: list[tuple[int, int]] = []
    raw: list[str] = []
    clitic: dict[str, bool] = {}
    for i, w in enumerate(words):
        is_clitic = clitic.get(w)
        if is_clitic is None:
            is_clitic = clitic[w] = straight_apostrophes(w).lower() in CLITICS
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
    lev = editdist.rapidfuzz_levenshtein()
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
