"""punct restore's outputs checked by tools that are not punct: srt, webvtt-py and pysubs2 for
subtitles, textgrid and praatio for TextGrids, sctk's ctmValidator.pl and sclite for CTMs,
lhotse's Kaldi import for data directories. Each check is skipped when its tool is absent."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from punct.data.datadir import load_utterances, validate_datadir
from punct.io.options import CTM_MARKS, WriteOptions
from punct.io.sentences import punctuated
from punct.io.writer import write_output
from punct.text.words import Utterance
from tests.io.sample_words import call, TEXT

VALIDATOR = Path("/usr/lib/sctk/bin/ctmValidator.pl")

def shown_lines(text: str) -> list[str]:
    import html
    import re

    return [html.unescape(re.sub(r"<[^>]*>", "", line)) for line in text.split("\n")]


# ----------------------------------------------------------------------------- subtitles

@pytest.mark.parametrize("limits", [(42, 2, 7.0), (32, 1, 3.0), (37, 3, 5.0)])
def test_srt_within_the_norms_by_srt(tmp_path, limits):
    srt = pytest.importorskip("srt")
    chars, lines, secs = limits
    opts = WriteOptions(max_line_chars=chars, max_lines=lines, max_cue_seconds=secs)
    p = tmp_path / "call.srt"
    write_output([call()], p, "srt", options=opts)
    cues = list(srt.parse(p.read_text()))
    assert len(cues) >= 4
    for c, nxt in zip(cues, cues[1:] + [None]):
        text_lines = c.content.split("\n")
        assert len(text_lines) <= lines and all(len(x) <= chars for x in text_lines), c.content
        assert (c.end - c.start).total_seconds() <= secs + 1e-9
        assert nxt is None or c.end <= nxt.start
        assert "<" not in c.content and "[noise]" not in c.content  # bracketed tokens left out
    words = " ".join(c.content.replace("\n", " ") for c in cues).split()
    assert words == [t for t in TEXT.split() if t[0] not in "<["]


def test_bracketed_tokens_escaped_in_srt_and_vtt(tmp_path):
    srt = pytest.importorskip("srt")
    webvtt = pytest.importorskip("webvtt")
    opts = WriteOptions(bracketed="escape")
    write_output([call()], tmp_path / "c.srt", "srt", options=opts)
    write_output([call()], tmp_path / "c.vtt", "vtt", options=opts)
    srt_words = " ".join(c.content for c in srt.parse((tmp_path / "c.srt").read_text())).split()
    assert "[unk]" in srt_words and "[noise]" in srt_words and "<unk>" not in srt_words
    vtt = (tmp_path / "c.vtt").read_text()
    assert "&lt;unk&gt;" in vtt and "<unk>" not in vtt
    shown = " ".join(line for c in webvtt.from_string(vtt) for line in shown_lines(c.raw_text)).split()
    assert "<unk>" in shown
    # the 30-s <unk> is shown no longer than a cue may last
    cue = next(c for c in webvtt.from_string(vtt) if "&lt;unk&gt;" in c.raw_text)
    h, m, s = cue.end.split(":")
    h0, m0, s0 = cue.start.split(":")
    assert (int(h) - int(h0)) * 3600 + (int(m) - int(m0)) * 60 + float(s) - float(s0) <= 7.0 + 1e-9


@pytest.mark.parametrize("word_times", [True, False])
def test_vtt_by_webvtt_py_and_pysubs2(tmp_path, word_times):
    webvtt = pytest.importorskip("webvtt")
    pysubs2 = pytest.importorskip("pysubs2")
    p = tmp_path / "call.vtt"
    write_output([call()], p, "vtt", options=WriteOptions(word_times=word_times))
    text = p.read_text()
    assert ("<00:00:" in text) == word_times
    cues = list(webvtt.from_string(text))
    for c in cues:
        lines = shown_lines(c.raw_text)
        assert len(lines) <= 2 and all(len(x) <= 42 for x in lines)
    events = pysubs2.SSAFile.from_string(text, format_="vtt")
    # what the README says pysubs2 (1.8) does: it reads WebVTT as SubRip, and a line holding
    # exactly two timestamps is a timing line to it, so each cue line with two inline word
    # timestamps starts one more event
    two = sum(len(re.findall(r"<\d\d:\d\d:\d\d\.\d\d\d>", line)) == 2 for c in cues for line in c.raw_text.splitlines())
    assert len(events) == len(cues) + two and (two > 0) == word_times
    if not word_times:  # every cue one event with its text
        assert len(events) == len(cues)
        assert all(e.plaintext.strip() for e in events)
        assert [e.plaintext.replace("\n", " ") for e in events] == [" ".join(shown_lines(c.raw_text)) for c in cues]


# ----------------------------------------------------------------------------- TextGrid

def test_textgrid_read_by_the_textgrid_package_and_praatio(tmp_path):
    textgrid = pytest.importorskip("textgrid")
    praatio = pytest.importorskip("praatio.textgrid")
    u = call()
    p = tmp_path / "call.TextGrid"
    write_output([u], p, "textgrid")
    tg = textgrid.TextGrid.fromFile(str(p))
    tiers = {t.name: t for t in tg.tiers}
    assert set(tiers) == {"words", "sentences"}
    marks = [(round(i.minTime, 3), i.mark) for i in tiers["words"] if i.mark]
    # the words tier holds every word with its mark; the overlapping word starts where the one before ends
    assert [m for _, m in marks] == [punctuated(w) for w in u.words]
    assert marks[5][0] == pytest.approx(u.words[4].end, abs=1e-3)
    assert [t for t, _ in marks][:5] == pytest.approx([w.start for w in u.words[:5]], abs=1e-3)
    sentences = [i.mark for i in tiers["sentences"] if i.mark]
    assert sentences[0].startswith("good morning, ladies") and sentences[0].endswith("twenty twenty.")
    tg2 = praatio.openTextgrid(str(p), includeEmptyIntervals=False)
    assert [e.label for e in tg2.getTier("words").entries] == [m for _, m in marks]


# ----------------------------------------------------------------------------- CTM

def _validator_errors(path: Path) -> int:
    r = subprocess.run(["perl", str(VALIDATOR), "-i", str(path)], capture_output=True, text=True)
    return sum(1 for line in r.stdout.splitlines() if line.startswith("ERROR"))


def _sclite_err(stm: Path, ctm: Path) -> float:
    import re

    r = subprocess.run(["sctk", "sclite", "-r", str(stm), "stm", "-h", str(ctm), "ctm", "-o", "sum", "stdout"],
                       capture_output=True, text=True)
    m = re.search(r"Sum/Avg\s*\|\s*\d+\s+\d+\s*\|(?:\s*[\d.]+){4}\s+([\d.]+)", r.stdout)
    assert m, r.stdout + r.stderr
    return float(m.group(1))


@pytest.mark.skipif(not VALIDATOR.is_file() or shutil.which("sctk") is None, reason="sctk is not installed")
def test_ctm_forms_by_sctk(tmp_path):
    u = call(TEXT.replace("<unk> ", "").replace("[noise] ", "").replace("it's", "its"))  # words the validator takes
    stm = tmp_path / "ref.stm"
    stm.write_text(f"call A call 0.000 1000.000 {' '.join(w.text for w in u.words)}\n")
    got = {}
    for form in CTM_MARKS:
        p = tmp_path / f"{form}.ctm"
        write_output([u], p, "ctm", options=WriteOptions(ctm_marks=form))
        got[form] = (_validator_errors(p), _sclite_err(stm, p))
    marked = sum(w.label != "O" for w in u.words)
    assert got["comment"] == got["none"] == (0, 0.0)
    assert got["glued"][0] == marked and got["glued"][1] > 0  # every glued mark is an error to both tools
    from punct.io import ctm

    (back,) = ctm.read(tmp_path / "comment.ctm")  # and punct reads the marks back from the comments
    assert [punctuated(w) for w in back.words] == [punctuated(w) for w in u.words]


# ----------------------------------------------------------------------------- data directory

def kaldi_dir(d: Path) -> Path:
    """A Kaldi data directory of two segments of one recording: upper-case text (as Kaldi's
    LibriSpeech recipe writes it), a real wav file, segments, reco2file_and_channel."""
    import numpy as np
    import soundfile as sf

    d.mkdir()
    sf.write(d / "call.wav", np.zeros(16000 * 6, dtype="float32"), 16000)
    (d / "wav.scp").write_text(f"call {d / 'call.wav'}\nother {d / 'call.wav'}\n")  # other: no segment of it
    (d / "segments").write_text("spk1-call-1 call 0.50 2.50\nspk1-call-2 call 3.00 5.50\n")
    (d / "reco2file_and_channel").write_text("call call A\nother other A\n")
    (d / "utt2spk").write_text("spk1-call-1 spk1\nspk1-call-2 spk1\n")
    (d / "spk2utt").write_text("spk1 spk1-call-1 spk1-call-2\n")
    (d / "text").write_text("spk1-call-1 GOOD MORNING AND WELCOME\nspk1-call-2 THANK YOU SO WHAT IS NEXT\n")
    return d


def restored(src: Path) -> list[Utterance]:
    utts = load_utterances(src, require_labels=False)
    for u in utts:
        u.words[-1].label = "PERIOD"
        u.words[0].label = "COMMA"
    return utts


@pytest.mark.parametrize("form", ["spelling", "punctuated"])
def test_datadir_output_is_a_kaldi_directory(tmp_path, form):
    src = kaldi_dir(tmp_path / "in")
    utts = restored(src)
    out = tmp_path / "out"
    write_output(utts, out, "datadir", options=WriteOptions(datadir_text=form, carry_from=src))
    for name in ("segments", "utt2spk", "spk2utt"):
        assert (out / name).read_text() == (src / name).read_text()
    assert (out / "wav.scp").read_text() == f"call {src / 'call.wav'}\n"  # the recordings of the output's segments
    assert (out / "reco2file_and_channel").read_text() == "call call A\n"
    text = (out / "text").read_text().splitlines()
    if form == "spelling":
        assert text == (src / "text").read_text().splitlines()
        assert validate_datadir(out) == 10
        back = load_utterances(out)  # read back: lower-case words, the spelling kept, the labels
        assert [(w.text, w.written, w.label) for w in back[0].words][:2] == [("good", "GOOD", "COMMA"), ("morning", "MORNING", "O")]
    else:
        assert text == ["spk1-call-1 GOOD, MORNING AND WELCOME.", "spk1-call-2 THANK, YOU SO WHAT IS NEXT."]
    assert (out / "labels").read_text().splitlines()[0] == "spk1-call-1 COMMA O O PERIOD"
    lhotse_kaldi = pytest.importorskip("lhotse.kaldi")
    recordings, supervisions, _ = lhotse_kaldi.load_kaldi_data_dir(out, sampling_rate=16000)
    assert [r.id for r in recordings] == ["call"]
    assert [(s.id, s.recording_id, s.start, s.speaker, s.text) for s in supervisions] == [
        ("spk1-call-1", "call", 0.5, "spk1", text[0].split(" ", 1)[1]),
        ("spk1-call-2", "call", 3.0, "spk1", text[1].split(" ", 1)[1])]


def test_datadir_output_without_an_input_directory_carries_nothing(tmp_path):
    utts = restored(kaldi_dir(tmp_path / "in"))
    write_output(utts, tmp_path / "out", "datadir")
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")) == \
        ["labels", "spk2utt", "text", "utt2spk"]


def test_datadir_output_reruns_into_its_own_folder_and_refuses_a_foreign_one(tmp_path):
    from punct.errors import PunctError

    utts = restored(kaldi_dir(tmp_path / "in"))
    out = tmp_path / "out"
    write_output(utts, out, "datadir")
    utts[0].words[0].label = "O"
    write_output(utts, out, "datadir")  # a rerun replaces punct's own output (its .punct-output)
    assert (out / "labels").read_text().splitlines()[0] == "spk1-call-1 O O O PERIOD"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me\n")
    with pytest.raises(PunctError, match="not an output of this command"):
        write_output(utts, mine, "datadir")
    assert (mine / "notes.txt").read_text() == "keep me\n" and len(list(mine.iterdir())) == 1
