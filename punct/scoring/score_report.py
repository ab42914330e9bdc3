"""The scores of one comparison (ScoreReport), computed from its counts: a confusion matrix
of the marks (rows reference, columns hypothesis), the wrong slots, and when case is scored
the case classes' confusion and the mark+case events. In percent, None when undefined:

- per mark and overall (micro over the marks): precision, recall, F1; a mark predicted as
  another is a false positive of the one and a false negative of the other;
- SER (Tilk and Alumäe 2016): substituted, deleted and inserted marks / reference marks;
  Err (Tilk and Alumäe 2015): wrong slots / all slots;
- boundaries (any mark against none) and sentence ends (PERIOD or QUESTION against the
  rest, Che et al. 2016): two-class precision, recall, F1;
- case (CAP, UPPER, MIXED against LOWER, which counts as O does) and mark+case (an event is
  a word with a mark or a case other than LOWER; right when both are the reference's):
  F1 = 2tp / (2tp + fp + fn).

F1 with reference marks but no hypothesis marks is 0; precision without hypothesis marks,
recall and F1 without reference marks, Err without slots are None (null in JSON).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from punct.fsutil import atomic_write
from punct.text.labels import CASES, LABELS, MARK_LABELS, O, SENTENCE_END
from punct.data.transfer import TransferStats


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
    #: bootstrap intervals (punct.scoring.significance.Intervals), when asked for
    bootstrap: Any = None
    #: case classes, rows reference, columns hypothesis (punct.text.labels.CASES); None: case not scored
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
            lines.append("case not scored (both sides need case: small letters, and capitals in at least one word in 200)")
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
