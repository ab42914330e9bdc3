"""punct restore on the layouts of its inputs that other tools write: a Kaldi data directory's
reco2file_and_channel (Switchboard-style recordings of one file's channels), a TextGrid with
other tiers than its words; and its progress bar on a terminal."""
import random

import pytest

from punct.errors import PunctError
from punct.engine.restorer import Restorer
from punct.restore import restore_file
from punct.text.words import Utterance, Word
from tests.tiny_models import make_tiny_model


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
