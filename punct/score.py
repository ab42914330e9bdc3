"""Punctuation scores of a hypothesis against a reference.

``score_labels(ref_labels, hyp_labels)`` scores two label streams over the same
words; ``score_utterances(ref_utts, hyp_utts)`` scores utterances whose words
may differ (ASR output): the words are aligned by edit distance
(punct.transfer) and the reference marks carried onto the hypothesis words, so
every hypothesis word is one slot with a reference label and a hypothesis label.

Metrics, in percent, over the slots (one slot per word: the mark after it):

- per class (COMMA, PERIOD, QUESTION) and overall, micro-averaged over the three
  marks: precision = tp / (tp + fp), recall = tp / (tp + fn), F1; a mark
  predicted as another mark is a false positive of the one and a false
  negative of the other;
- SER, the slot error rate of Tilk and Alumäe (2016): (S + D + I) / reference
  marks, where a mark predicted as another mark is one substitution, a missed
  mark a deletion and a spurious mark an insertion;
- Err, the classification error rate of Tilk and Alumäe (2015): wrong slots /
  all slots;
- two-class boundary precision, recall and F1 (any mark against none), and the
  same for sentence ends (PERIOD or QUESTION against the rest: the sentence
  boundary detection of Che et al. 2016, whatever the type of the end);
- a confusion matrix over O COMMA PERIOD QUESTION (rows reference, columns
  hypothesis) and a listing of every wrong slot with its words around it;
- for ASR hypotheses, the word error rate and what happened to the reference
  marks in the transfer (punct.transfer.TransferStats).

Case (when both sides are cased: each holds a capital letter and a small letter
somewhere, so neither lower-case text nor the all-caps output of a LibriSpeech
recognizer is scored for case): every word has a case class (punct.labels.case_of of
its spelling: LOWER, CAP, UPPER, MIXED), and LOWER is the "no event" class as O is
for marks. On the same word alignment as the marks, an aligned pair of words
(matched or substituted) compares the two classes; a deleted reference word counts
as predicted LOWER (a miss of its class, if any), an inserted hypothesis word as a
reference LOWER (a false alarm of its class, if any); where clitic joining pairs one
word with two, the second takes LOWER. Per class (CAP, UPPER, MIXED) and overall
(micro over the three), P/R/F1 as for marks, and a confusion matrix.

Marks and case together ("mark+case"): an event is a word with a mark after it or a
case class other than LOWER; a word is right when both its mark and its case class
are those of the reference. tp = reference events that are right, fp = hypothesis
events that are not, fn = reference events that are not (a deleted reference word
with a case counts as a miss); F1 = 2tp / (2tp + fp + fn).

Non-speech tokens (punct.words.is_nonspeech: ``[noise]``, ``<sil>``) are no slots
and no words of the word error rate on either side.

An undefined metric is None (null in JSON), never 0: precision without
hypothesis marks, recall, SER and F1 without reference marks, Err without
slots. F1 with reference marks but no hypothesis marks is 0 (2tp/(2tp+fp+fn)).
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from punct.errors import PunctError
from punct.fsutil import atomic_write
from punct.labels import CASES, LABELS, LOWER, MARK_LABELS, O, SENTENCE_END, case_of, is_label, stronger
from punct.transfer import DEL, TransferStats, align, exact_word_errors, normalize_word, transfer_marks_lost
from punct.words import Utterance, Word, is_nonspeech

log = logging.getLogger(__name__)

#: Words shown on each side of an error in the listing.
CONTEXT_WORDS = 4


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


@dataclass
class PRF:
    """Precision, recall and F1 (percent, None when undefined) with their counts."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return _pct(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _pct(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        if self.tp + self.fn == 0:
            return None
        return _pct(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def ref(self) -> int:
        """Reference marks of this class (support)."""
        return self.tp + self.fn

    @property
    def hyp(self) -> int:
        """Hypothesis marks of this class."""
        return self.tp + self.fp

    def to_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "tp": self.tp, "fp": self.fp,
                "fn": self.fn, "ref": self.ref, "hyp": self.hyp}


