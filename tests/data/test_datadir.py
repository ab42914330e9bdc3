"""punct.data.datadir: data directories written and read back sorted (text, labels, word times,
speakers, written spellings), malformed files named by file and line, validation."""
import pytest

from punct.data.datadir import load_utterances, validate_datadir, write_datadir

from punct.errors import PunctError
from punct.data.tables import read_table
from punct.text.words import Utterance, Word


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


def _timed_utts():
    return [
        Utterance("a", [Word("so", "O", 0.5, 0.7, speaker="A"), Word("what", "QUESTION", speaker="A"),
                        Word("well", "COMMA", 1.9, 2.2, speaker="B")]),
        Utterance("b", [Word("hi", "O"), Word("there", "PERIOD")]),  # no times, no speakers at all
    ]


def test_partial_word_times_and_speakers_round_trip(tmp_path):
    write_datadir(tmp_path, _timed_utts())
    assert (tmp_path / "word_times").read_text() == "a 0.500,0.700 - 1.900,2.200\nb - -\n"
    assert (tmp_path / "word_speakers").read_text() == "a A A B\nb - -\n"
    assert validate_datadir(tmp_path) == 5
    a, b = load_utterances(tmp_path)
    assert [(w.start, w.end) for w in a.words] == [(0.5, 0.7), (None, None), (1.9, 2.2)]
    assert [w.speaker for w in a.words] == ["A", "A", "B"] and [w.speaker for w in b.words] == [None, None]
    assert all(w.start is None for w in b.words)


def test_no_times_no_speakers_no_files(tmp_path):
    write_datadir(tmp_path, _utts())
    assert not (tmp_path / "word_times").exists() and not (tmp_path / "word_speakers").exists()


def test_a_word_with_one_time_only_is_untimed(tmp_path):
    write_datadir(tmp_path, [Utterance("a", [Word("x", start=1.0), Word("y", start=1.0, end=1.5)])])
    assert (tmp_path / "word_times").read_text() == "a - 1.000,1.500\n"


@pytest.mark.parametrize(
    "content,message",
    [
        ("a 0.5,0.7 - 1.9\nb - -\n", r"word_times:1: word 3 of 'a': bad time '1.9' \(expected START,END"),
        ("a 0.5,0.7 - x,2\nb - -\n", r"word_times:1: word 3 of 'a': bad time 'x,2'"),
        ("a 0.5,0.4 - -\nb - -\n", r"word_times:1: word 1 of 'a': bad time '0.5,0.4' \(end before start\)"),
        ("a nan,0.7 - -\nb - -\n", r"word_times:1: .*not a finite number"),
        ("a -1,0.7 - -\nb - -\n", r"word_times:1: .*negative start"),
        ("a 0.5,0.7 -\nb - -\n", r"word_times:1: 2 times for 3 words of 'a'"),
        ("a 0.5,0.7 - -\n", r"word_times: key set differs from text"),
    ],
)
def test_word_times_errors_name_file_line_and_word(tmp_path, content, message):
    write_datadir(tmp_path, _timed_utts())
    (tmp_path / "word_times").write_text(content)
    with pytest.raises(PunctError, match=message):
        validate_datadir(tmp_path)


def test_word_speakers_count_is_checked(tmp_path):
    write_datadir(tmp_path, _timed_utts())
    (tmp_path / "word_speakers").write_text("a A B\nb - -\n")
    with pytest.raises(PunctError, match=r"word_speakers:1: 2 speakers for 3 words of 'a'"):
        validate_datadir(tmp_path)


def test_a_byte_order_mark_is_not_part_of_the_first_key(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "text").write_bytes(b"\xef\xbb\xbfu1 a b\r\nu2 c\r\n")  # as a Windows editor saves it
    (d / "labels").write_bytes(b"\xef\xbb\xbfu1 O PERIOD\nu2 QUESTION\n")
    assert [(u.id, u.texts, u.labels) for u in load_utterances(d)] == [("u1", ["a", "b"], ["O", "PERIOD"]),
                                                                      ("u2", ["c"], ["QUESTION"])]


