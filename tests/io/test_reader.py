"""punct.io.reader: every input read into utterances (plain text a line each, the words as they
were spelled), a data directory's segments and reco2file_and_channel applied."""
from __future__ import annotations

import pytest

from punct.errors import PunctError
from punct.io.reader import read_input
from punct.io.writer import render_text
from punct.text.words import Utterance, Word


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
    from punct.io.reader import read_plain_text

    p = tmp_path / "talk.txt"
    p.write_text("Hello, NASA\n-- and so...\n")
    (u,) = read_plain_text(p)
    assert u.id == "talk" and [(w.text, w.written, w.label) for w in u.words] == [
        ("hello", "Hello", "COMMA"), ("nasa", "NASA", "COMMA"), ("and", None, "O"), ("so", None, "PERIOD")]


def data_dir(d, segments=None, reco2file=None):
    from punct.data.datadir import write_datadir

    write_datadir(d, [Utterance(u, [Word(w) for w in text.split()]) for u, text in
                      (("a-1", "good morning"), ("a-2", "welcome"), ("b-1", "thank you"))])
    if segments is not None:
        (d / "segments").write_text(segments)
    if reco2file is not None:
        (d / "reco2file_and_channel").write_text(reco2file)
    return d


def test_a_data_directory_is_read_in_recordings_and_time_order(tmp_path):
    d = data_dir(tmp_path / "d", segments="a-1 call 5.0 6.0\na-2 call 1.0 2.0\nb-1 other 0.0 1.0\n")
    utts = read_input(d)
    assert [(u.id, u.recording) for u in utts] == [("a-2", "call"), ("a-1", "call"), ("b-1", "other")]
    plain = read_input(data_dir(tmp_path / "p"))
    assert [(u.id, u.recording) for u in plain] == [("a-1", None), ("a-2", None), ("b-1", None)]


def test_reco2file_and_channel_names_the_file_and_channel_of_each_recording(tmp_path):
    d = data_dir(tmp_path / "d", segments="a-1 sw1-A 0 1\na-2 sw1-A 1 2\nb-1 sw1-B 0 1\n",
                 reco2file="sw1-A sw1 A\nsw1-B sw1 B\n")
    assert {(u.recording, u.channel) for u in read_input(d)} == {("sw1", "A"), ("sw1", "B")}
    (d / "reco2file_and_channel").write_text("sw1-A sw1 A\n")
    with pytest.raises(PunctError, match="recording 'sw1-B' of utterance 'b-1' is not in reco2file_and_channel"):
        read_input(d)
    (d / "reco2file_and_channel").write_text("sw1-A sw1\n")
    with pytest.raises(PunctError, match=r"reco2file_and_channel:1: expected '<recording> <file> <channel>', found 2"):
        read_input(d)


def test_a_segments_file_goes_with_a_ctm_only(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("hello\n")
    with pytest.raises(PunctError, match="a segments file goes with a CTM input, not text"):
        read_input(p, segments=tmp_path / "segments")
