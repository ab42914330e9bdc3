"""The label inventory and the mapping of written marks onto it.

A label belongs to a word and names the mark that follows it. This module is
the only place that lists the labels; everything else imports them from here.
"""
from __future__ import annotations

from typing import Mapping

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


def stronger(a: str, b: str) -> str:
    """Return the stronger of two labels (QUESTION > PERIOD > COMMA > O)."""
    return a if _STRENGTH[a] >= _STRENGTH[b] else b


def mark_of(label: str) -> str:
    """The character written for ``label`` ('' for O)."""
    return LABEL_TO_MARK[label]
