"""A folder of word-level files (one recording a file) read as one set of utterances."""
import pytest

from punct.bin import score
from punct.errors import PunctError
from punct.io import detect_format, read_any


def _tsv(path, pairs):
    path.write_text("".join(f"{w}\t{lab}\n" for w, lab in pairs), encoding="utf-8")


def test_a_folder_is_one_utterance_a_file_and_scores_against_another(tmp_path, capsys):
    ref, hyp = tmp_path / "ref", tmp_path / "hyp"
    ref.mkdir()
    hyp.mkdir()
    _tsv(ref / "call2.tsv", [("so", "COMMA"), ("we", "O"), ("grew", "PERIOD")])
    _tsv(ref / "call1.tsv", [("is", "O"), ("it", "QUESTION")])
    (ref / "README.md").write_text("not a word file\n")
    _tsv(hyp / "call1.tsv", [("is", "O"), ("it", "QUESTION")])
    _tsv(hyp / "call2.tsv", [("so", "O"), ("we", "O"), ("grew", "PERIOD")])
    assert detect_format(ref) == "folder"
    utts = read_any(ref)
    assert [u.id for u in utts] == ["call1", "call2"] and [w.text for w in utts[1].words] == ["so", "we", "grew"]
    assert score.main([str(ref), str(hyp), "--json"]) == 0
    import json

    d = json.loads(capsys.readouterr().out)
    assert d["counts"]["slots"] == 5 and d["overall"]["tp"] == 2 and d["overall"]["fn"] == 1


def test_a_file_of_several_recordings_gives_stem_slash_id(tmp_path):
    (tmp_path / "a.ctm").write_text("rec1 1 0.0 0.5 hello\nrec2 1 0.0 0.5 there\n", encoding="utf-8")
    assert sorted(u.id for u in read_any(tmp_path)) == ["a/rec1", "a/rec2"]


def test_a_data_directory_is_still_a_data_directory(tmp_path):
    (tmp_path / "text").write_text("u1 hello there\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    assert detect_format(tmp_path) == "datadir"


def test_a_folder_of_two_formats_is_refused(tmp_path):
    _tsv(tmp_path / "call1.tsv", [("so", "O")])
    (tmp_path / "notes.txt").write_text("Hello there.\n")
    with pytest.raises(PunctError, match=r"must hold one format, this one has 1 iwslt \(call1.tsv\), 1 text"):
        read_any(tmp_path)


def test_two_files_of_one_recording_are_refused(tmp_path):
    _tsv(tmp_path / "call1.tsv", [("so", "O")])
    _tsv(tmp_path / "call1.iwslt", [("so", "O")])
    with pytest.raises(PunctError, match="two files give utterance 'call1'"):
        read_any(tmp_path)


def test_two_files_that_hold_one_recording_are_refused(tmp_path):
    # the same recording id in two CTMs would be decoded as one stream, its times going back
    (tmp_path / "a.ctm").write_text("call1 A 0.0 0.5 hello\ncall1 A 0.6 0.4 there\n", encoding="utf-8")
    (tmp_path / "b.ctm").write_text("call1 A 0.0 0.5 hello\n", encoding="utf-8")
    with pytest.raises(PunctError, match="a.ctm and b.ctm both hold recording 'call1' channel A"):
        read_any(tmp_path)
    (tmp_path / "b.ctm").write_text("call1 B 0.0 0.5 hello\n", encoding="utf-8")  # another channel: fine
    assert sorted(u.id for u in read_any(tmp_path)) == ["a", "b"]
