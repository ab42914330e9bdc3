"""punct.restore.restore_file, what ``punct restore`` runs: a CTM to every output form, one file
per recording where a format times one recording, the layouts of inputs other tools write (a
Kaldi data directory's reco2file_and_channel, a TextGrid with other tiers than its words), and
its progress bar on a terminal."""
import random

import pytest

from punct.engine.decode import predict_streams
from punct.engine.restorer import Restorer
from punct.errors import PunctError
from punct.io import read_input
from punct.io.sentences import punctuated
from punct.restore import restore_file
from punct.text.labels import LABELS
from punct.text.words import Utterance, Word
from tests.tiny_models import CTM, make_tiny_model


#: windows of a few words run on one torch thread (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny T-BRNN of tests/tiny_models.py: (path, model, vocabulary)."""
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    return (path, *make_tiny_model(path))


def test_datadir_reco2file_and_channel_gives_the_ctm_its_file_and_channel(tiny, tmp_path):
    model_path, _, _ = tiny
    d = tmp_path / "swb"
    d.mkdir()
    # Switchboard-style: one recording per side of a call, both in file sw02001
    (d / "segments").write_text("sw02001-A-1 sw02001-A 0.5 2.0\nsw02001-B-1 sw02001-B 1.0 3.0\n")
    (d / "reco2file_and_channel").write_text("sw02001-A sw02001 A\nsw02001-B sw02001 B\n")
    (d / "text").write_text("sw02001-A-1 hello there\nsw02001-B-1 hi how are you\n")
    (d / "word_times").write_text("sw02001-A-1 0.5,0.9 1.0,1.4\nsw02001-B-1 1.0,1.2 1.3,1.5 1.6,1.8 1.9,2.2\n")
    restore_file(d, tmp_path / "o.ctm", model=model_path)
    lines = [x.split() for x in (tmp_path / "o.ctm").read_text().splitlines() if not x.startswith(";;")]
    assert [x[:3] for x in lines] == [["sw02001", "A", "0.50"], ["sw02001", "A", "1.00"], ["sw02001", "B", "1.00"],
                                      ["sw02001", "B", "1.30"], ["sw02001", "B", "1.60"], ["sw02001", "B", "1.90"]]
    # a punct data directory read back into a CTM keeps the channel its reco2file_and_channel says
    from punct.io.options import WriteOptions

    restore_file(d, tmp_path / "out", model=model_path, output_format_name="datadir",
                 write_options=WriteOptions(carry_from=d))
    assert (tmp_path / "out" / "reco2file_and_channel").is_file()
    restore_file(tmp_path / "out", tmp_path / "back.ctm", model=model_path)
    back = [x.split()[:2] for x in (tmp_path / "back.ctm").read_text().splitlines() if not x.startswith(";;")]
    assert back == [x[:2] for x in lines]
    (d / "reco2file_and_channel").write_text("sw02001-A sw02001 A\n")
    with pytest.raises(PunctError, match="recording 'sw02001-B' of utterance 'sw02001-B-1' is not in reco2file"):
        restore_file(d, tmp_path / "x.ctm", model=model_path)


