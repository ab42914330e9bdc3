"""punct.bin.prosody_feats, stage 4 on a data directory of silent recordings: raw features of each
part, merged and normalized into DATA/prosody.*, and the merge's refusals (a part missing, an
utterance in two parts); the features themselves are checked in tests/prosody/."""
from __future__ import annotations

import json

import numpy as np
import pytest

from punct.bin import prosody_feats
from punct.fsutil import is_done
from punct.prosody.features import load_word_features

TIMES = {"u1": "0.100,0.400 0.500,0.900", "u2": "0.100,0.400 0.500,0.900", "u3": "0.200,0.700"}


@pytest.fixture
def data(split_data):
    """tests/bin/conftest.py's split data directory with word times."""
    for d in (split_data, split_data / "split2" / "1", split_data / "split2" / "2"):
        utts = [line.split()[0] for line in (d / "text").read_text().splitlines()]
        (d / "word_times").write_text("".join(f"{u} {TIMES[u]}\n" for u in utts))
    return split_data


def extract(data, out, *parts):
    for j in parts:
        assert prosody_feats.main(["--data", str(data / "split2" / str(j)), "--out-dir", str(out / f"part.{j}")]) == 0


def test_parts_are_pooled_then_merged_into_the_data_directory(data, tmp_path, caplog):
    out = tmp_path / "prosody"
    extract(data, out, 1, 2)
    assert is_done(out / "part.1") and (out / "part.1" / "raw.scp").is_file()
    extract(data, out, 1)
    assert "is finished; skipping" in caplog.text
    assert prosody_feats.main(["--merge", "2", "--data", str(data), "--out-dir", str(out)]) == 0
    feats = load_word_features(data, ["prosody"])
    assert {k: len(m) for k, m in feats.items()} == {"u1": 2, "u2": 2, "u3": 1}
    assert all(np.isfinite(m).all() for m in feats.values())
    assert is_done(data / "prosody") and json.loads((out / "report.json").read_text())["words"] == 5


def test_a_merge_of_parts_that_miss_an_utterance_is_refused(data, tmp_path, capsys):
    out = tmp_path / "prosody"
    extract(data, out, 1)
    assert prosody_feats.main(["--merge", "1", "--data", str(data), "--out-dir", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f"error: {data / 'text'}: the parts cover other utterances than text (e.g. 'u3')"
    assert not (data / "prosody.scp").exists()


def test_an_utterance_in_two_parts_is_refused(data, tmp_path, capsys):
    out = tmp_path / "prosody"
    extract(data, out, 1)
    assert prosody_feats.main(["--data", str(data / "split2" / "1"), "--out-dir", str(out / "part.2")]) == 0
    assert prosody_feats.main(["--merge", "2", "--data", str(data), "--out-dir", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f"error: {out / 'part.2' / 'raw.scp'}: utterance 'u1' is in more than one part"


def test_a_part_without_word_times_is_one_line(data, tmp_path, capsys):
    part = data / "split2" / "2"
    (part / "word_times").unlink()
    assert prosody_feats.main(["--data", str(part), "--out-dir", str(tmp_path / "part.2")]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"error: {part / 'word_times'}: input not found"
