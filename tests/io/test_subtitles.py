"""punct.io.subtitles: SubRip and WebVTT written from timed words (speakers, inline word
times, escaping) and read back, YouTube's inline tags and automatic captions, malformed
files named by line (the cues themselves: test_sentences.py)."""
import random

import pytest

from punct.errors import PunctError
from punct.io import detect_format, read_any, subtitles
from punct.io.sentences import make_cues, punctuated
from punct.text.words import Utterance, Word
from tests.io.sample_words import timed


def test_srt_text_and_round_trip(tmp_path):
    u = Utterance("u", timed("Hello, world. How are you?") + timed("Fine.", t0=2.5))
    p = tmp_path / "u.srt"
    subtitles.write([u], p)
    # short cues stay 5/6 s where the next leaves room: "Hello, world." up to the next cue
    assert p.read_text() == ("1\n00:00:00,000 --> 00:00:00,800\nHello, world.\n\n"
                             "2\n00:00:00,800 --> 00:00:01,900\nHow are you?\n\n"
                             "3\n00:00:02,500 --> 00:00:02,800\nFine.\n")
    assert detect_format(p) in ("srt", "vtt")
    (back,) = read_any(p)
    assert [(w.text, w.written, w.label) for w in back.words] == [(w.text, w.written, w.label) for w in u.words]
    # cue times are the first start and the last end of each cue as shown (a short cue held
    # longer ends later); the rest is not in SubRip
    assert [(w.start, w.end) for w in back.words] == [(0.0, None), (None, 0.8), (0.8, None), (None, None), (None, 1.9),
                                                      (2.5, 2.8)]


def test_vtt_speakers_word_starts_escaping_round_trip(tmp_path):
    u = Utterance("u", timed("Q&A <unk> time. yes?", speaker="Ann") + timed("sure.", speaker="Bob", t0=3.0))
    p = tmp_path / "u.vtt"
    subtitles.write([u], p)  # by default a bracketed token is left out
    assert "<v Ann>Q&amp;A <00:00:00.800>time." in p.read_text()
    subtitles.write([u], p, bracketed="escape")
    text = p.read_text()
    assert text.startswith("WEBVTT\n\n")
    assert "<v Ann>Q&amp;A <00:00:00.400>&lt;unk&gt; <00:00:00.800>time." in text
    assert "<v Bob>sure." in text
    (back,) = read_any(p)
    assert [(w.text, w.label, w.speaker) for w in back.words] == [(w.text, w.label, w.speaker) for w in u.words]
    assert [w.start for w in back.words] == [w.start for w in u.words]  # starts come back from inline timestamps
    assert [w.end for w in back.words] == [None, None, 1.1, 2.033, 3.3]  # ends only at cue ends ("yes?" held 5/6 s)


def test_vtt_inline_timestamps_increase_within_the_cue(tmp_path):
    """WebVTT wants each inline timestamp after the cue start and after the one before it. Real
    Kaldi CTMs have a word that starts before the one before it (Earnings-21 Rev: "a" at 3204.10,
    "result" at 3204.06), words that start together, and a start a fraction of a millisecond
    after the cue's: such a word gets no timestamp rather than one that goes back or repeats."""
    import re

    spec = [("as", 10.0, 10.1), ("a", 10.0004, 10.13), ("a", 10.2, 10.23), ("result", 10.16, 10.61),
            ("of", 10.61, 10.7), ("that", 10.7, 10.8), ("um", 10.7, 10.9), ("yes.", 11.0, 11.2)]
    words = [Word(t.rstrip("."), "PERIOD" if t.endswith(".") else "O", s, e) for t, s, e in spec]
    p = tmp_path / "u.vtt"
    subtitles.write([Utterance("u", words)], p)
    text = p.read_text()
    (cue,) = [block for block in text.split("\n\n") if "-->" in block]
    timing, payload = cue.split("\n", 1)
    assert timing == "00:00:10.000 --> 00:00:11.200"

    def ms(stamp):
        h, m, s = stamp.split(":")
        return round((int(h) * 3600 + int(m) * 60 + float(s)) * 1000)

    stamps = [ms(x) for x in re.findall(r"<(\d\d:\d\d:\d\d\.\d\d\d)>", payload)]
    assert stamps == [10200, 10610, 10700, 11000]  # "result" (10.16 after 10.2) and "um" (10.7 again) have none
    assert all(a < b for a, b in zip([10000] + stamps, stamps + [11200]))
    (back,) = read_any(p)
    assert [w.text for w in back.words] == [w.text for w in words]


def test_read_youtube_style_inline_tags(tmp_path):
    p = tmp_path / "yt.vtt"
    p.write_text("WEBVTT\nKind: captions\nLanguage: en\n\nNOTE a comment\n\n"
                 "cue-1\n00:00:01.000 --> 00:00:03.000 align:start position:0%\n"
                 "so<00:00:01.500><c> today</c><00:00:02.000><c> we</c>\n")
    (u,) = subtitles.read(p)
    assert [(w.text, w.start, w.end) for w in u.words] == [("so", 1.0, None), ("today", 1.5, None), ("we", 2.0, 3.0)]


