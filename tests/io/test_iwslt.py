"""punct.io.iwslt: the IWSLT format read (labels, empty words keeping the stronger mark) and
written back, errors named by file and line, the format told from the file."""
import logging

import pytest

from punct.errors import PunctError
from punct.io import detect_format, read_any, write_any
from punct.io import iwslt
from punct.text.words import Utterance, Word


def test_read_labels_and_empty_words(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    f = tmp_path / "dev.tsv"
    # the empty word gives its COMMA to "well"; the second empty word (O) changes nothing
    f.write_text("well\tO\n\tCOMMA\nwe\tO\n're\tO\nhere\tPERIOD\n\tO\n", encoding="utf-8")
    (u,) = iwslt.read(f)
    assert u.id == "dev"
    assert [(w.text, w.label) for w in u.words] == [("well", "COMMA"), ("we", "O"), ("'re", "O"), ("here", "PERIOD")]
    assert "2 lines with an empty word" in caplog.text


def test_empty_word_keeps_the_stronger_mark(tmp_path):
    f = tmp_path / "a.tsv"
    f.write_text("why\tQUESTION\n\tCOMMA\n", encoding="utf-8")
    assert iwslt.read(f)[0].words[0].label == "QUESTION"


def test_round_trip(tmp_path):
    utts = [Utterance("t1", [Word("so", "COMMA"), Word("what", "QUESTION")]), Utterance("t2", [Word("ok", "PERIOD")])]
    f = tmp_path / "out.iwslt"
    write_any(utts, f)
    assert f.read_text() == "so\tCOMMA\nwhat\tQUESTION\nok\tPERIOD\n"
    (u,) = read_any(f)
    assert u.id == "out" and u.labels == ["COMMA", "QUESTION", "PERIOD"]


@pytest.mark.parametrize(
    "content,message",
    [
        ("a\tO\nb\tEXCLAIM\n", r"x\.tsv:2: unknown label 'EXCLAIM'"),
        ("a\tO\nb O\n", r"x\.tsv:2: expected 'word<TAB>LABEL', got 0 tabs"),
        ("a\tO\tO\n", r"x\.tsv:1: expected 'word<TAB>LABEL', got 2 tabs"),
        ("a\t\n", r"x\.tsv:1: unknown label ''"),
        ("", r"x\.tsv: no words"),
        ("\tCOMMA\n", r"x\.tsv: no words"),
    ],
)
def test_errors_name_file_and_line(tmp_path, content, message):
    f = tmp_path / "x.tsv"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(PunctError, match=message):
        iwslt.read(f)


def test_sniff_and_detect(tmp_path):
    assert iwslt.sniff("i\tO\n'm\tO\nhere\tPERIOD\n")
    assert not iwslt.sniff("i\tO\nhello world.\n")
    assert not iwslt.sniff("token|speaker|ts\n")
    f = tmp_path / "test2011"
    f.write_text("i\tO\n'm\tPERIOD\n")
    assert detect_format(f) == "iwslt"
