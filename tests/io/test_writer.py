"""punct.io.writer: the output format told by the name, every format written and read back with
every word, mark and time, subtitles with their shown words; the grouping by recording."""
from __future__ import annotations

import random

import pytest

from punct.errors import PunctError
from punct.io import read_input
from punct.io.sentences import punctuated
from punct.io.writer import output_format, write_output
from punct.text.words import Utterance, Word


def test_output_format_by_name():
    assert output_format(None, None) == "text"
    assert output_format("a.TextGrid", None) == "textgrid"
    assert output_format("a.srt", None) == "srt" and output_format("a.vtt", None) == "vtt"
    assert output_format("out/", None) == "datadir"
    assert output_format("a.xyz", "json") == "json"
    with pytest.raises(PunctError, match="cannot tell the output format"):
        output_format("a.xyz", None)


def random_utts(seed, n_utts=3, speakers=False):
    rng = random.Random(seed)
    utts = []
    for i in range(n_utts):
        t, words = rng.randint(0, 50) / 10, []
        for _ in range(rng.randint(1, 80)):
            t = round(t + rng.choice([0.0, 0.01, 0.15, 0.6, 2.4]), 3)
            d = round(rng.randint(30, 800) / 1000, 3)
            core = rng.choice(["Welcome", "to", "NASA", "it's", "<unk>", "Q3", "e-mail", "naïve"])
            words.append(Word(core.lower(), rng.choice(["O"] * 5 + ["COMMA", "PERIOD", "QUESTION"]), t, round(t + d, 3),
                              written=core if core != core.lower() else None))
            t = round(t + d, 3)
        spk = f"S{i}" if speakers else None
        utts.append(Utterance(f"rec{i}" if not speakers else f"rec-S{i}", words, recording=f"rec{i}" if not speakers else "rec",
                              speaker=spk))
    return utts


@pytest.mark.parametrize("fmt,ext", [("ctm", ".ctm"), ("textgrid", ".TextGrid"), ("json", ".json"), ("datadir", "")])
def test_round_trip_keeps_every_word_and_time(tmp_path, fmt, ext):
    for seed in range(5):
        utts = random_utts(seed, speakers=(fmt == "textgrid"))
        path = tmp_path / f"s{seed}{ext or '_dir'}"
        write_output(utts, path, fmt)
        back = read_input(path)
        assert len(back) == len(utts)
        for a, b in zip(utts, back):
            assert [w.text for w in b.words] == [w.text for w in a.words]
            assert [w.label for w in b.words] == [w.label for w in a.words]
            if fmt != "datadir":  # a data directory keeps the lower-case text only
                assert [punctuated(w) for w in b.words] == [punctuated(w) for w in a.words]
            assert [w.start for w in b.words] == pytest.approx([w.start for w in a.words], abs=1e-6)
            assert [w.end for w in b.words] == pytest.approx([w.end for w in a.words], abs=1e-6)


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_round_trip_subtitles_keep_words_and_marks(tmp_path, fmt):
    from punct.io.options import WriteOptions
    from punct.io.subtitles import shown

    utts = random_utts(9, n_utts=1)
    write_output(utts, tmp_path / f"s.{fmt}", fmt)
    (back,) = read_input(tmp_path / f"s.{fmt}")
    (kept,) = shown(utts, fmt)  # <unk> left out, its mark on the word before
    assert len(kept.words) < len(utts[0].words)
    assert [punctuated(w) for w in back.words] == [punctuated(w) for w in kept.words]
    if fmt == "vtt":  # shown as they are, WebVTT keeps every word
        write_output(utts, tmp_path / f"s.{fmt}", fmt, options=WriteOptions(bracketed="escape"))
        (back,) = read_input(tmp_path / f"s.{fmt}")
        assert [punctuated(w) for w in back.words] == [punctuated(w) for w in utts[0].words]


def test_utterances_are_grouped_by_recording_in_input_order():
    from punct.io.writer import by_recording

    utts = [Utterance("u1", recording="b"), Utterance("u2", recording="a"), Utterance("u3", recording="b",
                                                                                      channel="B"),
            Utterance("solo")]
    assert {k: [u.id for u in v] for k, v in by_recording(utts).items()} == {"b": ["u1", "u3"], "a": ["u2"],
                                                                            "solo": ["solo"]}
    assert list(by_recording(utts)) == ["b", "a", "solo"]


def test_a_timed_output_of_untimed_words_names_the_first():
    from punct.io.writer import require_times

    half = [Utterance("u", [Word("so", start=0.0, end=0.2), Word("we", start=0.3)])]
    with pytest.raises(PunctError, match=r"in.txt: word 2 \('we'\) of u has no end time, and a CTM needs word times"):
        require_times(half, "ctm", "in.txt")
    require_times(half, "srt", "in.txt")  # subtitles spread the untimed words between the timed ones
    with pytest.raises(PunctError, match="word 1 .'so'. of v has no times, and a subtitle file needs"):
        require_times([Utterance("v", [Word("so")])], "vtt", "in.txt")
    require_times([Utterance("v", [Word("so")])], "text", "in.txt")


def test_one_file_per_recording_goes_to_a_directory_named_so(tmp_path):
    from punct.io.writer import per_recording_dir, write_per_recording

    two = [Utterance("u1", [Word("hello", "PERIOD", 0.0, 0.4)], recording="a"),
           Utterance("u2", [Word("bye", "PERIOD", 0.0, 0.3)], recording="b")]
    assert per_recording_dir(tmp_path / "one.ctm", "ctm", two) is None
    assert per_recording_dir(f"{tmp_path / 'out'}/", "ctm", two) == tmp_path / "out"
    assert per_recording_dir(tmp_path, "json", two) == tmp_path  # an existing directory
    with pytest.raises(PunctError, match=r"the input holds 2 recordings \(a, b\), and one TextGrid times one"):
        per_recording_dir(tmp_path / "x.TextGrid", "textgrid", two)
    with pytest.raises(PunctError, match="recording '..' cannot name a file of the output directory"):
        per_recording_dir(f"{tmp_path / 'out'}/", "ctm", [Utterance("u", recording="..")])
    paths = write_per_recording(two, tmp_path / "out", "textgrid")
    assert [p.name for p in paths] == ["a.TextGrid", "b.TextGrid"]
    assert [w.text for w in read_input(paths[1])[0].words] == ["bye"]


def test_text_keeps_a_final_non_speech_token_on_the_last_line():
    from punct.io.writer import render_text

    ws = [Word("what", "O"), Word("now", "QUESTION"), Word("<sil>", "O")]
    assert render_text([Utterance("u", ws)]) == "what now? <sil>\n"
    ws = [Word("so", "PERIOD"), Word("[noise]", "O"), Word("yes", "PERIOD")]  # inside: a sentence's own
    assert render_text([Utterance("u", ws)]) == "so.\n[noise] yes.\n"
