"""Table-driven tests of punct.text.textnorm against the IWSLT2011 test-set tokenization."""
from __future__ import annotations

import pytest

from punct.text.textnorm import normalize_written, strip_stage_notes, tokenize_punctuated, unescape_html


def show(words) -> str:
    """Words as 'w w/LABEL ...' (O omitted) for compact expectations."""
    return " ".join(w.text + ("" if w.label == "O" else "/" + w.label) for w in words)


CASES = [
    # contractions: 's 're 'm 'll n't split off; 've 'd stay attached
    ("We're sure it's John's.", "we 're sure it 's john 's/PERIOD"),
    ("I'm here, they'll come", "i 'm here/COMMA they 'll come"),
    ("I don't know, it isn't", "i do n't know/COMMA it is n't"),
    ("I can't and won't. Ain't it?", "i ca n't and wo n't/PERIOD ai n't it/QUESTION"),
    ("We've seen I'd say you'd", "we've seen i'd say you'd"),
    ("It\u2019s curly", "it 's curly"),
    ("o'clock the '90s students' books", "o'clock the '90s students books"),
    # hyphens and digits stay whole
    ("A self-aware, high-functioning 19-year-old", "a self-aware/COMMA high-functioning 19-year-old"),
    ("10,000 people, 2.5 million and 9/11 at 2:15", "10,000 people/COMMA 2.5 million and 9/11 at 2:15"),
    ("It costs $100. That's 50% off", "it costs $100/PERIOD that 's 50 percent off"),
    ("1,2,3 go", "1/COMMA 2/COMMA 3 go"),
    # abbreviations as in the test set
    ("Mr. Smith and Dr. Jones", "mr. smith and dr. jones"),
    ("in the U.S. military", "in the us/PERIOD military"),
    ("your I.Q., your", "your iq/PERIOD your"),
    ("at 2 p.m. on Sunday", "at 2 pm/PERIOD on sunday"),
    ("a U.S.-based firm", "a us-based firm"),
    # symbols
    ("R&D & AT&T", "r&d and at&t"),
    ('"Hello," she said.', "hello/COMMA she said/PERIOD"),
    ("#hashtag @user", "hashtag @user"),
    # several marks: the stronger wins
    ("really?! yes...", "really/QUESTION yes/PERIOD"),
    ("wait, -- no", "wait/COMMA no"),
    ("yes.) no", "yes/PERIOD no"),
    # dashes and other marks
    ("so -- anyway - right\u2014ok", "so/COMMA anyway/COMMA right/COMMA ok"),
    ("one: two; three! four", "one/COMMA two/PERIOD three/PERIOD four"),
    ("end.The next", "end/PERIOD the next"),
    # a leading mark has no word to attach to
    (", -- hello", "hello"),
    ("", ""),
    ("\u266b la la \u266b", "la la"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_tokenize_punctuated(text, expected):
    assert show(tokenize_punctuated(text)) == expected


def test_custom_mark_map():
    words = tokenize_punctuated("a! b", mark_map={"!": "QUESTION"})
    assert show(words) == "a/QUESTION b"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("You&#39;ve &quot;seen&quot; R&amp;D", "You've \"seen\" R&D"),
        ("double &amp;quot; escaped", 'double " escaped'),
        ("no entities", "no entities"),
    ],
)
def test_unescape_html(text, expected):
    assert unescape_html(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Funny. (Laughter) Next.", "Funny. Next."),
        ("Thanks. (Applause ends)", "Thanks."),
        ('(Music: "Mary Had a Little Lamb")', ""),
        ("(Audience: Yes.) Good.", "Good."),
        # longer than 6 words: speech in parentheses, kept without the brackets
        ("(and this is what I really wanted to say) ok", "and this is what I really wanted to say ok"),
        ("[unclear] the [the] cat", "the the cat"),
    ],
)
def test_strip_stage_notes(text, expected):
    assert " ".join(strip_stage_notes(text).split()) == expected


def test_normalize_written_pipeline():
    text = "It&#39;s a --\n(Laughter)\nOK, we&#39;re done (Applause)."
    assert show(normalize_written(text)) == "it 's a/COMMA ok/COMMA we 're done/PERIOD"
