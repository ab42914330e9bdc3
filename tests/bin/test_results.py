"""punct.bin.results, the command that writes RESULTS.md: what it refuses in one line before writing
anything (no exp/, a ledger that would overwrite the results, a bad JSON file under exp/), and
--no-ledger (the tables and sections: tests/results/)."""
from __future__ import annotations

import json

import pytest

from punct.bin import results as results_bin
from tests.results.runs import report as _report, scored as _scored


def test_missing_exp_is_an_error(tmp_path, capsys):
    assert results_bin.main(["--exp", str(tmp_path / "none"), "--out", str(tmp_path / "R.md")]) == 1
    assert "none" in capsys.readouterr().err
    assert not (tmp_path / "R.md").exists()


def test_no_ledger_reads_exp_only(tmp_path):
    exp, out = tmp_path / "exp", tmp_path / "R.md"
    (exp / "c").mkdir(parents=True)
    (tmp_path / "R.json").write_text(json.dumps({"format": 1, "sections": {}, "rows": [
        {"corpus": "c", "exp": "gone", "set": "test", "report": _report(50, 60, 10, 55.0)}]}))
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    assert "| gone † [1] |" in out.read_text(encoding="utf-8")
    assert results_bin.main(["--exp", str(exp), "--out", str(out), "--no-ledger"]) == 0
    assert "gone" not in out.read_text(encoding="utf-8")


def test_ledger_and_results_file_must_differ(tmp_path, capsys):
    (tmp_path / "exp").mkdir()
    assert results_bin.main(["--exp", str(tmp_path / "exp"), "--out", str(tmp_path / "R.json")]) == 1
    assert "ledger would overwrite" in capsys.readouterr().err
    assert not (tmp_path / "R.json").exists()


@pytest.mark.parametrize("name, text, problem", [
    ("train_done.json", '{"stopped": "patience"', "invalid JSON"),
    ("train_done.json", '["patience"]', "expected a JSON object, found list"),
    ("decode_test/decode_stats.json", "3", "expected a JSON object, found int"),
    ("decode_test/scoring/report.json", "\n\n{oops}", "report.json:3: invalid JSON"),
])
def test_bad_exp_json_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, name, text, problem):
    """Every JSON file the report reads under exp/ fails the same way: one line naming the file, no output written."""
    exp, out = tmp_path / "exp", tmp_path / "R.md"
    d = _scored(exp, "c", "lex", "test", _report(50, 60, 10, 55.0))
    (d / name).write_text(text)
    out.write_text("earlier\n")
    assert results_bin.main(["--exp", str(exp), "--out", str(out), "--no-ledger"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and problem in err[0] and name.split("/")[-1] in err[0], err
    assert out.read_text() == "earlier\n"
