"""punct.io.kaldidir: a Kaldi data directory as an input of punct.io, its segments and
reco2file_and_channel applied; and the registry's entries, which check a path once."""
from __future__ import annotations

import pytest

from punct.errors import PunctError
from punct.io import read_input
from punct.text.words import Utterance, Word


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


def test_a_data_directory_with_a_ctm_is_read_as_that_ctm_and_scored_as_its_text(tmp_path):
    from punct.io import detect_format, read_any

    d = data_dir(tmp_path / "d")
    (d / "ctm").write_text("call 1 0.0 0.5 hello\ncall 1 0.6 0.9 there\n")
    assert detect_format(d) == "datadir"
    assert [[w.text for w in u.words] for u in read_input(d)] == [["hello", "there"]]
    assert [u.id for u in read_any(d)] == ["a-1", "a-2", "b-1"]


def test_every_entry_checks_its_path_once(tmp_path, monkeypatch):
    import punct.fsutil
    import punct.io
    from punct.io import read_any, read_hypothesis

    calls = []
    real = punct.fsutil.check_input

    def counted(path, *a, **k):
        calls.append(str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(punct.io, "check_input", counted)
    monkeypatch.setattr(punct.fsutil, "check_input", counted)
    d = data_dir(tmp_path / "d", segments="a-1 call 5.0 6.0\na-2 call 1.0 2.0\nb-1 other 0.0 1.0\n")
    t = tmp_path / "t.txt"
    t.write_text("hello there\n")
    for read in (read_input, read_any, lambda p: read_hypothesis(p, None, d)):
        for p in (d, t):
            calls.clear()
            read(p)
            assert calls == [str(p)]
    with pytest.raises(PunctError, match="input not found"):
        read_input(tmp_path / "missing.ctm")
    with pytest.raises(PunctError, match="is a directory, not a ctm file"):
        read_any(d, "ctm")
    with pytest.raises(PunctError, match="is a file, not a data directory"):
        read_input(t, "datadir")
