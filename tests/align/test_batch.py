"""punct.align.batch: a data directory aligned or decoded utterance by utterance into its
tables (word_times, word_conf, text), CTMs, TextGrids and report; the aligner and the
recognizer are stood in for by fakes, so only the bookkeeping around them is under test."""
from __future__ import annotations

import json

import numpy as np
import pytest

from punct.align import batch
from punct.align.aligner import Alignment, PhoneSeg
from punct.text.words import Word


@pytest.fixture
def datadir(tmp_path):
    """One 2 s recording of silence cut into two utterances by ``segments``."""
    import soundfile as sf

    d = tmp_path / "data"
    d.mkdir()
    sf.write(d / "call.wav", np.zeros(32000, dtype=np.float32), 16000)
    (d / "wav.scp").write_text(f"call {d / 'call.wav'}\n")
    (d / "segments").write_text("u1 call 0.00 1.00\nu2 call 1.00 2.00\n")
    (d / "text").write_text("u1 hello world\nu2 bye\n")
    return d


class FakeAligner:
    """Each token gets 0.2 s from the utterance's start; u2 fails and uses the letter-to-sound fallback."""

    def __init__(self, cfg=None):
        self.seen = []

    def align(self, x, tokens, utt, offset=0.0, where=None, line=None):
        self.seen.append((utt, len(x), offset, line))
        words = [Word(t, start=offset + 0.2 * k, end=offset + 0.2 * k + 0.2, conf=0.8) for k, t in enumerate(tokens)]
        phones = [[PhoneSeg("AH", w.start, w.end)] for w in words]
        return Alignment(utt, words, phones, n_lts=int(utt == "u2"), lts_tokens=["bye"] if utt == "u2" else [],
                         failed=utt == "u2")


def test_times_value_is_start_end_pairs_with_three_decimals():
    words = [Word("a", start=0.1, end=0.25), Word("b", start=1.0, end=1.0004)]
    assert batch.times_value(words) == "0.100,0.250 1.000,1.000"
    assert batch.times_value([]) == ""


def test_align_datadir_writes_times_ctms_textgrids_and_a_report(datadir, tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "ForcedAligner", FakeAligner)
    out = tmp_path / "align"
    report = batch.align_datadir(datadir, out)
    assert (out / "word_times").read_text() == "u1 0.000,0.200 0.200,0.400\nu2 1.000,1.200\n"
    ctm = [line.split() for line in (out / "words.ctm").read_text().splitlines()]
    assert [(r[0], r[4]) for r in ctm] == [("call", "hello"), ("call", "world"), ("call", "bye")]
    assert len((out / "phones.ctm").read_text().splitlines()) == 3
    assert sorted(p.name for p in (out / "textgrid").iterdir()) == ["u1.TextGrid", "u2.TextGrid"]
    assert report == json.loads((out / "report.json").read_text())
    assert {k: report[k] for k in ("utterances", "words", "audio_seconds", "lts_words", "lts_distinct",
                                   "failed_utterances", "failed")} == {
        "utterances": 2, "words": 3, "audio_seconds": 2.0, "lts_words": 1, "lts_distinct": {"bye": 1},
        "failed_utterances": 1, "failed": ["u2"]}


def test_align_datadir_without_textgrids(datadir, tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "ForcedAligner", FakeAligner)
    batch.align_datadir(datadir, tmp_path / "align", textgrids=False)
    assert not (tmp_path / "align" / "textgrid").exists() and (tmp_path / "align" / "word_times").is_file()


class FakeRecognizer:
    """Hears ``ok`` at the start of u1 and nothing in u2."""

    def __init__(self, cfg=None):
        pass

    def decode(self, x, utt, offset=0.0):
        return [Word("ok", start=offset + 0.1, end=offset + 0.3, conf=0.75)] if utt == "u1" else []


def test_decode_datadir_keeps_an_empty_hypothesis_in_every_table(datadir, tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "Recognizer", FakeRecognizer)
    out = tmp_path / "asr"
    report = batch.decode_datadir(datadir, out)
    assert (out / "text").read_text() == "u1 ok\nu2\n"
    assert (out / "word_times").read_text() == "u1 0.100,0.300\nu2\n"
    assert (out / "word_conf").read_text() == "u1 0.7500\nu2\n"
    (row,) = [line.split() for line in (out / "hyp.ctm").read_text().splitlines()]
    assert row[:2] + row[4:] == ["call", "1", "ok", "0.75"] and (float(row[2]), float(row[3])) == (0.1, 0.2)
    assert (report["utterances"], report["words"], report["empty_hypotheses"]) == (2, 1, 1)


def test_decode_datadir_without_text_or_segments_decodes_each_recording(datadir, tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "Recognizer", FakeRecognizer)
    (datadir / "text").unlink()
    (datadir / "segments").unlink()
    report = batch.decode_datadir(datadir, tmp_path / "asr")
    assert report["utterances"] == 1 and report["empty_hypotheses"] == 1
    assert (tmp_path / "asr" / "hyp.ctm").read_text() == ""