@pytest.mark.parametrize("name,content,message", [
    ("segments", "a r1 0 5\nb r1 abc 3\n", r"segments:2: segment start 'abc' is not a number"),
    ("segments", "a r1 0 5\nb r1 4 nan\n", r"segments:2: segment end 'nan' is not a finite number"),
    ("segments", "a r1 0 5\nb r1 4 -3\n", r"segments:2: bad segment times 4 -3 \(need 0 <= start < end, or end -1\)"),
    ("segments", "a r1 5 5\nb r1 5 6\n", r"segments:1: bad segment times 5 5"),
    ("segments", "b r1 0 5\na r1 5 6\n", r"segments:2: key 'a' out of order"),
    ("segments", "a r1 0 5\nb r1 4\n", r"segments:2: expected '<utterance> <recording> <start> <end>', got 3 fields"),
    ("segments", "a r1 0 5\nb r2 4 -1\n", r"segments: recording 'r2' of utterance 'b' has no wav.scp entry"),
    ("segments", "a r1 0 5\n", r"segments: key set differs from text \(e.g. 'b'\)"),
    ("segments", "a r1 0 5\nb r1 5 6\nc r1 6 7\n", r"segments: key set differs from text \(e.g. 'c'\)"),
    ("utt2spk", "a s1\nb s1 s2\n", r"utt2spk:2: expected '<utterance> <speaker>', got 3 fields"),
])
def test_segments_and_utt2spk_lines_are_checked(tmp_path, name, content, message):
    write_datadir(tmp_path, _utts())
    (tmp_path / "wav.scp").write_text("r1 /audio/r1.wav\n")
    (tmp_path / "segments").write_text("a r1 0 5\nb r1 5 -1\n")  # end -1: to the end of the recording
    validate_datadir(tmp_path)
    (tmp_path / name).write_text(content)
    with pytest.raises(PunctError, match=message):
        validate_datadir(tmp_path)


def test_validate_reads_each_table_once(tmp_path, monkeypatch):
    """validate_datadir reads each file of the directory once, for the utterances and the checks."""
    import punct.data.datadir as datadir

    write_datadir(tmp_path, [Utterance(u.id, u.words, speaker=f"s{u.id}") for u in _timed_utts()])
    reads = []

    def counting(path, *args, **kw):
        reads.append(path.name)
        return read_table(path, *args, **kw)

    monkeypatch.setattr(datadir, "read_table", counting)
    assert validate_datadir(tmp_path) == 5
    assert sorted(reads) == sorted(["text", "labels", "word_times", "word_speakers", "utt2spk", "spk2utt"])


def test_written_spelling_round_trips_only_when_it_differs(tmp_path):
    u = Utterance("u1", [Word("i", label="COMMA", written="I"), Word("met", written="met"),
                         Word("iphone", label="PERIOD", written="iPhone")])
    write_datadir(tmp_path / "a", [u])
    assert (tmp_path / "a" / "written").read_text() == "u1 I met iPhone\n"
    got = load_utterances(tmp_path / "a")[0]
    assert [w.written or w.text for w in got.words] == ["I", "met", "iPhone"] and [w.text for w in got.words] == ["i", "met", "iphone"]
    write_datadir(tmp_path / "b", [Utterance("u1", [Word("met", label="PERIOD", written="met")])])
    assert not (tmp_path / "b" / "written").exists()


def test_written_must_spell_the_text_word(tmp_path):
    write_datadir(tmp_path, [Utterance("u1", [Word("i", label="PERIOD", written="I")])])
    (tmp_path / "written").write_text("u1 You\n")
    with pytest.raises(PunctError, match=r"written:1: .*'You' is not a spelling of 'i'"):
        load_utterances(tmp_path)
    (tmp_path / "written").write_text("u1 I am\n")
    with pytest.raises(PunctError, match=r"written:1: 2 spellings for 1 words"):
        load_utterances(tmp_path)
