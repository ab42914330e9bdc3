"""punct.bin.score (``punct score``): the table, JSON and report files, data directories and
CTMs with segments, bootstrap intervals, one-line errors, scoring without torch."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from punct.bin import score
from punct.data.datadir import write_datadir
from punct.text.words import Utterance, Word

ROOT = Path(__file__).resolve().parents[2]


def _run(*code_or_args: str, module: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", *code_or_args] if module else [sys.executable, "-c", code_or_args[0]]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="UTF-8"))


@pytest.fixture
def files(tmp_path):
    ref = tmp_path / "ref.tsv"
    ref.write_text("so\tCOMMA\nwe\tO\ngrew\tO\nrevenue\tPERIOD\ndid\tO\nit\tO\nwork\tQUESTION\n", encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("So we grew. Revenue did it work?\n", encoding="utf-8")
    return ref, hyp


def test_help_does_not_import_torch():
    r = _run("import sys\nfrom punct.bin.score import main\ntry:\n  main(['--help'])\nexcept SystemExit as e:\n"
             "  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n")
    assert r.returncode == 0, r.stderr
    assert "--out-dir" in r.stdout and "--ref-format" in r.stdout


def test_scoring_does_not_import_torch(files):
    ref, hyp = files
    r = _run(f"import sys\nfrom punct.bin.score import main\nrc = main([{str(ref)!r}, {str(hyp)!r}])\n"
             "assert rc == 0\nassert 'torch' not in sys.modules, 'torch imported'\n")
    assert r.returncode == 0, r.stderr
    assert "overall" in r.stdout


def test_json_output(files, capsys):
    ref, hyp = files
    assert score.main([str(ref), str(hyp), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    # ref: so, we grew revenue. did it work?   hyp: so we grew. revenue did it work?
    # COMMA missed (so), PERIOD on grew instead of revenue: 1 insertion + 1 deletion; QUESTION right
    assert d["classes"]["QUESTION"]["f1"] == 100.0
    assert d["classes"]["COMMA"]["recall"] == 0.0 and d["classes"]["COMMA"]["precision"] is None
    assert (d["overall"]["precision"], d["overall"]["recall"]) == (50.0, pytest.approx(100 / 3))
    assert d["ser"] == pytest.approx(100.0)
    assert d["wer"] == 0.0


def test_out_dir_writes_the_four_files(files, tmp_path, capsys):
    import importlib.util

    ref, hyp = files
    out = tmp_path / "scoring"
    assert score.main([str(ref), str(hyp), "--out-dir", str(out)]) == 0
    table = capsys.readouterr().out
    html = ["report.html"] if importlib.util.find_spec("matplotlib") else []  # the fifth, drawn with matplotlib
    assert sorted(p.name for p in out.iterdir()) == sorted([".punct-output", "confusion.txt", "errors.txt",
                                                            "report.json", "report.txt", *html])
    assert (out / "report.txt").read_text() == table
    errors = (out / "errors.txt").read_text().splitlines()
    assert errors[0] == "hyp-000001 0\tCOMMA->O\tso [COMMA->O] we grew revenue did ..."
    assert len(errors) == 3


def test_datadir_against_decode_dir(tmp_path, capsys):
    ref = [Utterance("u1", [Word("hi", "COMMA"), Word("there", "PERIOD")]), Utterance("u2", [Word("ok", "QUESTION")])]
    hyp = [Utterance("u1", [Word("hi", "O"), Word("there", "PERIOD")]), Utterance("u2", [Word("ok", "QUESTION")])]
    write_datadir(tmp_path / "ref", ref)
    write_datadir(tmp_path / "dec", hyp)
    (tmp_path / "dec" / "text.punct").write_text("u1 hi there.\nu2 ok?\n")
    assert score.main([str(tmp_path / "ref"), str(tmp_path / "dec"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["counts"]["slots"] == 3 and d["overall"]["recall"] == pytest.approx(200 / 3)
    assert d["overall"]["precision"] == 100.0
    # the decoder's text.punct read as text gives the same scores
    assert score.main([str(tmp_path / "ref"), str(tmp_path / "dec" / "text.punct"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"] == d["overall"]


def test_recording_ctm_against_a_datadir_with_segments(tmp_path, capsys):
    """Kaldi's get_ctm.sh writes a CTM of whole recordings; scored against a data directory with
    segments it is cut into those utterances and paired with them one by one, whatever order the
    utterance ids sort in (speaker-first ids interleave the recording's turns). A segment the
    recognizer left empty gives no hypothesis utterance: its words count as deleted."""
    ref = [Utterance("spkA-call-000", [Word("hello", "COMMA"), Word("everyone", "PERIOD")]),
           Utterance("spkA-call-030", [Word("thanks", "PERIOD")]),
           Utterance("spkB-call-010", [Word("so", "COMMA"), Word("how", "O"), Word("are", "O"),
                                       Word("you", "QUESTION")]),
           Utterance("spkB-call-040", [Word("bye", "PERIOD")])]
    write_datadir(tmp_path / "ref", ref)
    (tmp_path / "ref" / "segments").write_text(
        "spkA-call-000 call 0.0 1.0\nspkB-call-010 call 1.0 3.0\nspkA-call-030 call 3.0 4.0\n"
        "spkB-call-040 call 4.0 5.0\n")
    # in time order: hello, everyone. so, how are you? thanks. (bye: not recognized)
    hyp = tmp_path / "hyp.ctm"
    hyp.write_text("call 1 0.1 0.3 hello,\ncall 1 0.5 0.4 everyone.\ncall 1 1.1 0.2 so\ncall 1 1.4 0.2 how\n"
                   "call 1 1.7 0.2 are\ncall 1 2.0 0.3 you?\ncall 1 3.2 0.4 thanks.\n")
    assert score.main([str(tmp_path / "ref"), str(hyp), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["counts"]["slots"] == 7 and d["overall"]["precision"] == 100.0 and d["overall"]["fn"] == 1
    assert d["transfer"]["ref_words"] == 8 and d["transfer"]["deletions"] == 1
    assert (d["classes"]["COMMA"]["tp"], d["classes"]["QUESTION"]["tp"]) == (1, 1)
    # without the segments the two sides are one stream each, in the reference's id order
    (tmp_path / "ref" / "segments").unlink()
    assert score.main([str(tmp_path / "ref"), str(hyp), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["transfer"]["word_errors"] > 1


def test_missing_file_is_one_line(files, tmp_path, capsys):
    ref, _ = files
    missing = tmp_path / "nope.txt"
    assert score.main([str(ref), str(missing)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {missing}: hypothesis not found"]


@pytest.mark.parametrize(
    "name,content,where",
    [
        ("bad.tsv", "so\tCOMMA\nwe\tPERIODS\n", "bad.tsv:2: unknown label 'PERIODS'"),
        ("bad.nlp", "token|speaker|ts|endTs|punctuation|case|tags\nso|1|0.1|0.2|,||\nwe|1\n",
         "bad.nlp:3: expected 7 '|'-separated fields"),
    ],
)
def test_malformed_input_is_one_line_naming_file_and_line(files, tmp_path, capsys, name, content, where):
    _, hyp = files
    bad = tmp_path / name
    bad.write_text(content, encoding="utf-8")
    assert score.main([str(bad), str(hyp)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {tmp_path / where}")


def test_unknown_format_option(files, capsys):
    ref, hyp = files
    assert score.main([str(ref), str(hyp), "--hyp-format", "ctmx"]) == 1
    assert "unknown format 'ctmx'" in capsys.readouterr().err


def test_python_m_punct_score(files):
    ref, hyp = files
    r = _run("punct", "score", str(ref), str(hyp), module=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["class", "ref", "hyp", "tp"]
    assert any(line.startswith("QUESTION") and line.split()[-1] == "100.0" for line in lines)


def test_bootstrap_intervals_in_table_json_and_report(files, tmp_path, capsys):
    ref, hyp = files
    out = tmp_path / "scoring"
    args = [str(ref), str(hyp), "--bootstrap", "200", "--block-words", "2"]
    assert score.main(args + ["--out-dir", str(out)]) == 0
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.startswith("95% intervals"))
    assert "200 resamples of 4 blocks of 2 words" in line and "overall 40.0 [" in line
    boot = json.loads((out / "report.json").read_text())["bootstrap"]
    ov = boot["metrics"]["overall"]
    assert ov["low"] <= ov["value"] <= ov["high"] and boot["resamples"] == 200 and boot["blocks"] == 4
    assert score.main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bootstrap"] == boot  # the seed fixes the resamples
    assert score.main([str(ref), str(hyp), "--json"]) == 0
    assert "bootstrap" not in json.loads(capsys.readouterr().out)  # only when asked for


def test_bootstrap_on_too_little_text_is_one_line(files, capsys):
    ref, hyp = files
    assert score.main([str(ref), str(hyp), "--bootstrap", "100"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at least 2 blocks of slots, got 1" in err[0]


def test_count_dropped_scores_the_marks_the_alignment_lost(tmp_path, capsys):
    ref = tmp_path / "ref.tsv"
    ref.write_text("so\tO\nuh\tCOMMA\nwe\tO\ngrew\tPERIOD\n", encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("So, we grew.\n", encoding="utf-8")  # "uh" not written: its comma moves onto "so"
    assert score.main([str(ref), str(hyp), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["transfer"]["moved"] == 1 and d["overall"]["recall"] == 100.0
    ref.write_text("so\tPERIOD\nuh\tCOMMA\nwe\tO\ngrew\tPERIOD\n", encoding="utf-8")
    hyp.write_text("So. We grew.\n", encoding="utf-8")  # "so" has a stronger mark: the comma is lost
    assert score.main([str(ref), str(hyp), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["transfer"]["dropped"] == 1 and d["classes"]["COMMA"]["ref"] == 0 and d["overall"]["recall"] == 100.0
    assert score.main([str(ref), str(hyp), "--json", "--count-dropped"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["classes"]["COMMA"]["fn"] == 1 and d["overall"]["recall"] == pytest.approx(200 / 3)
