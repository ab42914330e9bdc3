"""Small data classes for words and utterances, shared by readers, models and scorers."""
from __future__ import annotations

from dataclasses import dataclass, field

from punct.text.labels import O


@dataclass
class Word:
    """One word; ``label`` is the mark that follows it (see punct.text.labels).

    Times are in seconds from the start of the recording (None when unknown).
    """

    text: str
    label: str = O
    start: float | None = None
    end: float | None = None
    conf: float | None = None
    speaker: str | None = None
    #: The word as the input spelled it (``GOOD``, ``Hello``) when that differs
    #: from ``text`` (the lower-cased form models and scorers use); writers of
    #: ASR formats write it back. None: the spelling is ``text``.
    written: str | None = None
    #: Start, duration and the fields after the word (confidence, and NIST's type and speaker)
    #: as a CTM wrote them (``3.2400`` ``0.1500`` ``1``, or ``NA lex NA``; None without), which
    #: ``punct restore``'s CTM writes back while ``start``, ``end`` and ``conf`` hold their values.
    #: None: read from another format.
    raw_times: tuple[str, str, str | None] | None = field(default=None, compare=False, repr=False)

    @property
    def duration(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return self.end - self.start


@dataclass
class Utterance:
    """A sequence of words with an id (a talk, a call, a Kaldi utterance)."""

    id: str
    words: list[Word] = field(default_factory=list)
    recording: str | None = None
    channel: str = "1"
    speaker: str | None = None

    @property
    def texts(self) -> list[str]:
        return [w.text for w in self.words]

    @property
    def labels(self) -> list[str]:
        return [w.label for w in self.words]

    def __len__(self) -> int:
        return len(self.words)


def is_nonspeech(w: Word) -> bool:
    """True for a recognizer's token of a non-speech event: ``[...]`` (``[noise]``,
    ``[laughter]``, ``[vocalized-noise]``), ``<...>`` other than ``<unk>`` (``<sil>``,
    ``<noise>``, ``<spoken_noise>``, ``<eps>``), and ``!sil``."""
    t = (w.written or w.text).lower()
    if len(t) >= 3 and (t[0], t[-1]) in (("[", "]"), ("<", ">")):
        return t != "<unk>"
    return t == "!sil"