@dataclass
class SlotError:
    """One wrong slot: where it is, the two labels, and the words around it."""

    utt: str | None
    index: int
    ref: str
    hyp: str
    context: str

    def format(self) -> str:
        where = f"{self.utt} {self.index}" if self.utt is not None else str(self.index)
        return f"{where}\t{self.ref}->{self.hyp}\t{self.context}"


@dataclass
class ScoreReport:
    """All the scores of one comparison (see the module docstring)."""

    confusion: dict[str, dict[str, int]]
    errors: list[SlotError] = field(default_factory=list)
    transfer: TransferStats | None = None
    #: bootstrap intervals (punct.significance.Intervals), when asked for
    bootstrap: Any = None
    #: case classes, rows reference, columns hypothesis (punct.labels.CASES); None: case not scored
    case_confusion: dict[str, dict[str, int]] | None = None
    #: marks and case together (see the module docstring); None: case not scored
    mark_case: PRF | None = None

    @property
    def case_classes(self) -> dict[str, PRF] | None:
        """P/R/F1 of each case class but LOWER; None when case was not scored."""
        c = self.case_confusion
        if c is None:
            return None
        out = {}
        for k in CASES[1:]:
            tp = c[k][k]
            out[k] = PRF(tp, sum(c[r][k] for r in CASES) - tp, sum(c[k].values()) - tp)
        return out

    @property
    def case_overall(self) -> PRF | None:
        pc = self.case_classes
        if pc is None:
            return None
        return PRF(sum(p.tp for p in pc.values()), sum(p.fp for p in pc.values()), sum(p.fn for p in pc.values()))

    # -- derived counts -----------------------------------------------------
    @property
    def slots(self) -> int:
        return sum(sum(row.values()) for row in self.confusion.values())

    @property
    def per_class(self) -> dict[str, PRF]:
        c = self.confusion
        out = {}
        for lab in MARK_LABELS:
            tp = c[lab][lab]
            fn = sum(c[lab].values()) - tp
            fp = sum(c[r][lab] for r in LABELS) - tp
            out[lab] = PRF(tp, fp, fn)
        return out

    @property
    def overall(self) -> PRF:
        pc = self.per_class.values()
        return PRF(sum(p.tp for p in pc), sum(p.fp for p in pc), sum(p.fn for p in pc))

    @property
    def boundary(self) -> PRF:
        c = self.confusion
        tp = sum(c[r][h] for r in MARK_LABELS for h in MARK_LABELS)
        fn = sum(c[r][O] for r in MARK_LABELS)
        fp = sum(c[O][h] for h in MARK_LABELS)
        return PRF(tp, fp, fn)

    @property
    def sentence(self) -> PRF:
        """Sentence ends (PERIOD or QUESTION) against the rest, whatever their type."""
        c = self.confusion
        ends = [lab for lab in LABELS if lab in SENTENCE_END]
        rest = [lab for lab in LABELS if lab not in SENTENCE_END]
        tp = sum(c[r][h] for r in ends for h in ends)
        fn = sum(c[r][h] for r in ends for h in rest)
        fp = sum(c[r][h] for r in rest for h in ends)
        return PRF(tp, fp, fn)

    @property
    def ref_marks(self) -> int:
        return sum(sum(self.confusion[r].values()) for r in MARK_LABELS)

    @property
    def hyp_marks(self) -> int:
        return sum(self.confusion[r][h] for r in LABELS for h in MARK_LABELS)

    @property
    def substitutions(self) -> int:
        return sum(self.confusion[r][h] for r in MARK_LABELS for h in MARK_LABELS if r != h)

    @property
    def deletions(self) -> int:
        return sum(self.confusion[r][O] for r in MARK_LABELS)

    @property
    def insertions(self) -> int:
        return sum(self.confusion[O][h] for h in MARK_LABELS)

    @property
    def wrong_slots(self) -> int:
        return sum(self.confusion[r][h] for r in LABELS for h in LABELS if r != h)

    # -- rates ----------------------------------------------------------------
    @property
    def ser(self) -> float | None:
        """Slot error rate (S + D + I) / reference marks, percent (Tilk and Alumäe 2016)."""
        return _pct(self.substitutions + self.deletions + self.insertions, self.ref_marks)

    @property
    def err(self) -> float | None:
        """Share of slots with a wrong label, percent (Tilk and Alumäe 2015)."""
        return _pct(self.wrong_slots, self.slots)

    @property
    def wer(self) -> float | None:
        """Word error rate of the hypothesis words (percent); None when words were not aligned."""
        return None if self.transfer is None else self.transfer.wer

    # -- output -----------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready dict: classes, overall, boundary, ser, err, counts, confusion, wer, transfer."""
        return {
            "classes": {lab: p.to_dict() for lab, p in self.per_class.items()},
            "overall": self.overall.to_dict(),
            "ser": self.ser,
            "err": self.err,
            "boundary": self.boundary.to_dict(),
            "sentence": self.sentence.to_dict(),
            "counts": {
                "slots": self.slots,
                "ref_marks": self.ref_marks,
                "hyp_marks": self.hyp_marks,
                "substitutions": self.substitutions,
                "deletions": self.deletions,
                "insertions": self.insertions,
                "wrong_slots": self.wrong_slots,
            },
            "confusion": {"labels": list(LABELS), "rows": "reference", "columns": "hypothesis",
                          "matrix": [[self.confusion[r][h] for h in LABELS] for r in LABELS]},
            "wer": self.wer,
            "transfer": None if self.transfer is None else self.transfer.to_dict(),
            "case": None if self.case_confusion is None else {
                "classes": {k: p.to_dict() for k, p in self.case_classes.items()},
                "overall": self.case_overall.to_dict(),
                "confusion": {"labels": list(CASES), "rows": "reference", "columns": "hypothesis",
                              "matrix": [[self.case_confusion[r][h] for h in CASES] for r in CASES]}},
            "mark_case": None if self.mark_case is None else self.mark_case.to_dict(),
            **({"bootstrap": self.bootstrap.to_dict()} if self.bootstrap is not None else {}),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def format_confusion(self) -> str:
        """The confusion matrix as a fixed-width table (rows reference, columns hypothesis)."""
        w = max(9, max(len(str(v)) for row in self.confusion.values() for v in row.values()) + 1)
        lines = ["ref \\ hyp " + "".join(f"{h:>{w}}" for h in LABELS)]
        for r in LABELS:
            lines.append(f"{r:<10}" + "".join(f"{self.confusion[r][h]:>{w}}" for h in LABELS))
        return "\n".join(lines)

    def format_table(self) -> str:
        """A fixed-width table of the scores with their counts."""
        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.1f}"

        head = f"{'class':<10}{'ref':>8}{'hyp':>8}{'tp':>8}{'fp':>8}{'fn':>8}{'P':>8}{'R':>8}{'F1':>8}"
        lines = [head, "-" * len(head)]

        def row(name: str, p: PRF) -> str:
            return (f"{name:<10}{p.ref:>8}{p.hyp:>8}{p.tp:>8}{p.fp:>8}{p.fn:>8}"
                    f"{f(p.precision):>8}{f(p.recall):>8}{f(p.f1):>8}")

        for lab, p in self.per_class.items():
            lines.append(row(lab, p))
        lines.append(row("overall", self.overall))
        lines.append(row("boundary", self.boundary))
        lines.append(row("sentence", self.sentence))
        if self.case_confusion is not None:
            for k, p in self.case_classes.items():
                lines.append(row(f"case {k}", p))
            lines.append(row("case", self.case_overall))
            lines.append(row("mark+case", self.mark_case))
        lines.append("-" * len(head))
        lines.append(f"SER {f(self.ser)}  (S {self.substitutions} + D {self.deletions} + I {self.insertions}"
                     f" over {self.ref_marks} reference marks)")
        lines.append(f"Err {f(self.err)}  ({self.wrong_slots} wrong of {self.slots} slots)")
        if self.bootstrap is not None:
            lines.append(self.bootstrap.format().rstrip("\n"))
        t = self.transfer
        if t is not None and (t.word_errors or t.exact_errors or t.dropped or t.moved):
            lines.append(f"WER {f(t.exact_wer)}  standard: {t.exact_errors} errors over {t.ref_words} reference words, "
                         f"words matched as spelled (as sclite and jiwer count)")
            lines.append(f"WER {f(t.wer)}  of the mark transfer's alignment, words matched loosely (case, edge marks, "
                         f"abbreviation dots, clitics joined): S {t.substitutions} + D {t.deletions} + "
                         f"I {t.insertions}; {t.hyp_words} hypothesis words")
            lines.append(f"reference marks {t.marks}: carried {t.carried}, on deleted words {t.on_deleted} "
                         f"(moved to the preceding word {t.moved}), dropped {t.dropped} "
                         f"(no preceding word {t.dropped_no_word}, merged into a stronger mark {t.dropped_merged})")
        if self.case_confusion is None:
            lines.append("case not scored (both sides need case: capitals and small letters)")
        lines.append("")
        lines.append("confusion (rows reference, columns hypothesis):")
        lines.append(self.format_confusion())
        if self.case_confusion is not None:
            lines.append("")
            lines.append("case confusion (rows reference, columns hypothesis):")
            lines.append("ref \\ hyp " + "".join(f"{h:>9}" for h in CASES))
            for r in CASES:
                lines.append(f"{r:<10}" + "".join(f"{self.case_confusion[r][h]:>9}" for h in CASES))
        return "\n".join(lines) + "\n"

    def format_errors(self) -> str:
        """One line per wrong slot: ``UTT INDEX<TAB>REF->HYP<TAB>... word [REF->HYP] next ...``."""
        return "".join(e.format() + "\n" for e in self.errors)

    def write_dir(self, path: str | Path) -> None:
        """Write report.txt, report.json, confusion.txt and errors.txt into ``path`` (each atomically)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        for name, text in (("report.txt", self.format_table()), ("report.json", self.to_json() + "\n"),
                           ("confusion.txt", self.format_confusion() + "\n"), ("errors.txt", self.format_errors())):
            with atomic_write(path / name) as f:
                f.write(text)


# ---------------------------------------------------------------------------


class _Tally:
    """Accumulates slots into a confusion matrix and an error listing."""

    def __init__(self) -> None:
        self.confusion = {r: {h: 0 for h in LABELS} for r in LABELS}
        self.errors: list[SlotError] = []
        self.case: dict[str, dict[str, int]] | None = None
        self.mark_case = PRF()

    def add_case(self, st: "SlotStream") -> None:
        """Count the case classes and the mark+case events of a stream (see the module docstring)."""
        if self.case is None:
            self.case = {r: {h: 0 for h in CASES} for r in CASES}
        mc = self.mark_case
        for r, h, rc, hc in zip(st.ref, st.hyp, st.case_ref, st.case_hyp):
            self.case[rc][hc] += 1
            right = r == h and rc == hc
            ref_event, hyp_event = r != O or rc != LOWER, h != O or hc != LOWER
            mc.tp += ref_event and right
            mc.fn += ref_event and not right
            mc.fp += hyp_event and not right
        for rc in st.case_deleted:
            self.case[rc][LOWER] += 1
            mc.fn += rc != LOWER

    def add(self, ref: Sequence[str], hyp: Sequence[str], words: Sequence[str] | None = None, utt: str | None = None,
            locs: Sequence[tuple[str, int]] | None = None) -> None:
        """Count slots; ``locs`` (utterance, index) per slot overrides ``utt`` and the position."""
        if len(ref) != len(hyp):
            raise PunctError(f"{len(ref)} reference labels but {len(hyp)} hypothesis labels"
                             + (f" in {utt!r}" if utt else ""))
        conf = self.confusion
        for k, (r, h) in enumerate(zip(ref, hyp)):
            try:
                conf[r][h] += 1
            except KeyError:
                bad = r if r not in conf else h
                raise PunctError(f"unknown label {bad!r} (expected one of {' '.join(LABELS)})") from None
            if r != h:
                u, i = locs[k] if locs is not None else (utt, k)
                self.errors.append(SlotError(u, i, r, h, _context(words, k, r, h)))

    def report(self, transfer: TransferStats | None = None) -> ScoreReport:
        return ScoreReport(confusion=self.confusion, errors=self.errors, transfer=transfer, case_confusion=self.case,
                           mark_case=self.mark_case if self.case is not None else None)


def _context(words: Sequence[str] | None, k: int, r: str, h: str) -> str:
    tag = f"[{r}->{h}]"
    if words is None:
        return tag
    lo, hi = max(0, k - CONTEXT_WORDS), min(len(words), k + 1 + CONTEXT_WORDS)
    left = ("... " if lo > 0 else "") + " ".join(words[lo : k + 1])
    right = " ".join(words[k + 1 : hi]) + (" ..." if hi < len(words) else "")
    return f"{left} {tag} {right}".rstrip()


def score_labels(ref_labels: Sequence[str], hyp_labels: Sequence[str], words: Sequence[str] | None = None) -> ScoreReport:
    """Score hypothesis labels against reference labels of the same words (equal lengths).

    ``words`` (optional) gives the error listing its context.
    """
    tally = _Tally()
    tally.add(list(ref_labels), list(hyp_labels), words)
    return tally.report()


def _check_labels(utts: Sequence[Utterance], side: str) -> None:
    for u in utts:
        for w in u.words:
            if not is_label(w.label):
                raise PunctError(f"{side} utterance {u.id!r}: unknown label {w.label!r}")


@dataclass
class SlotStream:
    """The slots of one aligned stretch of text: reference and hypothesis label per slot."""

    utt: str | None
    ref: list[str]
    hyp: list[str]
    words: list[str]
    #: (utterance, index) per slot when the stretch joins several utterances
    locs: list[tuple[str, int]] | None = None
    #: when case is scored: the case class of each slot's reference and hypothesis word, and
    #: the classes of the deleted reference words (punct.labels.CASES)
    case_ref: list[str] | None = None
    case_hyp: list[str] | None = None
    case_deleted: list[str] | None = None


#: the word of the slot of a dropped mark (``count_dropped``) in the error listing
LOST_WORD = "<lost>"


def _unpaired(ref_ids: Sequence[str], hyp_ids: Sequence[str]) -> str:
    """Why utterances that must pair by id (two folders, two data directories) do not."""
    if not hyp_ids:
        return "the hypothesis has no utterances"
    extra = sorted(set(hyp_ids) - set(ref_ids))
    if not extra:
        return "an utterance id is repeated: utterances pair by id"
    shared = len(set(hyp_ids) & set(ref_ids))
    return (f"hypothesis utterance (file) {extra[0]!r} has no reference one: {shared} of {len(set(hyp_ids))} "
            f"hypothesis ids match the reference's {len(set(ref_ids))} (first {ref_ids[0] if ref_ids else None!r}); "
            "two folders pair by file name")


def aligned_slots(ref_utts: Sequence[Utterance], hyp_utts: Sequence[Utterance],
                  normalize: Callable[[str], str] = normalize_word,
                  count_dropped: bool = False, progress: bool = False,
                  by_id: bool = False) -> tuple[list[SlotStream], TransferStats]:
    """The slots that score_utterances scores, stretch by stretch, and the transfer statistics.

    When every hypothesis utterance id is a reference one, utterances are aligned one
    by one (a stretch each; a reference utterance without a hypothesis one has its
    words deleted); otherwise all words of each side (in the given order) form one
    stream. The slots are the hypothesis words; their reference labels
    are the reference marks transferred onto them (punct.transfer.transfer_marks).
    A reference mark dropped in the transfer (no hypothesis word left to take it,
    or merged into a stronger mark) has no slot and is not scored; with
    ``count_dropped`` each one gets a slot of its own after the word it was merged
    into (hypothesis label O, word ``<lost>``), so it counts as a missed mark.
    ``progress``: a progress bar (tqdm, on stderr) over the reference words aligned.
    ``by_id`` (two folders, two data directories): the utterances must pair by id (file
    name); a PunctError instead of one stream when they do not.
    """
    _check_labels(ref_utts, "reference")
    _check_labels(hyp_utts, "hypothesis")
    ref_ids = [u.id for u in ref_utts]
    hyp_ids = [u.id for u in hyp_utts]

    def spoken(utts: Sequence[Utterance]) -> tuple[list[Word], list[tuple[str, int]]]:
        """The words of ``utts`` without non-speech tokens and each one's (utterance, index)."""
        kept = [(w, (u.id, k)) for u in utts for k, w in enumerate(u.words) if not is_nonspeech(w)]
        return [w for w, _ in kept], [loc for _, loc in kept]

    pairs: list[tuple[str | None, list[Word], list[Word], list[tuple[str, int]] | None]] = []
    if (hyp_ids and len(set(ref_ids)) == len(ref_ids) and len(set(hyp_ids)) == len(hyp_ids)
            and set(hyp_ids) <= set(ref_ids)):
        by_id = {u.id: u for u in hyp_utts}
        missing = len(ref_ids) - len(hyp_ids)
        if missing:
            log.info("%d of %d reference utterances have no hypothesis utterance: their words count as deleted",
                     missing, len(ref_ids))
        for u in ref_utts:
            hyp_words, locs = spoken([by_id.get(u.id, Utterance(u.id))])
            pairs.append((u.id, _marks_on_speech(u.words), hyp_words, locs))
    else:
        shared = set(hyp_ids) & set(ref_ids)
        if by_id:
            raise PunctError(_unpaired(ref_ids, hyp_ids))
        if shared and len(ref_ids) > 1 and len(hyp_ids) > 1:  # pairs by id, but not all of them: a mismatch
            extra = sorted(set(hyp_ids) - set(ref_ids))
            raise PunctError(f"hypothesis utterance {extra[0]!r} has no reference utterance ({len(extra)} such; "
                             f"{len(shared)} ids match): utterances, or a folder's files, pair by id or name"
                             if extra else "an utterance id is repeated: utterances pair by id")
        if len(ref_utts) > 1 and len(hyp_utts) > 1:
            log.warning("utterance ids differ (%d reference, %d hypothesis utterances): aligning all words as one "
                        "stream", len(ref_utts), len(hyp_utts))
        hyp_words, locs = spoken(hyp_utts)
        pairs = [(None, _marks_on_speech([w for u in ref_utts for w in u.words]), hyp_words, locs)]
    left_out = [sum(len(u.words) for u in utts) - sum(len(p[side]) for p in pairs)
                for side, utts in ((1, ref_utts), (2, hyp_utts))]
    if any(left_out):
        log.info("non-speech tokens ([noise], <sil>, ...) left out: %d of the reference, %d of the hypothesis",
                 *left_out)
    total = TransferStats()
    streams = []
    with_case = is_cased(w for p in pairs for w in p[1]) and is_cased(w for p in pairs for w in p[2])
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(len(p[1]) for p in pairs), unit=" words", desc="aligning", leave=False)
    for utt, ref_words, hyp_words, locs in pairs:
        al = align([w.text for w in ref_words], [w.text for w in hyp_words], normalize)
        projected, stats, lost = transfer_marks_lost(ref_words, hyp_words, normalize=normalize, alignment=al)
        stats.exact_errors = exact_word_errors([w.text for w in ref_words], [w.text for w in hyp_words])
        total = total + stats
        st = SlotStream(utt, [w.label for w in projected], [w.label for w in hyp_words],
                        [w.text for w in hyp_words], locs)
        if with_case:
            st.case_ref, st.case_deleted = _aligned_cases(al, ref_words, len(hyp_words))
            st.case_hyp = [case_of(w.written or w.text) for w in hyp_words]
        if count_dropped and lost:
            st = _with_lost(st, lost)
        streams.append(st)
        if bar is not None:
            bar.update(len(ref_words))
    if bar is not None:
        bar.close()
    return streams, total


