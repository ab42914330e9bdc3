"""punct.io.ctm: CTM files read (fields, spelling, marks, NIST order, segments, the forms of other
tools) and written as they were read, every fault named by file and line."""
import logging
import random

import pytest

from punct.errors import PunctError
from punct.io import ctm, detect_format
from punct.io.sentences import punctuated
from punct.data.tables import Segment
from punct.text.words import Utterance, Word


def write(tmp_path, text, name="a.ctm"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_fields_spelling_and_marks(tmp_path):
    p = write(tmp_path, ";; a comment\n"
                        "rec1 A 0.50 0.20 GOOD 0.91\n"
                        "rec1 A 0.70 0.30 Morning, 1.00\n"
                        "\n"
                        "rec1 A 1.20 0.25 everyone.\n")
    (u,) = ctm.read(p)
    assert (u.id, u.recording, u.channel) == ("rec1", "rec1", "A")
    assert [w.text for w in u.words] == ["good", "morning", "everyone"]
    assert [w.written for w in u.words] == ["GOOD", "Morning", None]
    assert [w.label for w in u.words] == ["O", "COMMA", "PERIOD"]
    assert [(w.start, w.end) for w in u.words] == [(0.5, 0.7), (0.7, 1.0), (1.2, 1.45)]
    assert [w.conf for w in u.words] == [0.91, 1.0, None]
    assert detect_format(p) == "ctm"
    assert ctm.sniff(p.read_text()) and not ctm.sniff("hello world, this is text\n")


def test_files_and_channels_in_nist_order(tmp_path):
    p = write(tmp_path, "b 1 0.0 0.1 x\n"
                        "a B 0.0 0.1 y\n"
                        "a A 0.5 0.1 z\n"
                        "a A 0.0 0.1 w\n")
    utts = ctm.read(p)
    assert [(u.id, u.recording, u.channel) for u in utts] == [("a-A", "a", "A"), ("a-B", "a", "B"), ("b", "b", "1")]
    assert utts[0].texts == ["z", "w"]  # file order within a channel by default
    assert ctm.read(p, sort=True)[0].texts == ["w", "z"]


def test_unsorted_kept_with_warning_and_overlap_kept(tmp_path, caplog):
    p = write(tmp_path, "f 1 1.00 0.20 as\n"
                        "f 1 1.30 0.05 a\n"
                        "f 1 1.25 0.40 result\n"
                        "f 1 1.70 0.10 of\n")
    with caplog.at_level(logging.WARNING):
        (u,) = ctm.read(p)
    assert u.texts == ["as", "a", "result", "of"]  # the recognizer's order
    msgs = " ".join(r.getMessage() for r in caplog.records)
    assert "out of time order (first at line 3)" in msgs
    assert "start before the previous word ends" in msgs
    (u,) = ctm.read(p, sort=True)
    assert u.texts == ["as", "result", "a", "of"]  # NIST order: by start time


def test_a_confidence_outside_0_1_is_kept_with_a_warning(tmp_path, caplog):
    p = write(tmp_path, "f 1 0.00 0.20 so\n"
                        "f 1 0.30 0.20 we\n"
                        "f 1 0.60 0.20 grew 1.7\n"
                        "f 1 0.90 0.20 revenue -3.2\n"
                        "f 1 1.20 0.20 fast 0.93\n")
    with caplog.at_level(logging.WARNING):
        (u,) = ctm.read(p)
    assert [w.conf for w in u.words] == [None, None, 1.7, -3.2, 0.93]
    msgs = [r.getMessage() for r in caplog.records]
    assert any("2 confidence(s) of f channel 1 outside [0, 1] (first at line 3); kept as read" in m for m in msgs)
    caplog.clear()
    p.write_text("f 1 0.00 0.20 so 1\nf 1 0.30 0.20 we 0\n")
    with caplog.at_level(logging.WARNING):
        ctm.read(p)
    assert not caplog.records


@pytest.mark.parametrize("text,line,msg", [
    ("f 1 0.0 0.1 a\nf 1 zero 0.1 b\n", 2, "start time 'zero' is not a number"),
    ("f 1 0.0 0.1 a\nf 1 0.2 -0.1 b\n", 2, "negative duration"),
    ("f 1 -1 0.1 a\n", 1, "negative start time"),
    ("f 1 0.0 0.1\n", 1, "expected 5 or 6 fields"),
    ("f 1 0.0 0.1 a 0.9 extra\n", 1, "expected 5 or 6 fields"),
    ("f 1 0.0 0.1 a high\n", 1, "confidence 'high' is not a number"),
    ("f 1 0.0 nan a\n", 1, "not a finite number"),
])
def test_malformed_lines_name_the_line(tmp_path, text, line, msg):
    p = write(tmp_path, text)
    with pytest.raises(PunctError) as e:
        ctm.read(p)
    assert e.value.line == line and e.value.path == str(p)
    assert msg in e.value.message


def test_empty_and_bad_encoding(tmp_path):
    with pytest.raises(PunctError, match="empty CTM"):
        ctm.read(write(tmp_path, ";; only a comment\n"))
    p = tmp_path / "b.ctm"
    p.write_bytes(b"f 1 0 0.1 ok\nf 1 0.2 0.1 \xff\n")
    with pytest.raises(PunctError) as e:
        ctm.read(p)
    assert e.value.line == 2


def test_segments_make_times_absolute(tmp_path):
    (tmp_path / "segments").write_text("spk1-utt2 rec 10.0 12.0\nspk1-utt1 rec 2.5 4.0\n")
    p = write(tmp_path, "spk1-utt1 1 0.10 0.20 hello\nspk1-utt2 1 0.00 0.30 again\nspk1-utt2 1 0.40 0.20 there\n")
    utts = ctm.read(p, segments=tmp_path / "segments", utt2spk={"spk1-utt1": "spk1", "spk1-utt2": "spk1"})
    assert [u.id for u in utts] == ["spk1-utt1", "spk1-utt2"]
    assert all(u.recording == "rec" and u.speaker == "spk1" for u in utts)
    assert [(w.start, w.end) for w in utts[1].words] == [(10.0, 10.3), (10.4, 10.6)]
    assert utts[0].words[0].start == pytest.approx(2.6)
    bad = write(tmp_path, "nope 1 0.1 0.2 x\n", "bad.ctm")
    with pytest.raises(PunctError, match="not in segments") as e:
        ctm.read(bad, segments=tmp_path / "segments")
    assert e.value.line == 1
    # a data directory holding the ctm
    (tmp_path / "ctm").write_text(p.read_text())
    (tmp_path / "utt2spk").write_text("spk1-utt2 spk2\nspk1-utt1 spk1\n")  # beside a CTM, any order
    assert [u.speaker for u in ctm.read_datadir(tmp_path)] == ["spk1", "spk2"]
    for bad, message in (("spk1-utt1 spk1\nspk1-utt1 spk2\n", "utt2spk:2: duplicate key 'spk1-utt1'"),
                         ("spk1-utt1 spk1 extra\n", "utt2spk:1: expected 'utterance speaker', got 3 fields")):
        (tmp_path / "utt2spk").write_text(bad)
        with pytest.raises(PunctError, match=message):
            ctm.read_datadir(tmp_path)
    (tmp_path / "utt2spk").write_text("spk1-utt1 spk1\nspk1-utt2 spk1\n")
    assert [u.speaker for u in ctm.read_datadir(tmp_path)] == ["spk1", "spk1"]
    # a data directory holding a CTM of recordings (absolute times, as asr_decode writes it)
    # is cut back into the segments' utterances, with their speakers: the same utterances
    (tmp_path / "ctm").write_text("rec 1 2.60 0.20 hello\nrec 1 10.00 0.30 again\nrec 1 10.40 0.20 there\n")
    utts = ctm.read_datadir(tmp_path)
    assert [(u.id, u.speaker, u.recording, [(w.text, w.start) for w in u.words]) for u in utts] == [
        ("spk1-utt1", "spk1", "rec", [("hello", 2.6)]),
        ("spk1-utt2", "spk1", "rec", [("again", 10.0), ("there", 10.4)])]
    (tmp_path / "ctm").write_text("rec 1 2.60 0.20 hello\nother 1 10.00 0.30 again\n")
    with pytest.raises(PunctError, match="'other' is neither an utterance nor a recording") as e:
        ctm.read_datadir(tmp_path)
    assert e.value.line == 2


def test_split_by_segments_by_word_midpoint(caplog):
    segs = {u: Segment(u, "rec", s, e) for u, s, e in [("a", 0.0, 2.0), ("b", 1.8, 4.0), ("c", 6.0, 8.0), ("d", 9.0, 9.5)]}
    words = [Word("one", "O", 0.1, 0.5), Word("two", "O", 1.9, 2.1),   # midpoint 2.0: deeper inside b
             Word("three", "O", 1.0, 1.4), Word("four", "O", 4.5, 4.7),  # outside: nearest is b
             Word("five", "O", 7.9, 8.4)]                                # midpoint 8.15: nearest is c
    rec = Utterance("rec", words, recording="rec")
    with caplog.at_level(logging.WARNING):
        utts = ctm.split_by_segments([rec], segs, {"a": "s1"})
    assert [(u.id, u.speaker, u.texts) for u in utts] == [
        ("a", "s1", ["one", "three"]), ("b", None, ["two", "four"]), ("c", None, ["five"])]
    assert "2 word(s) of rec lie outside every segment" in caplog.text
    two = [Utterance("rec-A", [Word("x", "O", 0.1, 0.2)], recording="rec", channel="A"),
           Utterance("rec-B", [Word("y", "O", 0.1, 0.2)], recording="rec", channel="B")]
    assert sorted(u.id for u in ctm.split_by_segments(two, segs)) == ["a-A", "a-B"]
    with pytest.raises(PunctError, match="recording 'other' has no segments"):
        ctm.split_by_segments([Utterance("other", words, recording="other")], segs)


def test_a_segment_open_to_the_end_of_its_recording(tmp_path):
    """Kaldi's end -1 (to the end of the recording) holds every later word, read in any key order."""
    (tmp_path / "segments").write_text("z rec 0.0 2.0\na rec 2.0 -1\n")
    p = write(tmp_path, "rec 1 0.50 0.20 so\nrec 1 2.50 0.30 we\nrec 1 95.00 0.30 go\n")
    utts = ctm.read_with_segments(p, tmp_path / "segments")
    assert sorted((u.id, u.texts) for u in utts) == [("a", ["we", "go"]), ("z", ["so"])]
    p = write(tmp_path, "a 1 0.50 0.20 late\n", "utts.ctm")  # a CTM of utterances: no warning past an open end
    assert [(u.id, u.words[0].start) for u in ctm.read(p, segments=tmp_path / "segments")] == [("a", 2.5)]


def test_write_punctuated_and_plain(tmp_path):
    u = Utterance("x", [Word("good", "COMMA", 3.24, 3.39, 1.0, written="GOOD"), Word("bye", "PERIOD", 3.5, 3.75)],
                  recording="call", channel="A")
    ctm.write([u], tmp_path / "p.ctm", marks="glued")
    assert (tmp_path / "p.ctm").read_text() == "call A 3.24 0.15 GOOD, 1.00\ncall A 3.50 0.25 bye.\n"
    ctm.write([u], tmp_path / "q.ctm", marks=False)
    assert (tmp_path / "q.ctm").read_text() == "call A 3.24 0.15 GOOD 1.00\ncall A 3.50 0.25 bye\n"
    ctm.write([u], tmp_path / "c.ctm")  # the default: the words as spelled, the marks on comment lines
    lines = (tmp_path / "c.ctm").read_text().splitlines()
    assert lines[0].startswith(";; punct: ")
    assert lines[1:] == ["call A 3.24 0.15 GOOD 1.00", ";; punct-mark call A 3.24 ,",
                         "call A 3.50 0.25 bye", ";; punct-mark call A 3.50 ."]
    for name in ("p.ctm", "c.ctm"):
        (back,) = ctm.read(tmp_path / name)
        assert [(w.text, w.written, w.label) for w in back.words] == [("good", "GOOD", "COMMA"), ("bye", None, "PERIOD")]
    u.words[1].start = None
    with pytest.raises(PunctError, match="word 2 .* has no times"):
        ctm.write([u], tmp_path / "r.ctm")


def test_write_keeps_the_word_order_of_each_utterance(tmp_path):
    # the recognizer's order "as a result," with "a" stamped before "as": the marks were
    # decided in this order, so the CTM keeps it; sort=True gives NIST's time order
    u = Utterance("u1", [Word("as", "O", 1.00, 1.10), Word("a", "O", 0.95, 1.00),
                         Word("result", "COMMA", 1.10, 1.50)], recording="call", channel="1")
    early = Utterance("u0", [Word("hi", "PERIOD", 0.10, 0.40)], recording="call", channel="1")
    other = Utterance("u2", [Word("yes", "PERIOD", 0.0, 0.2)], recording="b", channel="1")
    ctm.write([u, early, other], tmp_path / "w.ctm", marks="glued")
    assert [line.split()[4] for line in (tmp_path / "w.ctm").read_text().splitlines()] == \
        ["yes.", "hi.", "as", "a", "result,"]
    ctm.write([u, early, other], tmp_path / "s.ctm", marks="glued", sort=True)
    assert [line.split()[4] for line in (tmp_path / "s.ctm").read_text().splitlines()] == \
        ["yes.", "hi.", "a", "as", "result,"]
    back = ctm.read(tmp_path / "w.ctm")
    assert [w.text for w in back[1].words] == ["hi", "as", "a", "result"]


def test_random_round_trip(tmp_path):
    rng = random.Random(7)
    utts = []
    for r in range(3):
        t = rng.randint(0, 1000) / 1000
        words = []
        for k in range(rng.randint(1, 60)):
            t += rng.randint(0, 800) / 1000
            d = rng.randint(10, 900) / 1000
            core = rng.choice(["a", "Bee", "CEE", "d'oh", "e-mail", "f1", "<unk>", "U.S."])
            label = "O" if core == "U.S." else rng.choice(["O", "O", "COMMA", "PERIOD", "QUESTION"])
            words.append(Word(core.lower(), label, round(t, 3), round(t + d, 3), rng.choice([None, 0.5]),
                              written=core if core != core.lower() else None))
            t += d
        utts.append(Utterance(f"rec{r}", words, recording=f"rec{r}", channel=rng.choice(["1", "A"])))
    ctm.write(utts, tmp_path / "r.ctm")
    back = ctm.read(tmp_path / "r.ctm")
    assert [u.id for u in back] == [u.id for u in utts]
    for a, b in zip(utts, back):
        assert [punctuated(w) for w in a.words] == [punctuated(w) for w in b.words]
        assert [(w.text, w.label, w.written, w.conf) for w in a.words] == [(w.text, w.label, w.written, w.conf) for w in b.words]
        assert [w.start for w in b.words] == pytest.approx([w.start for w in a.words], abs=5e-4)
        assert [w.end for w in b.words] == pytest.approx([w.end for w in a.words], abs=1e-3)


@pytest.mark.parametrize("system", ["kaldi_org/librispeech", "rev/kaldi"])
def test_real_earnings21_ctm(corpus_dir, tmp_path, system):
    src = corpus_dir / "earnings21" / "output" / system / "ctm" / "4320211.ctm"
    if not src.is_file():
        pytest.skip(f"{src} not found")
    (u,) = ctm.read(src)
    lines = src.read_text().splitlines()
    assert len(u.words) == len(lines)
    assert all(w.text == w.text.lower() for w in u.words)
    # the plain output is the input byte for byte (rev/kaldi has 2 lines out of time order),
    # and with sort=True the input sorted as NIST wants
    ctm.write([u], tmp_path / "out.ctm", marks=False)
    assert (tmp_path / "out.ctm").read_text().splitlines() == lines
    ctm.write([u], tmp_path / "sorted.ctm", marks=False, sort=True)
    key = lambda line: (line.split()[0], line.split()[1], float(line.split()[2]))  # noqa: E731
    assert (tmp_path / "sorted.ctm").read_text().splitlines() == sorted(lines, key=key)


def test_write_keeps_the_columns_as_the_input_wrote_them(tmp_path):
    """A CTM is written back with each word's start, duration and confidence as the input wrote
    them, whatever their precision (not rounded to 3 decimals and padded to 2: 3.2415 was 3.242,
    a confidence 0.9 became 0.90 and 0.98765 0.988); the mark comment names the start as written."""
    lines = ["call A 3.2415 0.1500 good 0.9", "call A 3.3915 0.27 morning 1", "call A 3.7 0.05 ladies 0.98765",
             "call A 4.00 0.30 and", "call A 4.3333333 0.0000 gentlemen 1.00"]
    src = write(tmp_path, "\n".join(lines) + "\n")
    (u,) = ctm.read(src)
    ctm.write([u], tmp_path / "plain.ctm", marks="none", as_read=True)
    assert (tmp_path / "plain.ctm").read_text().splitlines() == lines
    u.words[1].label = "COMMA"
    ctm.write([u], tmp_path / "marks.ctm", as_read=True)
    assert (tmp_path / "marks.ctm").read_text().splitlines()[1:4] == lines[:2] + [";; punct-mark call A 3.3915 ,"]
    (back,) = ctm.read(tmp_path / "marks.ctm")
    assert [w.label for w in back.words] == ["O", "COMMA", "O", "O", "O"]
    # a word whose times or confidence changed is written from its values
    u.words[0].start, u.words[2].conf = 3.25, 0.5
    ctm.write([u], tmp_path / "changed.ctm", marks="none", as_read=True)
    assert (tmp_path / "changed.ctm").read_text().splitlines()[0::2] == [
        "call A 3.25 0.142 good 0.9", "call A 3.7 0.05 ladies 0.50", "call A 4.3333333 0.0000 gentlemen 1.00"]


def test_nist_rich_transcription_and_nemo_ctm(tmp_path):
    """NIST's 7- and 8-field CTM (confidence, token type, speaker), as the NeMo Forced Aligner
    writes it with NA for the unknowns, is read (it was 'expected 5 or 6 fields', and from
    standard input plain text: 'utt 1 0.100 0.200. hello.') and written back as it was."""
    from punct.io import read_any

    lines = ["utt 1 0.100 0.200 hello NA lex NA", "utt 1 0.300 0.200 world NA lex NA",
             "utt 1 0.52 0.1 uh 0.5 fp", "utt 1 0.7 0.2 bye 0.93 lex spk2"]
    src = write(tmp_path, "\n".join(lines) + "\n", "nemo")  # no extension: told by its content
    assert detect_format(src) == "ctm"
    (u,) = read_any(src)
    assert [(w.text, w.start, w.end, w.conf) for w in u.words] == [
        ("hello", 0.1, 0.3, None), ("world", 0.3, 0.5, None), ("uh", 0.52, 0.62, 0.5), ("bye", 0.7, 0.9, 0.93)]
    u.words[1].label, u.words[3].label = "COMMA", "PERIOD"
    ctm.write([u], tmp_path / "out.ctm", as_read=True)
    assert (tmp_path / "out.ctm").read_text().splitlines()[1:] == [
        lines[0], lines[1], ";; punct-mark utt 1 0.300 ,", lines[2], lines[3], ";; punct-mark utt 1 0.7 ."]
    ctm.write([u], tmp_path / "sclite.ctm", marks="none", sort=True)  # as punct wer gives sclite: 5 or 6 fields
    assert (tmp_path / "sclite.ctm").read_text().splitlines() == [
        "utt 1 0.10 0.20 hello", "utt 1 0.30 0.20 world", "utt 1 0.52 0.10 uh 0.50", "utt 1 0.70 0.20 bye 0.93"]
    with pytest.raises(PunctError, match=r"got 8 \(type 'NA'\)"):
        ctm.read(write(tmp_path, "utt 1 0.1 0.2 hello NA NA NA\n"))


def test_a_byte_order_mark_is_not_part_of_the_first_recording(tmp_path):
    p = tmp_path / "bom"  # no extension: the format is told by the content, past the mark
    p.write_bytes(b"\xef\xbb\xbfrec1 1 0.00 0.30 so\nrec1 1 0.40 0.20 we\nrec1 1 0.70 0.20 go\n")
    assert detect_format(p) == "ctm"
    utts = ctm.read(p)
    assert [(u.recording or u.id, [w.text for w in u.words]) for u in utts] == [("rec1", ["so", "we", "go"])]
    seg = tmp_path / "segments"  # a Kaldi CTM of utterances, with its segments file
    seg.write_bytes(b"\xef\xbb\xbfu1 rec1 2.00 5.00\n")
    p.write_bytes(b"\xef\xbb\xbfu1 1 0.00 0.30 so\n")
    assert [(u.id, u.words[0].start) for u in ctm.read(p, segments=seg)] == [("u1", 2.0)]


def test_a_segments_file_that_is_empty_or_a_directory_is_named_so(tmp_path):
    p = write(tmp_path, "u1 1 0.00 0.30 so\n")
    (tmp_path / "empty").write_text("")
    with pytest.raises(PunctError, match="empty: no segments in it"):
        ctm.read(p, segments=tmp_path / "empty")
    (tmp_path / "blank").write_text("u1 rec 0.0 1.0\n\n")
    with pytest.raises(PunctError, match="blank:2: empty line"):
        ctm.read(p, segments=tmp_path / "blank")
    with pytest.raises(PunctError, match="is a directory, not a segments file"):
        ctm.read(p, segments=tmp_path)
