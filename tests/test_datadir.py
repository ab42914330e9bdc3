import pytest

from punct.datadir import load_utterances, read_table, validate_datadir, write_datadir
from punct.errors import PunctError
from punct.words import Utterance, Word


def _utts():
    return [
        Utterance("b", [Word("hi", "COMMA"), Word("there", "PERIOD")]),
        Utterance("a", [Word("so", "O"), Word("what", "QUESTION")], speaker="s1"),
    ]


def test_round_trip_sorted(tmp_path):
    write_datadir(tmp_path, _utts())
    assert (tmp_path / "text").read_text() == "a so what\nb hi there\n"
    assert (tmp_path / "labels").read_text() == "a O QUESTION\nb COMMA PERIOD\n"
    assert (tmp_path / "spk2utt").read_text() == "b b\ns1 a\n"
    assert validate_datadir(tmp_path) == 4
    utts = load_utterances(tmp_path)
    assert [u.id for u in utts] == ["a", "b"]
    assert utts[1].labels == ["COMMA", "PERIOD"]


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("labels", "a O QUESTION\nb COMMA\n", r"labels:2: 1 labels for 2 words"),
        ("labels", "a O EXCLAIM\nb COMMA PERIOD\n", r"labels:1: unknown label 'EXCLAIM'"),
        ("text", "b hi there\na so what\n", r"text:2: key 'a' out of order"),
        ("text", "a so what\na so what\n", r"text:2: duplicate key 'a'"),
        ("text", "a so what\n\nb hi there\n", r"text:2: empty line"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, name, content, message):
    write_datadir(tmp_path, _utts())
    (tmp_path / name).write_text(content)
    with pytest.raises(PunctError, match=message):
        validate_datadir(tmp_path)


def test_bad_utf8_and_key_mismatch(tmp_path):
    write_datadir(tmp_path, _utts())
    (tmp_path / "text").write_bytes(b"a so what\nb hi \xff\n")
    with pytest.raises(PunctError, match=r"text:2: line is not valid UTF-8"):
        read_table(tmp_path / "text")
    write_datadir(tmp_path, _utts())
    (tmp_path / "utt2spk").write_text("a s1\n")
    with pytest.raises(PunctError, match="utt2spk: key set differs"):
        validate_datadir(tmp_path)


def test_missing_dir(tmp_path):
    with pytest.raises(PunctError, match="data directory not found"):
        load_utterances(tmp_path / "nope")