def is_cased(words) -> bool:
    """True when the spellings of ``words`` hold both a capital and a small letter: text whose
    case can be scored (neither all lower case nor all capitals)."""
    upper = lower = False
    for w in words:
        s = w.written or w.text
        upper = upper or s != s.lower()
        lower = lower or s != s.upper()
        if upper and lower:
            return True
    return False


def _aligned_cases(al, ref_words: Sequence[Word], n_hyp: int) -> tuple[list[str], list[str]]:
    """(the case class of the reference word aligned to each hypothesis word, LOWER for an
    inserted one or the second of two words paired with one; the classes of the deleted
    reference words)."""
    out = [LOWER] * n_hyp
    seen_hyp: set[int] = set()
    used_ref: set[int] = set()
    deleted = []
    for o in al.ops:
        if o.op == DEL:
            deleted.append(case_of(ref_words[o.ref].written or ref_words[o.ref].text))
        elif o.ref is not None and o.hyp is not None and o.hyp not in seen_hyp:
            seen_hyp.add(o.hyp)
            if o.ref not in used_ref:
                w = ref_words[o.ref]
                out[o.hyp] = case_of(w.written or w.text)
            used_ref.add(o.ref)
    return out, deleted


def _marks_on_speech(words: Sequence[Word]) -> list[Word]:
    """The reference ``words`` without non-speech tokens (``[laughter]``, ``<sil>``: no slot and
    no word for the word error rate, as Kaldi's scoring filters them); the mark after a dropped
    token goes to the word before it (the stronger of the two, as punct.transfer merges marks)."""
    out: list[Word] = []
    for w in words:
        if not is_nonspeech(w):
            out.append(w)
        elif w.label != O and out:
            out[-1] = replace(out[-1], label=stronger(out[-1].label, w.label))
    return out


