"""punct.bin.align, stage 2 on a data directory: a part aligned and marked done, a finished part
skipped, the parts merged into the directory's word_times, an unfinished part refused; the
aligner is stood in for by a fake (Festival speech through the real one: test_audio_stages_bin.py)."""
from __future__ import annotations

import pytest

from punct.align import batch
from punct.align.aligner import Alignment, PhoneSeg
from punct.bin import align
from punct.fsutil import is_done, mark_done
from punct.text.words import Word

class FakeAligner:
    """Each token gets 0.25 s from the start of its utterance; counts its calls."""

    calls = 0

    def __init__(self, cfg=None):
        pass

    def align(self, x, tokens, utt, offset=0.0, where=None, line=None):
        FakeAligner.calls += 1
        words = [Word(t, start=offset + 0.25 * k, end=offset + 0.25 * (k + 1), conf=1.0) for k, t in enumerate(tokens)]
        return Alignment(utt, words, [[PhoneSeg("AH", w.start, w.end)] for w in words])


@pytest.fixture
def data(split_data, monkeypatch):
    """tests/bin/conftest.py's split data directory, aligned by FakeAligner."""
    monkeypatch.setattr(batch, "ForcedAligner", FakeAligner)
    FakeAligner.calls = 0
    return split_data


def test_parts_are_aligned_skipped_when_done_and_merged_into_the_data(data, tmp_path, caplog):
    out = tmp_path / "exp" / "align"
    for j in (1, 2):
        assert align.main(["--data", str(data / "split2" / str(j)), "--out-dir", str(out / f"part.{j}"),
                           "--no-textgrid"]) == 0
        assert is_done(out / f"part.{j}")
    assert FakeAligner.calls == 3
    assert align.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.1")]) == 0
    assert FakeAligner.calls == 3 and "is finished; skipping" in caplog.text
    assert align.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.1"), "--force",
                       "--no-textgrid"]) == 0
    assert FakeAligner.calls == 5
    assert align.main(["--merge", "2", "--data", str(data), "--out-dir", str(out)]) == 0
    assert (data / "word_times").read_text().splitlines() == [
        "u1 0.000,0.250 0.250,0.500", "u2 0.000,0.250 0.250,0.500", "u3 0.000,0.250"]
    assert len((out / "words.ctm").read_text().splitlines()) == 5 and is_done(out)


def test_a_part_is_done_only_with_its_mark_and_the_texts_utterances(data, tmp_path):
    out = tmp_path / "part"
    out.mkdir()
    (out / "word_times").write_text("u1 0.000,0.250 0.250,0.500\nu2 0.000,0.250 0.250,0.500\n")
    part = data / "split2" / "1"
    assert not align.part_is_done(part, out)  # not marked done
    mark_done(out)
    assert align.part_is_done(part, out)
    (out / "word_times").write_text("u1 0.000,0.250 0.250,0.500\n")  # an utterance short
    assert not align.part_is_done(part, out)


def test_a_merge_with_an_unfinished_part_is_refused_and_installs_nothing(data, tmp_path, capsys):
    out = tmp_path / "align"
    assert align.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.1"), "--no-textgrid"]) == 0
    (out / "part.2").mkdir()
    assert align.main(["--merge", "2", "--data", str(data), "--out-dir", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f"error: {out / 'part.2'}: job output is not finished (no .done)"
    assert not (data / "word_times").exists()


def test_without_data_or_out_dir_it_says_what_is_needed(capsys):
    assert align.main(["--data", "somewhere"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --data and --out-dir are required (or --prepare-lts)"]
