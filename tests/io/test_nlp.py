"""punct.io.nlp: Earnings-21 and -22 .nlp files (references, engine outputs, force-aligned) read
and written back, errors named by file and line, the format told from the file."""
import logging

import pytest

from punct.errors import PunctError
from punct.io import detect_format, read_any
from punct.io import nlp

E21_REF = (
    "token|speaker|ts|endTs|punctuation|case|tags|wer_tags\r\n"
    "Good|0||||UC|[]|[]\r\n"
    "morning|0|||,|LC|[]|['4']\r\n"
    "we're|0||||LC|[]|[]\r\n"
    "at|0||||LC|[]|[]\r\n"
    "<inaudible>|0|||.|LC|[]|[]\r\n"
    "U.S.|1|||…|UC|[]|[]\r\n"
    "the-|1||||LC|[]|[]\r\n"
    "20%|1|||?|CA|[]|[]\r\n"
    "&|1|||;|LC|[]|[]\r\n"
    "burden |1|||:|LC|[]|[]\r\n"
)

ENGINE = (
    "token|speaker|ts|endTs|punctuation|case|tags\n"
    "Good|1|3.24|3.37|||\n"
    "20|1|3.37|3.63|%||\n"
    "up|1|3.7|3.9|%.||\n"
    "****.|1|4.0|4.2|||\n"
    "'s|UU|4.2|4.3|!||\n"
)

E22 = (
    "token|speaker|ts|endTs|punctuation|prepunctuation|case|tags|oldTs|oldEndTs|ali_comment\n"
    "Thank|2|1.5|1.7||||[]|||\n"
    "you|2|||–||LC|[]|||del\n"
    "all|2|2.25|2.5|-||LC|[]|1.0|2.0|sub(al)\n"
)


def test_earnings21_reference(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    f = tmp_path / "4320211.nlp"
    f.write_bytes(E21_REF.encode("utf-8"))
    (u,) = nlp.read(f)
    assert u.id == "4320211"
    got = [(w.text, w.label, w.speaker) for w in u.words]
    assert got == [
        ("good", "O", "0"), ("morning", "COMMA", "0"), ("we're", "O", "0"),
        ("at", "PERIOD", "0"),  # the tag's period goes to the word before it
        ("u.s.", "PERIOD", "1"),  # the ellipsis is a PERIOD
        ("the-", "O", "1"), ("20%", "QUESTION", "1"), ("&", "PERIOD", "1"), ("burden", "COMMA", "1"),
    ]
    assert all(w.start is None and w.end is None for w in u.words)
    if hasattr(u.words[0], "written"):
        assert u.words[0].written == "Good" and u.words[1].written is None
    assert "dropped 1 non-speech tags" in caplog.text


def test_engine_output_percent_and_masked_word(tmp_path):
    f = tmp_path / "out.nlp"
    f.write_text(ENGINE, encoding="utf-8")
    (u,) = nlp.read(f)
    assert [(w.text, w.label) for w in u.words] == [
        ("good", "O"), ("20%", "O"), ("up%", "PERIOD"), ("****", "PERIOD"), ("'s", "PERIOD")]
    assert (u.words[0].start, u.words[0].end) == (3.24, 3.37)
    assert u.words[4].speaker == "UU"


def test_earnings22_force_aligned(tmp_path):
    f = tmp_path / "call.aligned.nlp"
    f.write_text(E22, encoding="utf-8")
    (u,) = nlp.read(f)
    assert u.id == "call.aligned"
    assert [(w.text, w.label, w.start, w.end) for w in u.words] == [
        ("thank", "O", 1.5, 1.7), ("you", "COMMA", None, None), ("all", "COMMA", 2.25, 2.5)]


def test_round_trip(tmp_path):
    f = tmp_path / "a.nlp"
    f.write_text(ENGINE, encoding="utf-8")
    utts = nlp.read(f)
    g = tmp_path / "b.nlp"
    nlp.write(utts, g)
    lines = g.read_text().splitlines()
    assert lines[0] == "token|speaker|ts|endTs|punctuation|case|tags"
    assert lines[2] == "20%|1|3.37|3.63|||"
    back = nlp.read(g)
    assert [(w.text, w.label, w.start, w.end, w.speaker) for w in back[0].words] == \
        [(w.text, w.label, w.start, w.end, w.speaker) for w in utts[0].words]


@pytest.mark.parametrize(
    "content,message",
    [
        ("token|speaker|ts|endTs|punctuation|case|tags\nGood|1|3.2|3.4|||\nmorning|1|3.4|,||\n",
         r"x\.nlp:3: expected 7 '\|'-separated fields as in the header, got 6"),
        ("token|speaker|ts|endTs|punctuation|case|tags\nGood|1|soon|3.4|||\n", r"x\.nlp:2: ts 'soon' is not a number"),
        ("word|speaker\nGood|1\n", r"x\.nlp:1: expected a header naming the columns 'token' and 'punctuation'"),
        ("", r"x\.nlp:1: empty file"),
        ("token|speaker|ts|endTs|punctuation|case|tags\n", r"x\.nlp: no words"),
    ],
)
def test_errors_name_file_and_line(tmp_path, content, message):
    f = tmp_path / "x.nlp"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(PunctError, match=message):
        nlp.read(f)


def test_sniff_and_detect(tmp_path):
    assert nlp.sniff(E22) and nlp.sniff(ENGINE)
    assert not nlp.sniff("token\tO\n")
    f = tmp_path / "noext"
    f.write_text(ENGINE)
    assert detect_format(f) == "nlp"
    (tmp_path / "whatever.nlp").write_text("not even nlp\n")
    assert detect_format(tmp_path / "whatever.nlp") == "nlp"  # the name decides before the content


def test_real_earnings21_reference(corpus_dir):
    d = corpus_dir / "earnings21" / "transcripts" / "nlp_references"
    files = sorted(d.glob("*.nlp"))
    if not files:
        pytest.skip("no Earnings-21 references")
    (u,) = read_any(files[0])
    assert len(u.words) > 1000
    assert not any(w.text.startswith("<") for w in u.words)
    assert {"COMMA", "PERIOD"} <= set(u.labels)
