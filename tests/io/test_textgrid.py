"""punct.io.textgrid: TextGrids read (long and short format, UTF-16, MFA speakers, silences,
marks) and written with a sentence tier, overlaps trimmed, faults named by line."""
import logging
import random

import pytest

from punct.errors import PunctError
from punct.io import detect_format, textgrid
from punct.io.sentences import punctuated
from punct.text.words import Utterance, Word

LONG = '''File type = "ooTextFile"
Object class = "TextGrid"

xmin = 0
xmax = 2.0
tiers? <exists>
size = 2
item []:
    item [1]:
        class = "IntervalTier"
        name = "words"
        xmin = 0
        xmax = 2.0
        intervals: size = 4
        intervals [1]:
            xmin = 0
            xmax = 0.3
            text = ""
        intervals [2]:
            xmin = 0.3
            xmax = 0.7
            text = "Hello,"
        intervals [3]:
            xmin = 0.7
            xmax = 1.1
            text = "sil"
        intervals [4]:
            xmin = 1.1
            xmax = 2.0
            text = "world"
    item [2]:
        class = "IntervalTier"
        name = "phones"
        xmin = 0
        xmax = 2.0
        intervals: size = 1
        intervals [1]:
            xmin = 0
            xmax = 2.0
            text = "HH"
'''

SHORT_MFA = '''File type = "ooTextFile"
Object class = "TextGrid"

0
3
<exists>
3
"IntervalTier"
"Ann - words"
0
3
2
0
1
"yes"
1
3
""
"IntervalTier"
"Ann - phones"
0
3
1
0
3
"Y"
"IntervalTier"
"Bob - words"
0
3
3
0
1.5
""
1.5
2
"no"
2
3
"way"
'''


def write(tmp_path, text, name="a.TextGrid", encoding="utf-8"):
    p = tmp_path / name
    p.write_text(text, encoding=encoding)
    return p


def test_read_long_format_silences_and_marks(tmp_path):
    p = write(tmp_path, LONG)
    assert detect_format(p) == "textgrid"
    (u,) = textgrid.read(p)
    assert u.id == "a" and u.speaker is None and u.recording == "a"
    assert [(w.text, w.written, w.label, w.start, w.end) for w in u.words] == [
        ("hello", "Hello", "COMMA", 0.3, 0.7), ("world", None, "O", 1.1, 2.0)]


def test_read_utf16_with_bom(tmp_path):
    p = write(tmp_path, LONG.replace("world", "wörld"), encoding="utf-16")
    assert textgrid.read(p)[0].texts == ["hello", "wörld"]


def test_read_short_format_mfa_speakers(tmp_path):
    utts = textgrid.read(write(tmp_path, SHORT_MFA, "talk.TextGrid"))
    assert [(u.id, u.speaker, u.texts) for u in utts] == [("talk-Ann", "Ann", ["yes"]), ("talk-Bob", "Bob", ["no", "way"])]
    assert utts[1].words[1].start == 2.0


def test_no_words_tier(tmp_path):
    p = write(tmp_path, LONG.replace('name = "words"', 'name = "ortho"'))
    with pytest.raises(PunctError, match=r"no words tier .*tiers here: 'ortho', 'phones'") as e:
        textgrid.read(p)
    assert e.value.path == str(p)
    assert textgrid.read(p, tier="ortho")[0].texts == ["hello", "world"]


def test_bad_interval_names_its_line(tmp_path):
    p = write(tmp_path, LONG.replace("xmax = 1.1\n            text = \"sil\"", "xmax = 0.5\n            text = \"sil\""))
    with pytest.raises(PunctError, match="interval 3: ends") as e:
        textgrid.read(p)
    assert e.value.line == LONG.splitlines().index("        intervals [3]:") + 1


def test_malformed_and_empty(tmp_path):
    with pytest.raises(PunctError, match="empty file"):
        textgrid.read(write(tmp_path, ""))
    with pytest.raises(PunctError, match="not a Praat TextGrid"):
        textgrid.read(write(tmp_path, "hello world\n"))
    with pytest.raises(PunctError, match="declares 4 intervals but has 1") as e:
        textgrid.read(write(tmp_path, LONG[: LONG.index("intervals [2]")]))
    assert e.value.line == 14
    # cut off inside an interval: praatio cannot parse it, and the error still says what is wrong where
    with pytest.raises(PunctError, match="tier 'words' declares 4 intervals but has 2") as e:
        textgrid.read(write(tmp_path, LONG[: LONG.index('text = "Hello,"')]))
    assert e.value.line == 14
    # cut off between two tiers, the words tier whole
    with pytest.raises(PunctError, match="declares 2 tiers but has 1") as e:
        textgrid.read(write(tmp_path, LONG[: LONG.index("    item [2]")]))
    assert e.value.line == 7
    with pytest.raises(PunctError, match="declares 3 tiers but has 2") as e:
        textgrid.read(write(tmp_path, SHORT_MFA[: SHORT_MFA.index('"Bob - words"') - len('"IntervalTier"\n')]))
    assert e.value.line == 7
    with pytest.raises(PunctError, match="declares 3 intervals but has") as e:
        textgrid.read(write(tmp_path, SHORT_MFA[: SHORT_MFA.index('"Bob - words"') + 20]))
    assert e.value.line == 31
    with pytest.raises(PunctError, match="malformed TextGrid, praatio cannot parse it"):
        textgrid.read(write(tmp_path, LONG.replace("xmax = 2.0\n        intervals", "xmax = abc\n        intervals")))
    # praatio reads a tier without its class line as a point tier
    with pytest.raises(PunctError, match=r"no words tier .*tiers here: 'words' \(TextTier\), 'phones'"):
        textgrid.read(write(tmp_path, LONG.replace('class = "IntervalTier"\n        name = "words"', 'name = "words"')))
    with pytest.raises(PunctError, match="malformed TextGrid") as e:
        textgrid.read(write(tmp_path, LONG.replace("xmin = 0.3", "xmin = abc")))
    assert e.value.line == 20
    only_silence = LONG.replace('"Hello,"', '""').replace('"world"', '"sp"')
    with pytest.raises(PunctError, match="no words"):
        textgrid.read(write(tmp_path, only_silence))


