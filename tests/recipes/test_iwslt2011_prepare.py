"""recipes/iwslt2011/prepare.py on a tiny fake corpus made in tmp_path."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from punct.data.datadir import load_utterances, validate_datadir

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "recipes" / "iwslt2011" / "prepare.py"


@pytest.fixture(scope="module")
def prep():
    spec = importlib.util.spec_from_file_location("iwslt2011_prepare", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # so worker processes can pickle its functions
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def bench(rows) -> str:
    return "".join(f"{w}\t{lab}\n" for w, lab in rows)


@pytest.fixture
def corpus(tmp_path) -> Path:
    d = tmp_path / "corpus"
    (d / "iwslt2011").mkdir(parents=True)
    test = [("hello", "O"), ("world", "PERIOD"), ("how", "O"), ("are", "O"), ("you", "QUESTION"),
            ("fine", "COMMA"), ("thanks", "PERIOD")]
    (d / "iwslt2011" / "test2011").write_text(bench(test))
    # line 3 has an empty word: its COMMA belongs to 'we'; line 6's PERIOD loses to 'go' QUESTION
    dev = [("so", "O"), ("we", "O"), ("", "COMMA"), ("can", "O"), ("go", "QUESTION"), ("", "PERIOD"),
           ("yes", "PERIOD")]
    (d / "iwslt2011" / "dev2012").write_text(bench(dev))
    talks = d / "ted" / "talks"
    talks.mkdir(parents=True)
    (talks / "b_talk.md").write_text("\n\nTranslator: X\n\nReviewer: Y\nWe&#39;re here,\nto talk.\n(Laughter)\n")
    (talks / "a talk (1).md").write_text("\nI can&#39;t\nsee it. Can you?\n")
    (talks / "c_talk.md").write_text("Mr. Smith went to the U.S. -- \nwith 10,000 people!\n")
    (talks / "d_empty.md").write_text("\n\n(Applause)\n")
    return d


def run_main(prep, corpus, out, *extra):
    return prep.main(["--corpus-dir", str(corpus), "--out-dir", str(out), "--nj", "1", *extra])


def texts(d: Path) -> dict[str, list[str]]:
    return {u.id: [f"{w.text}/{w.label}" for w in u.words] for u in load_utterances(d)}


def test_prepare_all_sets(prep, corpus, tmp_path):
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--utt-words", "2") == 0
    for s in ("test2011", "dev2012", "train"):
        assert validate_datadir(out / s) > 0
        assert (out / s / ".done").exists()
    # test2011: cut after sentence ends once 2 words are reached; concatenation is the stream
    t = texts(out / "test2011")
    assert list(t) == ["test2011-0001", "test2011-0002", "test2011-0003"]
    assert sum(t.values(), []) == ["hello/O", "world/PERIOD", "how/O", "are/O", "you/QUESTION",
                                   "fine/COMMA", "thanks/PERIOD"]
    dev = sum(texts(out / "dev2012").values(), [])
    assert dev == ["so/O", "we/COMMA", "can/O", "go/QUESTION", "yes/PERIOD"]
    stats = json.loads((out / "dev2012" / "stats.json").read_text())
    assert stats["empty_word_lines_fixed"] == 2
    assert stats["words"] == 5 and stats["labels"]["COMMA"] == 1
    tr = texts(out / "train")
    assert sorted(tr) == ["a_talk_1", "b_talk", "c_talk"]  # d_empty skipped
    assert tr["a_talk_1"] == ["i/O", "ca/O", "n't/O", "see/O", "it/PERIOD", "can/O", "you/QUESTION"]
    assert tr["b_talk"] == ["we/O", "'re/O", "here/COMMA", "to/O", "talk/PERIOD"]
    assert tr["c_talk"][:5] == ["mr./O", "smith/O", "went/O", "to/O", "the/O"]
    # "U.S. --": the abbreviation dot is a mark, as in the test set, and beats the dash
    assert tr["c_talk"][5:] == ["us/PERIOD", "with/O", "10,000/O", "people/PERIOD"]


def test_train_words_takes_whole_talks(prep, corpus, tmp_path):
    out = tmp_path / "data"
    # a_talk_1 has 7 words: a budget of 3 still takes all of it and nothing more
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "3") == 0
    tr = texts(out / "train")
    assert list(tr) == ["a_talk_1"] and len(tr["a_talk_1"]) == 7
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "8", "--train-name", "train_8",
                    "--force") == 0
    assert sorted(texts(out / "train_8")) == ["a_talk_1", "b_talk"]


def test_skip_words_holds_out_the_talks_after_a_train_words_set(prep, corpus, tmp_path):
    """--skip-words N passes over exactly the talks --train-words N takes: the two sets part the talks."""
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "8", "--train-name", "t8") == 0
    assert run_main(prep, corpus, out, "--sets", "train", "--skip-words", "8", "--train-name", "rest") == 0
    assert sorted(texts(out / "t8")) == ["a_talk_1", "b_talk"] and sorted(texts(out / "rest")) == ["c_talk"]
    assert json.loads((out / "rest" / "stats.json").read_text())["words_skipped"] == 12
    assert run_main(prep, corpus, out, "--sets", "train", "--skip-words", "3", "--train-words", "1",
                    "--train-name", "one") == 0
    assert list(texts(out / "one")) == ["b_talk"]


def test_sentence_length_takes_the_talks_punctuated_nearest_it(prep, corpus, tmp_path, capsys):
    """Words per sentence: a_talk_1 7/2 = 3.5, b_talk 5/1 = 5, c_talk 9/2 = 4.5."""
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "6", "--sentence-length", "5") == 0
    assert list(texts(out / "train")) == ["b_talk", "c_talk"]  # b (5), then c (4.5) reaches 6 words
    stats = json.loads((out / "train" / "stats.json").read_text())
    assert stats["words_per_sentence"] == 4.67 and stats["talks_used"] == 2 and stats["talks_excluded"] == 0
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "8", "--train-name", "ab") == 0
    assert run_main(prep, corpus, out, "--sets", "train", "--train-words", "6", "--sentence-length", "5",
                    "--exclude-talks", str(out / "ab"), "--train-name", "not_ab") == 0
    assert list(texts(out / "not_ab")) == ["c_talk"]  # b_talk is nearer, but left out
    assert json.loads((out / "not_ab" / "stats.json").read_text())["talks_excluded"] == 2
    for extra, message in ((["--skip-words", "3"], "does not go with --skip-words"),
                           (["--sentence-length", "0", "--exclude-talks", str(out / "ab")], "goes with --sentence-length"),
                           (["--sentence-length", "nan"], "must be a positive number"),
                           (["--sentence-length", "short"], "neither a number nor a data directory")):
        args = ["--sentence-length", "5", *extra] if extra[0] == "--skip-words" else extra
        assert run_main(prep, corpus, out, "--sets", "train", "--train-name", "x", *args) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
    assert not (out / "x").exists()
    # a data directory's own words per sentence: ab (a_talk_1 and b_talk) has 12 words, 3 ends
    assert prep.sentence_length_arg(str(out / "ab")) == 4.0


def test_skip_words_past_the_end_is_an_error(prep, corpus, tmp_path, capsys):
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--sets", "train", "--skip-words", "100") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no talk left after skipping" in err[0] and "talks" in err[0]
    assert not (out / "train").exists()


def test_test_words_prefix_and_skip_done(prep, corpus, tmp_path):
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--sets", "test2011", "--utt-words", "2", "--test-words", "3") == 0
    assert list(texts(out / "test2011")) == ["test2011-0001", "test2011-0002"]
    # done: a rerun with other options leaves it alone unless --force
    assert run_main(prep, corpus, out, "--sets", "test2011") == 0
    assert len(texts(out / "test2011")) == 2
    assert run_main(prep, corpus, out, "--sets", "test2011", "--force", "true") == 0
    assert len(texts(out / "test2011")) == 1


def test_bad_label_is_one_line_error_and_keeps_output(corpus, tmp_path):
    out = tmp_path / "data"
    ok = subprocess.run([sys.executable, str(SCRIPT), "--corpus-dir", str(corpus), "--out-dir", str(out),
                         "--sets", "dev2012"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    before = (out / "dev2012" / "labels").read_text()
    bad = corpus / "iwslt2011" / "dev2012"
    bad.write_text("so\tO\nwe\tEXCLAMATION\n")
    r = subprocess.run([sys.executable, str(SCRIPT), "--corpus-dir", str(corpus), "--out-dir", str(out),
                        "--sets", "dev2012", "--force"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {bad}:2: unknown label 'EXCLAMATION' (expected one of O COMMA PERIOD QUESTION)"]
    assert "Traceback" not in r.stderr
    assert (out / "dev2012" / "labels").read_text() == before
    assert (out / "dev2012" / ".done").exists()


@pytest.mark.parametrize("content,line", [("a\tO\nno tab here\n", 2), ("a\tO\tX\n", 1)])
def test_malformed_line(prep, corpus, tmp_path, capsys, content, line):
    (corpus / "iwslt2011" / "test2011").write_text(content)
    assert run_main(prep, corpus, tmp_path / "data", "--sets", "test2011") == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"error: {corpus / 'iwslt2011' / 'test2011'}:{line}: expected 'word<TAB>LABEL'")


def test_missing_corpus(prep, tmp_path, capsys):
    assert run_main(prep, tmp_path / "nope", tmp_path / "data") == 1
    assert "not found" in capsys.readouterr().err


def test_help_without_torch():
    code = f"import runpy, sys; sys.argv=['prepare.py','--help']\ntry:\n runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\nexcept SystemExit: pass\nassert 'torch' not in sys.modules"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--train-words" in r.stdout


def test_two_workers_same_result(prep, tmp_path, caplog):
    talks = tmp_path / "talks"
    talks.mkdir()
    for i in range(10):
        (talks / f"t{i:02d}.md").write_text(f"Talk number {i}, it&#39;s short.\n" if i != 4 else "\n")
    one, info1 = prep.read_train(talks, 0, 1)
    two, info2 = prep.read_train(talks, 0, 2)
    assert [(u.id, u.texts, u.labels) for u in one] == [(u.id, u.texts, u.labels) for u in two]
    assert [u.id for u in one] == [f"t{i:02d}" for i in range(10) if i != 4]
    assert info1["talks_skipped_empty"] == info2["talks_skipped_empty"] == 1
    assert "t04.md: empty talk" in caplog.text


def test_training_text_is_checked_for_test_talks(prep, corpus, tmp_path, caplog):
    """The training set's stats.json says how much of each prepared benchmark set the training
    talks hold (12-word n-grams), and a test talk copied into the talks is a warning."""
    out = tmp_path / "data"
    assert run_main(prep, corpus, out) == 0
    ov = json.loads((out / "train" / "stats.json").read_text())["heldout_overlap"]
    assert set(ov) == {"test2011", "dev2012"} and ov["test2011"]["shared"] == 0
    assert ov["test2011"]["ngrams"] == 0  # 7 words: too short for a 12-gram
    words = "so we went there and then we saw that it was good and we said yes to all of it"
    (corpus / "iwslt2011" / "test2011").write_text(bench([(w, "O") for w in words.split()[:-1]] + [("it", "PERIOD")]))
    (corpus / "ted" / "talks" / "e_copy.md").write_text(f"Hello. {words.capitalize()}.\n")
    out2 = tmp_path / "data2"
    with caplog.at_level("INFO"):
        assert run_main(prep, corpus, out2, "--sets", "test2011,train") == 0
    ov = json.loads((out2 / "train" / "stats.json").read_text())["heldout_overlap"]
    assert set(ov) == {"test2011"}
    assert ov["test2011"]["shared"] == ov["test2011"]["ngrams"] == len(words.split()) - 11
    assert ov["test2011"]["utterances_seen"] == 1
    assert any(r.levelname == "WARNING" and "test2011" in r.getMessage() for r in caplog.records)


def test_mark_map_changes_how_talk_marks_become_labels(prep, corpus, tmp_path, capsys):
    """--mark-map 'MARK=LABEL ...' replaces entries of the default mapping (here: dashes dropped
    instead of COMMA) for the training talks, and is recorded in stats.json; a bad entry is a
    one-line error."""
    out = tmp_path / "data"
    assert run_main(prep, corpus, out, "--sets", "train", "--mark-map=--=O -=O") == 0
    tr = texts(out / "train")
    # "U.S. --": the dot is still a PERIOD; "went to the" ... unchanged; no dash became COMMA
    assert tr["c_talk"][5:] == ["us/PERIOD", "with/O", "10,000/O", "people/PERIOD"]
    assert json.loads((out / "train" / "stats.json").read_text())["mark_map"] == ["--=O", "-=O"]
    (corpus / "ted" / "talks" / "e.md").write_text("one -- two three\n")
    assert run_main(prep, corpus, out, "--sets", "train", "--train-name", "t2", "--mark-map=--=O") == 0
    assert texts(out / "t2")["e"] == ["one/O", "two/O", "three/O"]
    assert run_main(prep, corpus, out, "--sets", "train", "--train-name", "t3") == 0
    assert texts(out / "t3")["e"] == ["one/COMMA", "two/O", "three/O"]
    assert run_main(prep, corpus, out, "--sets", "train", "--train-name", "t4", "--mark-map=--=DASH") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--mark-map" in err[0] and "label must be one of" in err[0]
    assert not (out / "t4").exists()
