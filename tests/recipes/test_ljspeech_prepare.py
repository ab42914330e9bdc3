"""recipes/ljspeech/prepare.py on a tiny fake LJ Speech made in tmp_path."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from punct.data.datadir import load_utterances

from punct.data.tables import read_table

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "recipes" / "ljspeech" / "prepare.py"
sf = pytest.importorskip("soundfile")

CLIPS = [
    ("LJ001-0001", "Printing, in the only sense with which we are at present concerned,",
     "Printing, in the only sense with which we are at present concerned,"),
    ("LJ001-0002", "in being comparatively modern.", "in being comparatively modern."),
    ("LJ001-0003", "the Bible (of 1455) was printed; it's \"forty-two line\".",
     "the Bible (of fourteen fifty-five) was printed; it's \"forty-two line\"."),
    ("LJ002-0001", "Is it? Yes: no.", "Is it? Yes: no."),
    ("LJ002-0002", "The end.", "The end."),
]


@pytest.fixture(scope="module")
def prep():
    spec = importlib.util.spec_from_file_location("ljspeech_prepare", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


@pytest.fixture
def corpus(tmp_path) -> Path:
    d = tmp_path / "corpus" / "ljspeech"
    (d / "wavs").mkdir(parents=True)
    (d / "metadata.csv").write_text("".join(f"{c}|{t}|{n}\n" for c, t, n in CLIPS), encoding="utf-8")
    for c, _, _ in CLIPS:
        sf.write(d / "wavs" / f"{c}.flac", np.zeros(2205, dtype=np.float32), 22050)
    return tmp_path / "corpus"


def words(d: Path) -> dict[str, list[str]]:
    return {u.id: [f"{w.text}/{w.label}" for w in u.words] for u in load_utterances(d)}


def test_sets_labels_and_audio(prep, corpus, tmp_path):
    out = tmp_path / "data"
    assert prep.main(["--corpus-dir", str(corpus), "--out-dir", str(out), "--splits", "train:0.6,dev:0.2,test:0.2"]) == 0
    assert [k for k, _, _ in read_table(out / "train" / "text")] == ["LJ001-0001", "LJ001-0002", "LJ001-0003"]
    assert [k for k, _, _ in read_table(out / "dev" / "text")] == ["LJ002-0001"]
    assert [k for k, _, _ in read_table(out / "test" / "text")] == ["LJ002-0002"]
    w = words(out / "train")
    assert w["LJ001-0001"][0] == "printing/COMMA" and w["LJ001-0001"][-1] == "concerned/COMMA"
    # normalized text; parentheses keep their (spoken) words; clitics split; quotes dropped
    assert w["LJ001-0003"] == ["the/O", "bible/O", "of/O", "fourteen/O", "fifty-five/O", "was/O", "printed/PERIOD",
                               "it/O", "'s/O", "forty-two/O", "line/PERIOD"]
    assert words(out / "dev")["LJ002-0001"] == ["is/O", "it/QUESTION", "yes/COMMA", "no/PERIOD"]
    assert {v[0] for _, v, _ in read_table(out / "train" / "utt2spk")} == {"LJ"}
    wav = {k: v[0] for k, v, _ in read_table(out / "train" / "wav.scp")}
    assert Path(wav["LJ001-0002"]).is_file() and wav["LJ001-0002"].endswith("LJ001-0002.flac")
    assert (out / "train" / ".done").is_file()


def test_quick_slice_and_rerun_skips(prep, corpus, tmp_path, caplog):
    out = tmp_path / "data"
    args = ["--corpus-dir", str(corpus), "--out-dir", str(out), "--splits", "lj:1", "--max-utts", "2"]
    assert prep.main(args) == 0
    assert [k for k, _, _ in read_table(out / "lj" / "text")] == ["LJ001-0001", "LJ001-0002"]
    caplog.clear()
    assert prep.main(args) == 0
    assert "are done; skipping" in caplog.text


def test_missing_audio_and_bad_metadata(prep, corpus, tmp_path, capsys):
    (corpus / "ljspeech" / "wavs" / "LJ001-0002.flac").unlink()
    assert prep.main(["--corpus-dir", str(corpus), "--out-dir", str(tmp_path / "d")]) == 1
    assert "audio of clip LJ001-0002 not found" in capsys.readouterr().err
    (corpus / "ljspeech" / "metadata.csv").write_text("LJ001-0001|only two fields\n")
    assert prep.main(["--corpus-dir", str(corpus), "--out-dir", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error:") and "metadata.csv:1: expected 'id|text|normalized text', got 2 fields" in err


def test_a_passage_is_one_utterance_of_its_clips_in_order_without_audio(prep, corpus, tmp_path):
    out = tmp_path / "data"
    assert prep.main(["--corpus-dir", str(corpus), "--out-dir", str(out), "--splits", "book:0.6,rest:0.4",
                      "--passage", "true"]) == 0
    assert words(out / "rest") == {"rest": ["is/O", "it/QUESTION", "yes/COMMA", "no/PERIOD", "the/O", "end/PERIOD"]}
    one_by_one = [w for _, _, text in CLIPS[:3] for w in prep.tokenize(text)]
    assert words(out / "book") == {"book": [f"{w.text}/{w.label}" for w in one_by_one]}
    assert not (out / "book" / "wav.scp").exists()
    assert read_table(out / "book" / "utt2spk") == [("book", ["LJ"], 1)]
