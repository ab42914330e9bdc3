"""Choices of how punctuated words are written, shared by the writers and ``punct restore``.

One frozen dataclass, so the command line builds it once and every writer reads the
fields it needs (the CTM its marks form, the subtitle writers their limits, the data
directory its ``text`` form and the input directory whose Kaldi files it carries).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from punct.io.sentences import CueLimits

#: Forms of the marks in a CTM (``punct.io.ctm.write``):
#: ``comment``  the words as the input wrote them, each mark on a ``;; punct-mark`` line after its
#:              word: NIST sclite and sctk's ctmValidator.pl skip ``;;`` lines, so the CTM scores
#:              and validates as its input does, and punct reads the marks back;
#: ``glued``    the mark attached to its word (``quarter,``): readable, but sclite counts
#:              ``quarter,`` as another word than ``quarter`` and the validator rejects it;
#: ``none``     the words alone (the marks are lost).
CTM_MARKS = ("comment", "glued", "none")
#: Subtitle words in angle or square brackets (``<unk>``, ``[noise]``): ``drop`` leaves them out;
#: ``escape`` shows them (``[unk]`` in SubRip, which has no escape for ``<``; ``&lt;unk&gt;`` in WebVTT).
BRACKETED = ("drop", "escape")
#: A data directory's ``text``: ``spelling`` the words as the input spelled them (Kaldi's text,
#: without marks); ``punctuated`` with each word's mark attached (``morning,``), which
#: ``lhotse kaldi import`` and other readers of ``text`` take as the supervision's text.
DATADIR_TEXT = ("spelling", "punctuated")
#: what a TextGrid output does with words whose times overlap (punct.io.textgrid.write)
TEXTGRID_OVERLAPS = ("move", "tiers")


@dataclass(frozen=True)
class WriteOptions:
    """How ``punct restore`` writes its output (the defaults are the documented forms)."""

    ctm_marks: str = "comment"
    #: subtitle limits (punct.io.sentences.CueLimits); defaults: Netflix's English style guide
    max_line_chars: int = 42
    max_lines: int = 2
    max_cue_seconds: float = 7.0
    #: WebVTT: each word's start as an inline timestamp (``<00:00:03.390>word``)
    word_times: bool = True
    bracketed: str = "drop"
    datadir_text: str = "spelling"
    #: subtitles: seconds a short cue stays at least, where the next leaves room (CueLimits.min_seconds)
    min_cue_seconds: float = 5 / 6
    #: the input data directory, whose Kaldi files (wav.scp, segments, ...) a data directory output carries
    carry_from: Path | None = None
    #: the input TextGrid, whose other tiers and time span a TextGrid output keeps
    textgrid_from: Path | None = None
    #: TextGrid: a word overlapping the one before is moved (``move``) or put on another tier (``tiers``)
    textgrid_overlaps: str = "move"

    def __post_init__(self) -> None:
        for name, value, allowed in (("ctm_marks", self.ctm_marks, CTM_MARKS), ("bracketed", self.bracketed, BRACKETED),
                                     ("datadir_text", self.datadir_text, DATADIR_TEXT),
                                     ("textgrid_overlaps", self.textgrid_overlaps, TEXTGRID_OVERLAPS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        if self.max_line_chars < 1 or self.max_lines < 1 or not self.max_cue_seconds > 0:
            raise ValueError("subtitle limits must be positive")
        if not 0 <= self.min_cue_seconds <= self.max_cue_seconds:
            raise ValueError("the minimum cue duration must be between 0 and the maximum")

    @property
    def cue_limits(self) -> CueLimits:
        return CueLimits(max_line_chars=self.max_line_chars, max_lines=self.max_lines, max_seconds=self.max_cue_seconds,
                         min_seconds=self.min_cue_seconds)
