"""punct.io.text: plain text and Kaldi text read as utterances and written back, errors, the
format told from the file, unmarked words as text only where a command says so."""
import pytest

from punct.errors import PunctError
from punct.io import detect_format, read_any, read_input, write_any
from punct.io import text
from punct.io.writer import render_text
from punct.text.words import Utterance, Word


def test_plain_text_lines_are_utterances(tmp_path):
    f = tmp_path / "talk.txt"
    f.write_text("Hello, world. We're in the U.S.!\n\nIs it 10,000 people?\n", encoding="utf-8")
    utts = text.read(f)
    assert [u.id for u in utts] == ["talk-000001", "talk-000003"]
    assert [(w.text, w.label) for w in utts[0].words] == [
        ("hello", "COMMA"), ("world", "PERIOD"), ("we", "O"), ("'re", "O"), ("in", "O"), ("the", "O"), ("us", "PERIOD")]
    assert utts[1].texts == ["is", "it", "10,000", "people"] and utts[1].labels[-1] == "QUESTION"


def test_kaldi_text_punct_with_ids(tmp_path):
    f = tmp_path / "text.punct"
    # what the decoder writes: words already tokenized (clitics split off), sorted ids
    f.write_text("utt1 it 's fine, do n't worry.\nutt2\nutt3 mr. smith?\n", encoding="utf-8")
    utts = read_any(f)
    assert [u.id for u in utts] == ["utt1", "utt2", "utt3"]
    assert [(w.text, w.label) for w in utts[0].words] == [
        ("it", "O"), ("'s", "O"), ("fine", "COMMA"), ("do", "O"), ("n't", "O"), ("worry", "PERIOD")]
    assert utts[1].words == []
    assert [(w.text, w.label) for w in utts[2].words] == [("mr.", "O"), ("smith", "QUESTION")]


def test_round_trip_kaldi_and_plain(tmp_path):
    utts = [Utterance("b", [Word("so", "COMMA"), Word("what", "QUESTION")]),
            Utterance("a", [Word("it", "O"), Word("'s", "O"), Word("ok", "PERIOD")])]
    f = tmp_path / "text.punct"
    write_any(utts, f)
    assert f.read_text() == "a it 's ok.\nb so, what?\n"
    back = text.read(f)
    assert [(u.id, u.texts, u.labels) for u in back] == [(u.id, u.texts, u.labels) for u in sorted(utts, key=lambda u: u.id)]
    g = tmp_path / "plain.txt"
    write_any(utts, g)
    assert g.read_text() == "so, what?\nit 's ok.\n"
    assert [u.labels for u in text.read(g)] == [["COMMA", "QUESTION"], ["O", "O", "PERIOD"]]


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("text.punct", "a hi.\na there.\n", r"text\.punct:2: duplicate utterance id 'a' \(first on line 1\)"),
        ("text.punct", "a hi.\n\nb x\n", r"text\.punct:2: empty line"),
        ("empty.txt", "", r"empty\.txt: no words"),
        ("marks.txt", "... !\n", r"marks\.txt: no words"),
    ],
)
def test_errors(tmp_path, name, content, message):
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    with pytest.raises(PunctError, match=message):
        text.read(f)


def test_sniff(tmp_path):
    assert text.sniff("Hello there. How are you?\n")
    assert not text.sniff("i\tO\n")
    assert not text.sniff("token|speaker|ts|endTs|punctuation\nhi|1||||\n")
    assert not text.sniff('{"words": ["a."]}')
    assert not text.sniff("rec 1 0.50 0.20 hello 0.9\n")
    f = tmp_path / "notes"
    f.write_text("Well, yes.\n")
    assert detect_format(f) == "text"


def test_unmarked_words_are_text_only_where_a_command_says_so(tmp_path):
    """Words without marks look like no format: an error naming the option that gives the format,
    unless the command has a fallback (punct restore: plain text)."""
    f = tmp_path / "words"
    f.write_text("so how are we doing today\n")
    with pytest.raises(PunctError, match=r"cannot tell the format .*--hyp-format"):
        detect_format(f, "--hyp-format")
    assert detect_format(f, "--input-format", fallback="text") == "text"
    (tmp_path / "empty").write_text("")
    with pytest.raises(PunctError, match="empty file"):
        detect_format(tmp_path / "empty", fallback="text")


def test_plain_text_in_and_out(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("GOOD morning\nladies, and gentlemen\n\n")
    (u,) = read_input(p)
    assert [w.text for w in u.words] == ["good", "morning", "ladies", "and", "gentlemen"]
    u.words[1].label = "PERIOD"
    u.words[4].label = "QUESTION"
    assert render_text([u, Utterance("v", [Word("ok", "PERIOD")])]) == "GOOD morning.\nladies, and gentlemen?\n\nok.\n"
    (tmp_path / "e.txt").write_text("\n")
    with pytest.raises(PunctError, match="empty input"):
        read_input(tmp_path / "e.txt")


def test_plain_text_keeps_the_spelling_and_takes_marks_as_labels_a_dash_on_the_word_before(tmp_path):
    p = tmp_path / "talk.txt"
    p.write_text("Hello, NASA\n-- and so...\n")
    (u,) = text.read_input(p)
    assert u.id == "talk" and [(w.text, w.written, w.label) for w in u.words] == [
        ("hello", "Hello", "COMMA"), ("nasa", "NASA", "COMMA"), ("and", None, "O"), ("so", None, "PERIOD")]
