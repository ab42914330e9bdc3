"""punct.prosody.features: per-word feature sets of a data directory written and read (ark, scp,
names), concatenated, found after a move, checked against the words."""
import shutil

import numpy as np
import pytest

from punct.data.datadir import write_datadir
from punct.errors import PunctError
from punct.prosody.features import feature_names, load_word_features, read_features, write_features
from punct.text.words import Utterance, Word


@pytest.fixture
def datadir(tmp_path):
    d = tmp_path / "data"
    write_datadir(d, [Utterance("b-utt", [Word("x"), Word("y"), Word("z")]), Utterance("a-utt", [Word("w")])])
    return d


def mats(cols, seed=0):
    rng = np.random.default_rng(seed)
    return {"a-utt": rng.normal(size=(1, cols)).astype(np.float32), "b-utt": rng.normal(size=(3, cols)).astype(np.float32)}


def test_write_read_layout(datadir):
    m = mats(2)
    write_features(datadir, "pause", m, ["p1", "p2"])
    scp = (datadir / "pause.scp").read_text().splitlines()
    assert [line.split()[0] for line in scp] == ["a-utt", "b-utt"]  # sorted keys
    assert scp[0].split()[1].startswith(str((datadir / "pause.ark").resolve()) + ":")
    assert (datadir / "pause.names").read_text() == "p1\np2\n"
    back, names = read_features(datadir, "pause")
    assert names == ["p1", "p2"]
    for k in m:
        np.testing.assert_array_equal(back[k], m[k])
        assert back[k].dtype == np.float32
    # kaldiio reads the scp as Kaldi would
    import kaldiio

    np.testing.assert_array_equal(kaldiio.load_scp(str(datadir / "pause.scp"))["b-utt"], m["b-utt"])


def test_load_word_features_concatenates(datadir):
    p, q = mats(2, 1), mats(3, 2)
    write_features(datadir, "pause", p, ["p1", "p2"])
    write_features(datadir, "prosody", q, ["f0", "e", "x"])
    feats = load_word_features(datadir, ["pause", "prosody"])
    assert feats["b-utt"].shape == (3, 5)
    np.testing.assert_array_equal(feats["b-utt"][:, 2:], q["b-utt"])
    assert feature_names(datadir, ["pause", "prosody"]) == ["p1", "p2", "f0", "e", "x"]


def test_moved_directory_finds_its_ark(datadir, tmp_path):
    write_features(datadir, "pause", mats(2), ["p1", "p2"])
    moved = tmp_path / "moved"
    shutil.move(str(datadir), moved)
    assert load_word_features(moved, ["pause"])["b-utt"].shape == (3, 2)


def test_word_count_and_key_checks(datadir):
    bad = mats(2)
    bad["b-utt"] = bad["b-utt"][:2]
    write_features(datadir, "pause", bad, ["p1", "p2"])
    with pytest.raises(PunctError, match="b-utt: 2 feature rows for 3 words in text") as e:
        load_word_features(datadir, ["pause"])
    assert e.value.path.endswith("pause.scp") and e.value.line == 2
    write_features(datadir, "pause", {"a-utt": mats(2)["a-utt"]}, ["p1", "p2"])
    with pytest.raises(PunctError, match="no features for utterance 'b-utt'"):
        load_word_features(datadir, ["pause"])
    with pytest.raises(PunctError, match="file not found"):
        load_word_features(datadir, ["prosody"])


def test_write_rejects_bad_matrices(datadir):
    with pytest.raises(PunctError, match="expected \\[n_words, 3\\]"):
        write_features(datadir, "pause", mats(2), ["a", "b", "c"])
    m = mats(2)
    m["a-utt"][0, 0] = np.nan
    with pytest.raises(PunctError, match="NaN"):
        write_features(datadir, "pause", m, ["a", "b"])
    assert not (datadir / "pause.scp").exists()
    (datadir / "pause.names").write_text("only_one\n")
    write_features(datadir, "ok", mats(2), ["a", "b"])
    (datadir / "ok.names").write_text("only_one\n")
    with pytest.raises(PunctError, match="but 1 names"):
        read_features(datadir, "ok")


def test_missing_words_from_flag_columns():
    from punct.prosody.features import missing_words

    m = np.array([[0.3, 0, 0], [0.0, 1, 0], [0.0, 0, 1], [2.0, 0, 0]], np.float32)
    assert missing_words(m, ["pause_after", "untimed", "pause_after_unknown"]).tolist() == [False, True, True, False]
    assert missing_words(m, ["a", "b", "c"]).tolist() == [False] * 4  # no flag columns: nothing is missing
    with pytest.raises(ValueError, match="names"):
        missing_words(m, ["a"])
