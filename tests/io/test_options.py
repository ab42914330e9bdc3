"""punct.io.options.WriteOptions: the documented forms by default, every choice and limit checked
when it is made (not when a writer meets it), and the subtitle limits the cue writers read."""
from __future__ import annotations

import dataclasses

import pytest

from punct.io.options import BRACKETED, CTM_MARKS, DATADIR_TEXT, TEXTGRID_OVERLAPS, WriteOptions


def test_the_defaults_are_the_documented_forms():
    o = WriteOptions()
    assert (o.ctm_marks, o.bracketed, o.datadir_text, o.textgrid_overlaps) == ("comment", "drop", "spelling", "move")
    assert (o.ctm_marks, o.bracketed, o.datadir_text, o.textgrid_overlaps) == tuple(
        c[0] for c in (CTM_MARKS, BRACKETED, DATADIR_TEXT, TEXTGRID_OVERLAPS))
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.ctm_marks = "glued"


@pytest.mark.parametrize("field,value", [("ctm_marks", "inline"), ("bracketed", "keep"), ("datadir_text", "marks"),
                                         ("textgrid_overlaps", "drop")])
def test_an_unknown_form_is_refused_naming_the_choices(field, value):
    with pytest.raises(ValueError, match=f"{field} must be one of .*, not '{value}'"):
        WriteOptions(**{field: value})


@pytest.mark.parametrize("kw,message", [({"max_line_chars": 0}, "subtitle limits must be positive"),
                                        ({"max_cue_seconds": 0.0}, "subtitle limits must be positive"),
                                        ({"min_cue_seconds": 8.0}, "minimum cue duration must be between"),
                                        ({"min_cue_seconds": -1.0}, "minimum cue duration must be between")])
def test_subtitle_limits_are_checked(kw, message):
    with pytest.raises(ValueError, match=message):
        WriteOptions(**kw)


def test_the_cue_limits_are_the_options():
    lim = WriteOptions(max_line_chars=32, max_lines=1, max_cue_seconds=5.0, min_cue_seconds=1.0).cue_limits
    assert (lim.max_line_chars, lim.max_lines, lim.max_seconds, lim.min_seconds) == (32, 1, 5.0, 1.0)