def test_textgrid_in_textgrid_out_keeps_the_other_tiers_and_the_time_span(tiny, tmp_path, caplog):
    from praatio import textgrid as ptg

    from punct.io.options import WriteOptions

    model_path, _, _ = tiny
    tg = ptg.Textgrid()
    words = [(0.5, 0.9, "so"), (0.9, 1.3, "how"), (1.3, 1.6, "are"), (1.6, 2.0, "you")]
    phones = [(0.5, 0.7, "s"), (0.7, 0.9, "ow"), (0.9, 1.3, "hh aw"), (1.3, 1.6, "aa r"), (1.6, 2.0, "y uw")]
    tg.addTier(ptg.IntervalTier("words", words, 0.0, 9.655))
    tg.addTier(ptg.IntervalTier("phones", phones, 0.0, 9.655))
    src = tmp_path / "in.TextGrid"
    tg.save(str(src), format="long_textgrid", includeBlankSpaces=True)
    out = tmp_path / "out.TextGrid"
    restore_file(src, out, model=model_path, write_options=WriteOptions(textgrid_from=src))
    back = ptg.openTextgrid(str(out), includeEmptyIntervals=False)
    assert back.tierNames == ("words", "phones", "sentences")
    assert back.maxTimestamp == 9.655
    assert [tuple(e) for e in back.getTier("phones").entries] == phones
    assert [(e.start, e.end) for e in back.getTier("words").entries] == [(s, e) for s, e, _ in words]
    # words that overlap are moved to keep the tier in order, and the log says how far
    (tmp_path / "o.ctm").write_text("rec 1 0.50 0.40 so\nrec 1 0.60 0.50 how\nrec 1 1.40 0.30 are\n")
    restore_file(tmp_path / "o.ctm", tmp_path / "o.TextGrid", model=model_path)
    assert "1 word(s) of the words tier moved or shortened" in caplog.text and "largest shift 0.300 s" in caplog.text
    # or, with --textgrid-overlaps tiers, kept on a second words tier with their times
    restore_file(tmp_path / "o.ctm", tmp_path / "t.TextGrid", model=model_path,
                 write_options=WriteOptions(textgrid_overlaps="tiers"))
    back = ptg.openTextgrid(str(tmp_path / "t.TextGrid"), includeEmptyIntervals=False)
    assert back.tierNames == ("words", "words 2", "sentences")
    assert [(e.start, e.end, e.label.rstrip(",.?")) for e in back.getTier("words").entries] == [
        (0.5, 0.9, "so"), (1.4, 1.7, "are")]
    assert [(e.start, e.end, e.label.rstrip(",.?")) for e in back.getTier("words 2").entries] == [(0.6, 1.1, "how")]
    assert "1 word(s) of the words tier overlap the word before them: on 1 more words tier(s)" in caplog.text


def test_a_long_restore_on_a_terminal_shows_its_progress_as_windows_are_decided(tiny, monkeypatch):
    import sys

    import tqdm

    model_path, _, vocab = tiny
    updates = []

    class Bar:
        def __init__(self, total, **kw):
            self.total = total

        def update(self, n):
            updates.append(n)

        def close(self):
            pass

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    rng = random.Random(0)
    words = [w for w in vocab.words if not w.startswith("<")]
    utts = [Utterance(f"u{k}", [Word(rng.choice(words)) for _ in range(7000)]) for k in range(3)]
    Restorer.load(model_path, window=200).restore(utts, progress=True)
    assert len(updates) > 3 and sum(updates) == 21000  # one update per decoded window, not one at the end


def test_end_to_end_ctm_to_every_format(tiny, tmp_path):
    model_path, model, vocab = tiny
    src = tmp_path / "call.ctm"
    src.write_text(CTM)
    (inp,) = read_input(src)
    hyp = restore_file(src, tmp_path / "out.ctm", model=model_path, end_sentence=False)
    labels = [w.label for w in hyp[0].words]
    assert len(set(labels)) >= 2
    # the same labels as decoding the whole stream of model tokens at once
    r = Restorer(model, vocab, window=16)
    toks = [r._encoded(w)[1] for w in inp.words]
    whole = predict_streams(model, [[i for t in toks for i in t]], window=16)[0]
    ends = [sum(len(t) for t in toks[: k + 1]) - 1 for k in range(len(toks))]
    assert labels == [LABELS[whole[e]] for e in ends]
    out_ctm = read_input(tmp_path / "out.ctm")[0]
    assert [punctuated(w) for w in out_ctm.words] == [punctuated(w) for w in hyp[0].words]
    assert out_ctm.words[0].written == "GOOD" and out_ctm.words[0].start == 0.0 and out_ctm.words[1].conf == 0.9
    for ext in (".srt", ".vtt", ".TextGrid", ".json", ".txt"):
        restore_file(src, tmp_path / f"out{ext}", model=model_path, end_sentence=False)
        assert (tmp_path / f"out{ext}").stat().st_size > 0
    for ext in (".TextGrid", ".json"):
        back = read_input(tmp_path / f"out{ext}")[0]
        assert [(punctuated(w), w.start, w.end) for w in back.words] == [(punctuated(w), w.start, w.end) for w in hyp[0].words]
    from punct.io.subtitles import shown

    for ext in (".srt", ".vtt"):  # subtitles leave out <unk> (and move its mark to the word before)
        back = read_input(tmp_path / f"out{ext}")[0]
        assert [punctuated(w) for w in back.words] == [punctuated(w) for w in shown(hyp, ext[1:])[0].words]
    text = (tmp_path / "out.txt").read_text()
    assert text.split() == [punctuated(w) for w in hyp[0].words]


