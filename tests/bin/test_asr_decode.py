"""punct.bin.asr_decode, stage 3 on a data directory: parts decoded and marked done, a finished
part skipped, the parts merged into a hypothesis data directory scored for WER, an unfinished
part refused; the recognizer is stood in for by a fake (Festival speech through the real
one: test_audio_stages_bin.py)."""
from __future__ import annotations

import json

import pytest

from punct.align import batch
from punct.bin import asr_decode
from punct.data.datadir import validate_datadir
from punct.fsutil import is_done
from punct.text.words import Word


class FakeRecognizer:
    """Hears ``hello`` at the start of every utterance but u3, where it hears nothing; counts its calls."""

    calls = 0

    def __init__(self, cfg=None):
        pass

    def decode(self, x, utt, offset=0.0):
        FakeRecognizer.calls += 1
        return [] if utt == "u3" else [Word("hello", start=offset + 0.1, end=offset + 0.4, conf=0.9)]


@pytest.fixture
def data(split_data, monkeypatch):
    """tests/bin/conftest.py's split data directory, decoded by FakeRecognizer."""
    monkeypatch.setattr(batch, "Recognizer", FakeRecognizer)
    FakeRecognizer.calls = 0
    return split_data


def test_parts_are_decoded_skipped_when_done_and_merged_into_a_scored_hypothesis_directory(data, tmp_path):
    out, hyp = tmp_path / "exp" / "asr", tmp_path / "hyp"
    for j in (1, 2):
        assert asr_decode.main(["--data", str(data / "split2" / str(j)), "--out-dir", str(out / f"part.{j}")]) == 0
        assert is_done(out / f"part.{j}")
    assert FakeRecognizer.calls == 3
    assert asr_decode.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.1")]) == 0
    assert FakeRecognizer.calls == 3  # finished: skipped
    assert asr_decode.main(["--merge", "2", "--data", str(data), "--out-dir", str(out), "--hyp-dir", str(hyp)]) == 0
    validate_datadir(hyp, require_labels=False)
    assert (hyp / "text").read_text() == "u1 hello\nu2 hello\nu3\n" and (hyp / "ctm").is_file()
    assert json.loads((out / "report.json").read_text())["empty_hypotheses"] == 1
    ps = json.loads((out / "scoring" / "wer.json").read_text())["punct_score"]
    # u1 "hello world": world deleted; u2 "good bye": a substitution and a deletion; u3 "thanks" deleted
    assert (ps["ref_words"], ps["substitutions"], ps["deletions"], ps["insertions"], ps["wer"]) == (5, 1, 3, 0, 80.0)
    assert is_done(out) and is_done(hyp)


def test_a_merge_without_a_hypothesis_directory_only_joins_the_parts(data, tmp_path):
    out = tmp_path / "asr"
    for j in (1, 2):
        assert asr_decode.main(["--data", str(data / "split2" / str(j)), "--out-dir", str(out / f"part.{j}")]) == 0
    assert asr_decode.main(["--merge", "2", "--data", str(data), "--out-dir", str(out)]) == 0
    assert (out / "word_conf").read_text() == "u1 0.9000\nu2 0.9000\nu3\n" and is_done(out)
    assert not (out / "scoring").exists()


def test_a_merge_with_an_unfinished_part_is_refused(data, tmp_path, capsys):
    out = tmp_path / "asr"
    assert asr_decode.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.1")]) == 0
    assert asr_decode.main(["--merge", "2", "--data", str(data), "--out-dir", str(out), "--hyp-dir",
                            str(tmp_path / "hyp")]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f"error: {out / 'part.2'}: job output is not finished (no .done)"
    assert not (tmp_path / "hyp").exists()