#: YouTube's automatic captions as yt-dlp saves them; the lines of one space are YouTube's
YOUTUBE = ("WEBVTT\nKind: captions\nLanguage: en\n\n"
           "00:00:00.000 --> 00:00:02.350 align:start position:0%\n \n"
           "so<00:00:00.320><c> today</c><00:00:00.640><c> we</c>\n\n"
           "00:00:02.350 --> 00:00:02.360 align:start position:0%\nso today we\n \n\n"
           "00:00:02.360 --> 00:00:05.000 align:start position:0%\nso today we\n"
           "are<00:00:02.500><c> going</c><00:00:02.900><c> to</c>\n\n"
           "00:00:05.000 --> 00:00:05.010 align:start position:0%\nare going to\n \n\n"
           "00:00:05.010 --> 00:00:07.000 align:start position:0%\nare going to\n"
           "talk<00:00:05.500><c> about</c><00:00:06.000><c> so</c><00:00:06.400><c> today</c><00:00:06.600><c> we</c>\n")


def test_read_youtube_automatic_captions(tmp_path):
    """YouTube's automatic captions (as yt-dlp saves them): cue lines of a single space, which
    WebVTT reads as cue text, not as the end of the cue (they were 'expected a cue timing'),
    and rolling cues that repeat the line before, read once; words said again are kept."""
    p = tmp_path / "yt.en.vtt"
    p.write_text(YOUTUBE)
    (u,) = subtitles.read(p)
    assert [(w.text, w.start, w.end) for w in u.words] == [
        ("so", 0.0, None), ("today", 0.32, None), ("we", 0.64, 2.35), ("are", 2.36, None), ("going", 2.5, None),
        ("to", 2.9, 5.0), ("talk", 5.01, None), ("about", 5.5, None), ("so", 6.0, None), ("today", 6.4, None),
        ("we", 6.6, 7.0)]


def test_vtt_cue_text_ends_at_an_empty_line_or_the_next_timing(tmp_path):
    """As WebVTT's parser reads a cue: a line of spaces is cue text, a line with --> begins the
    next cue; without <c> timestamps (not rolling captions) a repeated line is read again."""
    p = tmp_path / "a.vtt"
    p.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nno\n \nno\n00:00:02.500 --> 00:00:03.000\n"
                 "no\nI said no\n")
    (u,) = subtitles.read(p)
    assert [(w.text, w.start, w.end) for w in u.words] == [
        ("no", 1.0, None), ("no", None, 2.0), ("no", 2.5, None), ("i", None, None), ("said", None, None),
        ("no", None, 3.0)]


def test_read_srt_with_ass_override_blocks(tmp_path):
    """SubRip files from subtitle editors and converters carry ASS override blocks ({\\an8} puts a
    cue at the top): formatting, not words (they were read as a word '\\an8}how')."""
    p = tmp_path / "o.srt"
    p.write_text("1\n00:00:01,000 --> 00:00:02,000\n{\\an8}<i>hello</i> {\\i1}there{\\i0}\n\n"
                 "2\n00:00:02,500 --> 00:00:03,000\n{\\an8}{\\pos(10,20)}how are you\n")
    (u,) = subtitles.read(p)
    assert u.texts == ["hello", "there", "how", "are", "you"]


@pytest.mark.parametrize("text,line,msg", [
    ("1\n00:00:01,000 -> 00:00:02,000\nhello\n", 2, "expected a cue timing"),
    ("1\n00:00:01,000 --> 00:00:02,000\nhello\n\nx\n00:00:03,000 --> 00:00:04,000\nworld\n", 5, "expected a cue number"),
    ("1\n00:00:05,000 --> 00:00:02,000\nhello\n", 2, "cue ends"),
])
def test_malformed_srt(tmp_path, text, line, msg):
    p = tmp_path / "bad.srt"
    p.write_text(text)
    with pytest.raises(PunctError, match=msg) as e:
        subtitles.read(p)
    assert e.value.line == line


def test_empty_and_untimed(tmp_path):
    p = tmp_path / "e.srt"
    p.write_text("\n")
    with pytest.raises(PunctError, match="empty"):
        subtitles.read(p)
    with pytest.raises(PunctError, match="subtitles need word times"):
        subtitles.write([Utterance("u", [Word("a")])], tmp_path / "x.vtt")


def test_random_round_trip_keeps_words_marks_and_cue_times(tmp_path):
    rng = random.Random(5)
    vocab = ["we", "Revenue", "grew", "USA", "it's", "cost", "2021", "margin", "and", "so"]
    for kind in ("srt", "vtt"):
        t, words = 0.0, []
        for _ in range(300):
            t = round(t + rng.choice([0.0, 0.05, 0.2, 0.8, 2.5]), 3)
            d = round(rng.uniform(0.05, 0.6), 3)
            core = rng.choice(vocab)
            words.append(Word(core.lower(), rng.choice(["O"] * 6 + ["COMMA", "PERIOD", "QUESTION"]), t, round(t + d, 3),
                              written=core if core != core.lower() else None))
            t = round(t + d, 3)
        u = Utterance("r", words)
        p = tmp_path / f"r.{kind}"
        subtitles.write([u], p)
        (back,) = subtitles.read(p)
        assert [punctuated(w) for w in back.words] == [punctuated(w) for w in words]
        cues = make_cues([u])
        firsts = {id(c.words[0]) for c in cues}
        for w, b in zip(words, back.words):
            if id(w) in firsts or kind == "vtt":
                assert b.start == pytest.approx(w.start, abs=1e-3)