def test_one_file_per_recording(tiny, tmp_path):
    """A TextGrid or a subtitle file times one recording: input of several goes to a
    directory, one file each; to one file (or stdout) it is a one-line error. Any other
    format but a data directory goes to a directory the same way when -o names one."""
    model_path, _, _ = tiny
    (tmp_path / "all.ctm").write_text("call1 A 0.10 0.20 good\ncall1 A 0.40 0.20 morning\n"
                                      "call2 A 0.10 0.30 thank\ncall2 A 0.50 0.20 you\n")
    for out, fmt in ((tmp_path / "x.TextGrid", None), (None, "srt")):
        with pytest.raises(PunctError, match=r"the input holds 2 recordings \(call1, call2\), and one "
                                             r"(TextGrid|SRT file) times one recording: give -o DIR/") as e:
            restore_file(tmp_path / "all.ctm", out, model=model_path, output_format_name=fmt)
        assert e.value.path == str(out or tmp_path / "all.ctm")
    assert not (tmp_path / "x.TextGrid").exists()
    hyp = restore_file(tmp_path / "all.ctm", f"{tmp_path / 'tg'}/", model=model_path, output_format_name="textgrid")
    assert sorted(p.name for p in (tmp_path / "tg").iterdir()) == [".punct-output", "call1.TextGrid", "call2.TextGrid"]
    for rec in ("call1", "call2"):
        (back,) = read_input(tmp_path / "tg" / f"{rec}.TextGrid")
        want = [u for u in hyp if u.recording == rec][0]
        assert [(punctuated(w), w.start) for w in back.words] == [(punctuated(w), w.start) for w in want.words]
    # an existing directory takes one recording's file too
    restore_file(tmp_path / "all.ctm", tmp_path / "tg", model=model_path, output_format_name="vtt")
    assert sorted(p.name for p in (tmp_path / "tg").iterdir())[-2:] == ["call2.TextGrid", "call2.vtt"]
    # formats that hold many recordings are one file as before
    restore_file(tmp_path / "all.ctm", tmp_path / "all.out.ctm", model=model_path)
    assert {line.split()[0] for line in (tmp_path / "all.out.ctm").read_text().splitlines()
            if not line.startswith(";;")} == {"call1", "call2"}
    # or, to a directory, one file per recording too (a folder of CTMs in, a folder of CTMs out)
    for fmt, ext in (("ctm", ".ctm"), ("json", ".json"), ("text", ".txt")):
        restore_file(tmp_path / "all.ctm", f"{tmp_path / fmt}/", model=model_path, output_format_name=fmt)
        assert sorted(p.name for p in (tmp_path / fmt).iterdir()) == [".punct-output", f"call1{ext}", f"call2{ext}"]
    assert (tmp_path / "ctm" / "call2.ctm").read_text().splitlines()[1:] == [
        line for line in (tmp_path / "all.out.ctm").read_text().splitlines()
        if line.startswith(("call2 ", ";; punct-mark call2 "))]