def random_utts(seed, speakers=("A", "B")):
    rng = random.Random(seed)
    utts = []
    for spk in speakers:
        t, words = 0.0, []
        for _ in range(rng.randint(1, 40)):
            t += rng.choice([0, 0, 0.05, 0.4, 1.3])
            d = rng.randint(20, 700) / 1000
            core = rng.choice(["so", "We", "NASA", "it's", "<unk>", "2020"])
            words.append(Word(core.lower(), rng.choice(["O", "O", "COMMA", "PERIOD", "QUESTION"]), round(t, 3),
                              round(t + d, 3), written=core if core != core.lower() else None))
            t += d
        utts.append(Utterance(f"x-{spk}", words, recording="x", speaker=spk))
    return utts


@pytest.mark.parametrize("short", [False, True])
def test_round_trip_with_sentence_tier(tmp_path, short):
    utts = random_utts(3)
    p = tmp_path / "x.TextGrid"
    textgrid.write(utts, p, short=short)
    back = textgrid.read(p)
    assert [(u.id, u.speaker) for u in back] == [("x-A", "A"), ("x-B", "B")]
    for a, b in zip(utts, back):
        assert [(w.text, w.written, w.label, w.start, w.end) for w in a.words] == [
            (w.text, w.written, w.label, w.start, w.end) for w in b.words]
    tiers = textgrid.read(p, tier="A - sentences")
    # the sentence tier holds the punctuated sentences of speaker A, in order
    assert " ".join(punctuated(w) for w in tiers[0].words) == " ".join(punctuated(w) for w in utts[0].words)


def test_single_utterance_tier_names_and_overlap_trim(tmp_path, caplog):
    u = Utterance("call", [Word("a", "O", 0.0, 0.5), Word("b", "PERIOD", 0.4, 0.9), Word("c", "QUESTION", 1.0, 1.2)])
    p = tmp_path / "c.TextGrid"
    with caplog.at_level(logging.WARNING):
        textgrid.write([u], p)
    assert "1 word(s) of the words tier moved or shortened" in caplog.text and "largest shift 0.100 s" in caplog.text
    text = p.read_text()
    assert 'name = "words"' in text and 'name = "sentences"' in text and '"a b."' in text
    (back,) = textgrid.read(p)
    assert [(w.start, w.end) for w in back.words] == [(0.0, 0.5), (0.5, 0.9), (1.0, 1.2)]


def test_words_out_of_time_order_keep_the_transcript_order(tmp_path):
    """Real Kaldi CTMs have a word that starts before the word before it (Earnings-21 Rev 4320211:
    "a" at 3204.10, "result" at 3204.06). The words tier reads as the transcript, "as a result",
    with times made to increase, not "as result a" (sorted by start)."""
    spec = [("as", 3203.98, 3204.10), ("a", 3204.10, 3204.13), ("result", 3204.06, 3204.51), ("of", 3204.51, 3204.57),
            ("that", 3204.57, 3204.78)]
    u = Utterance("call", [Word(t, "PERIOD" if t == "that" else "O", s, e) for t, s, e in spec])
    p = tmp_path / "c.TextGrid"
    textgrid.write([u], p)
    (back,) = textgrid.read(p)
    assert [w.text for w in back.words] == ["as", "a", "result", "of", "that"]
    assert [(w.start, w.end) for w in back.words] == [(3203.98, 3204.1), (3204.1, 3204.13), (3204.13, 3204.51),
                                                      (3204.51, 3204.57), (3204.57, 3204.78)]
    (sent,) = textgrid.read(p, tier="sentences")
    assert [w.text for w in sent.words] == ["as", "a", "result", "of", "that"]
    # a jump back in time (a CTM of two blocks in the wrong order) is no jitter: words go by time
    later = [Word("so", "O", 3210.0, 3210.3), Word("yes", "PERIOD", 3210.3, 3210.6)]
    textgrid.write([Utterance("call", later + u.words)], p)
    (back,) = textgrid.read(p)
    assert [w.text for w in back.words] == ["as", "a", "result", "of", "that", "so", "yes"]
    assert [(w.start, w.end) for w in back.words][-2:] == [(3210.0, 3210.3), (3210.3, 3210.6)]
    # one sentence whose words are out of time order: its interval spans all of them
    textgrid.write([Utterance("u", [Word("world", "COMMA", 1.0, 1.2), Word("hello", "O", 0.2, 0.5),
                                    Word("big", "PERIOD", 0.6, 0.8)])], p)
    (sent,) = textgrid.read(p, tier="sentences")
    assert (sent.words[0].start, sent.words[-1].end) == (0.2, 1.2)


def test_write_needs_times(tmp_path):
    with pytest.raises(PunctError, match="needs word times"):
        textgrid.write([Utterance("u", [Word("a")])], tmp_path / "u.TextGrid")
