"""The label inventory and the mapping of written marks onto it.

A label belongs to a word and names the mark that follows it. This module is
the only place that lists the labels; everything else imports them from here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    import numpy as np

O = "O"
COMMA = "COMMA"
PERIOD = "PERIOD"
QUESTION = "QUESTION"

#: All labels, in the order used for model outputs (index 0 is "no mark").
LABELS: tuple[str, ...] = (O, COMMA, PERIOD, QUESTION)
#: The labels that are marks (scored classes).
MARK_LABELS: tuple[str, ...] = (COMMA, PERIOD, QUESTION)
#: Labels that end a sentence.
SENTENCE_END: frozenset[str] = frozenset({PERIOD, QUESTION})

LABEL_TO_ID: dict[str, int] = {lab: i for i, lab in enumerate(LABELS)}

#: The character written for each mark label.
LABEL_TO_MARK: dict[str, str] = {O: "", COMMA: ",", PERIOD: ".", QUESTION: "?"}

#: Written marks mapped onto the label set as Tilk and Alumäe (2016) did:
#: '!' and ';' become PERIOD, ':' and dashes become COMMA. The ellipsis '…' (and
#: '...') is mapped to PERIOD: in the Earnings transcripts it marks a speaker
#: trailing off, which ends the sentence as spoken. Anything else is removed.
DEFAULT_MARK_MAP: dict[str, str] = {
    ",": COMMA,
    ".": PERIOD,
    "?": QUESTION,
    "!": PERIOD,
    ";": PERIOD,
    ":": COMMA,
    "-": COMMA,
    "--": COMMA,
    "–": COMMA,
    "—": COMMA,
    "…": PERIOD,
    "...": PERIOD,
}

# When several marks follow one word (", --" or "?!"), the stronger one wins.
_STRENGTH = {O: 0, COMMA: 1, PERIOD: 2, QUESTION: 3}


def label_id(label: str) -> int:
    """Return the model index of ``label``; raise ValueError for an unknown label."""
    try:
        return LABEL_TO_ID[label]
    except KeyError:
        raise ValueError(f"unknown label {label!r} (expected one of {' '.join(LABELS)})") from None


def is_label(label: str) -> bool:
    """True if ``label`` is one of LABELS."""
    return label in LABEL_TO_ID


def map_mark(mark: str, mark_map: Mapping[str, str] | None = None) -> str:
    """Map a written mark (',' '?!' '--') to a label; unknown marks give O."""
    table = DEFAULT_MARK_MAP if mark_map is None else mark_map
    mark = mark.strip()
    if not mark:
        return O
    if mark in table:
        return table[mark]
    best = O
    for ch in mark:
        lab = table.get(ch, O)
        if _STRENGTH[lab] > _STRENGTH[best]:
            best = lab
    return best


def mark_weight_vector(mark_weights: Mapping[str, float] | None) -> tuple[float, ...] | None:
    """Each label's weight in LABELS order from a training config's ``mark_weights`` (O and the
    marks it leaves out weigh 1), or None when every weight is 1."""
    if not mark_weights or all(float(v) == 1.0 for v in mark_weights.values()):
        return None
    return tuple(float(mark_weights.get(lab, 1.0)) for lab in LABELS)


def bias_offset(bias: Mapping[str, float] | None) -> "np.ndarray | None":
    """A decision bias {mark: number} (a model file's ``decision_bias``, punct.bin.set_bias) as a
    float32 offset over LABELS (O 0): added to the logits before the argmax of each word's
    label, not to its posteriors; None when there is none or it is all zeros."""
    import numpy as np

    if not bias or all(float(v) == 0.0 for v in bias.values()):
        return None
    return np.array([0.0] + [float(bias.get(m, 0.0)) for m in MARK_LABELS], dtype=np.float32)


def mark_offset(mark_weights: Mapping[str, float] | None) -> "np.ndarray | None":
    """The log-odds correction of a model trained with ``mark_weights`` (TrainConfig): -log w
    of each mark's weight (O and unweighted marks 0), added to its logits at inference so
    that its decisions and posteriors follow the data's rates, which a loss weighted w
    times inflated by w in odds; None when every weight is 1."""
    import numpy as np

    w = mark_weight_vector(mark_weights)
    return None if w is None else -np.log(np.array(w, dtype=np.float32))


def stronger(a: str, b: str) -> str:
    """Return the stronger of two labels (QUESTION > PERIOD > COMMA > O)."""
    return a if _STRENGTH[a] >= _STRENGTH[b] else b


def mark_of(label: str) -> str:
    """The character written for ``label`` ('' for O)."""
    return LABEL_TO_MARK[label]


# Case classes: how a word is spelled, predicted beside its mark by models with a
# case head and applied by ``punct restore --capitalize``. MIXED is any other
# spelling ("iPhone", "McDonald"): the exact form comes from a lexicon of the
# mixed spellings seen in training, kept with the model.
LOWER = "LOWER"
CAP = "CAP"
UPPER = "UPPER"
MIXED = "MIXED"
#: All case classes, in the order used for model outputs.
CASES: tuple[str, ...] = (LOWER, CAP, UPPER, MIXED)
CASE_TO_ID: dict[str, int] = {c: i for i, c in enumerate(CASES)}


def case_of(spelling: str) -> str:
    """The case class of a written word: LOWER ("rate", "3d", "%": no capital), CAP
    ("Rate", "I", "Q4": only the first letter is a capital), UPPER ("IBM", "U.S.": two
    or more letters, all capitals), MIXED otherwise ("iPhone", "McDonald", "O'Brien")."""
    letters = [c for c in spelling if c.isalpha()]
    if not letters or not any(c.isupper() for c in letters):
        return LOWER
    if all(c.isupper() for c in letters):
        return UPPER if len(letters) > 1 else CAP
    if letters[0].isupper() and not any(c.isupper() for c in letters[1:]):
        return CAP
    return MIXED


def apply_case(word: str, case: str, mixed: Mapping[str, str] | None = None) -> str:
    """``word`` spelled in case class ``case``; MIXED takes the spelling the lexicon
    ``mixed`` (lower-case form -> spelling) gives, else leaves the word as it is."""
    if case == LOWER:
        return word.lower()
    if case == UPPER:
        return word.upper()
    if case == CAP:
        lower = word.lower()
        for i, c in enumerate(lower):
            if c.isalpha():
                return lower[:i] + c.upper() + lower[i + 1:]
        return lower
    if case == MIXED:
        return (mixed or {}).get(word.lower(), word)
    raise ValueError(f"unknown case class {case!r} (expected one of {' '.join(CASES)})")