def _with_lost(st: SlotStream, lost: Sequence[tuple[int, str]]) -> SlotStream:
    """``st`` with a slot (reference mark, hypothesis O, word ``<lost>``) after hypothesis word j
    for each lost mark (j, mark); j = -1 puts it first. Every slot keeps the (utterance, index) of
    its hypothesis word in the error listing; a lost mark takes that of the word it follows."""
    after: dict[int, list[str]] = {}
    for j, lab in lost:
        after.setdefault(j, []).append(lab)

    def loc(k: int) -> tuple[str, int]:
        return st.locs[k] if st.locs is not None else (st.utt, k)  # type: ignore[return-value]

    cased = st.case_ref is not None
    out = SlotStream(st.utt, [], [], [], [], [] if cased else None, [] if cased else None, st.case_deleted)
    for k in range(-1, len(st.ref)):
        if k >= 0:
            out.ref.append(st.ref[k])
            out.hyp.append(st.hyp[k])
            out.words.append(st.words[k])
            out.locs.append(loc(k))  # type: ignore[union-attr]
            if cased:
                out.case_ref.append(st.case_ref[k])  # type: ignore[union-attr,index]
                out.case_hyp.append(st.case_hyp[k])  # type: ignore[union-attr,index]
        for lab in after.get(k, []):
            out.ref.append(lab)
            out.hyp.append(O)
            out.words.append(LOST_WORD)
            if cased:
                out.case_ref.append(LOWER)  # type: ignore[union-attr]
                out.case_hyp.append(LOWER)  # type: ignore[union-attr]
            out.locs.append(loc(max(k, 0)) if st.ref else (st.utt, 0))  # type: ignore[union-attr,arg-type]
    return out


def score_streams(streams: Sequence[SlotStream], transfer: TransferStats | None = None) -> ScoreReport:
    """Score the slots of aligned_slots."""
    tally = _Tally()
    for st in streams:
        tally.add(st.ref, st.hyp, st.words, st.utt, st.locs)
        if st.case_ref is not None:
            tally.add_case(st)
    return tally.report(transfer)


def score_utterances(ref_utts: Sequence[Utterance], hyp_utts: Sequence[Utterance],
                     normalize: Callable[[str], str] = normalize_word, count_dropped: bool = False) -> ScoreReport:
    """Score hypothesis utterances against reference utterances, aligning their words (aligned_slots)."""
    streams, transfer = aligned_slots(ref_utts, hyp_utts, normalize, count_dropped)
    return score_streams(streams, transfer)
