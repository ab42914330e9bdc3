"""punct.results.collect: the rows read from exp/ (training state, best epoch by select_by, the
training text of warm starts and ensembles, a decode's own command), the corpus sets of the
recipes, and the ledger that carries rows and sections whose files are gone."""
from __future__ import annotations

import json

import pytest

from punct import results
from punct.bin import results as results_bin
from tests.results.runs import report as _report, scored as _scored


def test_training_state_from_done_file_or_log(tmp_path):
    from punct.results import _stopped, _train_info

    d = tmp_path / "m"
    (d / "log").mkdir(parents=True)
    (d / "train_log.tsv").write_text("epoch\ttrain_loss\tvalid_ppl\tvalid_f1\tseconds\twords_per_s\n"
                                     "1\t0.5\t1.40\t40\t100\t10\n2\t0.4\t1.35\t45\t100\t10\n3\t0.3\t1.37\t44\t100\t10\n")
    assert _stopped(d) is None  # nothing says it ended: still training
    info = _train_info(d)
    assert (info["epochs"], info["best_epoch"]) == (3, 2)
    (d / "log" / "train.log").write_text("x INFO train.py:425 training stopped (patience) after 3 epochs; best ...\n")
    assert _stopped(d) == "patience"  # runs older than train_done.json
    (d / "train_done.json").write_text(json.dumps({"stopped": "max_epochs"}))
    assert _stopped(d) == "max_epochs"


def test_ledger_keeps_rows_and_sections_whose_files_are_gone(tmp_path):
    """A measured row outlives its experiment directory: the ledger beside RESULTS.md carries it,
    marked, with its command; a row scored again replaces the ledger's."""
    import shutil

    exp, out = tmp_path / "exp", tmp_path / "RESULTS.md"
    old = _scored(exp, "c", "old", "test", _report(50, 60, 10, 55.0))
    _scored(exp, "c", "kept", "test", _report(40, 50, 10, 45.0))
    (exp / "benchmarks").mkdir()
    (exp / "benchmarks" / "train_nproc.json").write_text(json.dumps({
        "config": "conf/tbrnn.yaml", "train_words": 1000, "rows": [{"layout": "1 process, 1 thread", "words_per_s": 5.0}],
        "command": "python benchmarks/bench_train_nproc.py"}))
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    first = out.read_text(encoding="utf-8")
    assert "| old [2] |" in first and "†" not in first
    assert (tmp_path / "RESULTS.json").is_file()

    shutil.rmtree(old)
    (exp / "benchmarks" / "train_nproc.json").unlink()
    _scored(exp, "c", "kept", "test", _report(40, 50, 10, 47.5))  # scored again: the new numbers win
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    rows = [x for x in text.splitlines() if x.startswith("| ") and "[" in x]
    assert rows[0].startswith("| kept [1] |") and "| 47.5 |" in rows[0]
    assert rows[1].startswith("| old † [2] |") and "| 55.0 |" in rows[1]
    assert "[2] `./run.sh --corpus c --models old --stage 6 --stop-stage 9`" in text
    assert "Rows marked † come from the ledger" in text
    assert "| 1 process, 1 thread | 5 |" in text and "† From the ledger" in text
    again = out.read_text(encoding="utf-8")
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0  # stable: nothing lost on a rerun
    assert out.read_text(encoding="utf-8") == again


@pytest.mark.parametrize("text, problem", [
    ('{"format": 1, "rows": [\n', "invalid JSON"),
    ('{"format": 2, "rows": [], "sections": {}}', "not a results ledger"),
    ('{"format": 1, "rows": [{"corpus": "c"}], "sections": {}}', "ledger row 1 has no exp, set, report"),
    ('{"format": 1, "rows": [], "sections": {"asr": "x"}}', "ledger section 'asr' is not a list of lines"),
])
def test_bad_ledger_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, text, problem):
    (tmp_path / "exp").mkdir()
    out, ledger = tmp_path / "R.md", tmp_path / "R.json"
    out.write_text("earlier\n")
    ledger.write_text(text)
    assert results_bin.main(["--exp", str(tmp_path / "exp"), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and problem in err[0] and "R.json" in err[0]
    assert out.read_text() == "earlier\n" and ledger.read_text() == text


def test_best_epoch_follows_select_by(tmp_path):
    """With select_by f1 the best epoch is the first one of the highest validation F1, with
    select_by last the last one, else the lowest perplexity's."""
    from punct.results import _train_info

    d = tmp_path / "m"
    d.mkdir()
    (d / "train_log.tsv").write_text("epoch\ttrain_loss\tvalid_ppl\tvalid_f1\tseconds\twords_per_s\n"
                                     "1\t0.5\t1.30\t40\t1\t1\n2\t0.4\t1.35\t45\t1\t1\n3\t0.3\t1.37\t45\t1\t1\n"
                                     "4\t0.2\t1.40\tnan\t1\t1\n")
    (d / "config.yaml").write_text("model: tbrnn\nselect_by: ppl\n")
    assert _train_info(d)["best_epoch"] == 1
    (d / "config.yaml").write_text("model: tbrnn\nselect_by: f1\n")
    assert _train_info(d)["best_epoch"] == 2
    (d / "config.yaml").write_text("model: tbrnn\nselect_by: last\n")
    assert _train_info(d)["best_epoch"] == 4


def test_a_warm_start_on_another_set_counts_both_texts(tmp_path, monkeypatch):
    """train words of a warm start: the source model's, plus its own set's once it has trained
    an epoch past the start on another set; a two-stage model's stage one is not counted."""
    import json

    from punct.results import _train_info

    monkeypatch.chdir(tmp_path)
    for name, words in (("big", 1000), ("small", 100)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "stats.json").write_text(json.dumps({"words": words}))
    head = "epoch\ttrain_loss\tvalid_ppl\tvalid_f1\tseconds\twords_per_s\n"

    def run(name, model, train, epochs, **conf):
        d = tmp_path / "exp" / name
        d.mkdir(parents=True)
        (d / "cmd").write_text(f"python -m punct.bin.train --train {train} --exp {d}\n")
        (d / "config.yaml").write_text("".join(f"{k}: {v}\n" for k, v in dict(model=model, **conf).items()))
        (d / "train_log.tsv").write_text(head + "".join(f"{e}\t0.3\t1.3\t50\t1\t1\n" for e in range(1, epochs + 1)))
        return d

    src = run("src", "tbrnn", "big", 4)
    (src / "train_done.json").write_text(json.dumps({"stopped": "max_epochs", "epochs": 4, "best_epoch": 2,
                                                     "averaged_epochs": [2, 3]}))
    init = "exp/src/best.pt"
    assert _train_info(run("ft", "tbrnn", "small", 6, init_from=init))["train_words"] == 1100
    assert _train_info(run("none", "tbrnn", "small", 3, init_from=init))["train_words"] == 1000  # starts at 3
    assert _train_info(run("same", "tbrnn", "big", 6, init_from=init))["train_words"] == 1000
    stage2 = run("stage2", "ta_brnn", "small", 6, init_from=init)
    assert _train_info(stage2)["train_words"] == 100
    # train_done.json's warm_start (runs since it records it) gives the start
    recorded = run("recorded", "tbrnn", "small", 5, init_from=init)
    (recorded / "train_done.json").write_text(json.dumps({"epochs": 5, "warm_start": {"from": init, "epoch": 5}}))
    assert _train_info(recorded)["train_words"] == 1000


def test_ensemble_row_sums_its_members_training(tmp_path):
    exp, out = tmp_path / "exp", tmp_path / "RESULTS.md"
    for name, secs in (("a", 3600), ("b", 1800)):
        d = _scored(exp, "c", name, "test", _report(50, 60, 10, 55.0))
        (d / "train_log.tsv").write_text("epoch\ttrain_loss\tvalid_ppl\tseconds\twords_per_s\n"
                                         f"1\t0.3\t1.3\t{secs}\t100\n")
        (d / "train_data.json").write_text(json.dumps({"words": 2000}))
        (d / "train_done.json").write_text(json.dumps({"stopped": "patience"}))
    e = _scored(exp, "c", "ab", "test", _report(52, 62, 12, 57.0))
    (e / "members").write_text(f"{exp}/c/a/best.pt\nexp/c/b/best.pt\n")
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    row = next(x for x in out.read_text(encoding="utf-8").splitlines() if x.startswith("| ab ["))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "2000" and cells[-3] == "ensemble of a + b" and cells[-2] == "1.50"
    assert "still training" not in row
    # one member with a decision bias: that model's name and its bias
    e1 = _scored(exp, "c", "a_bias", "test", _report(53, 63, 13, 58.0))
    (e1 / "members").write_text(f"{exp}/c/a/best.pt\n")
    (e1 / "decode_test" / "decode_stats.json").write_text(json.dumps(
        {"model": "ensemble", "bias": {"COMMA": 0.4, "PERIOD": 0.8, "QUESTION": -0.25}}))
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    row = next(x for x in out.read_text(encoding="utf-8").splitlines() if x.startswith("| a_bias ["))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-3] == "a (bias , +0.4 . +0.8 ? -0.25)" and cells[-2] == "1.00"


def test_corpus_sets_read_from_the_recipe(tmp_path):
    """The sets come from the corpus's experiments.yaml, the file run.sh's stages read."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "experiments.yaml").write_text("sets: {train: [a, b], valid: dev, test: [t1, t2]}\nexperiments: {}\n")
    assert results.corpus_sets("c", tmp_path) == ("dev", ("t1", "t2"))
    assert results.corpus_sets("none", tmp_path) == (None, ())
    assert results.corpus_sets("iwslt2011") == ("dev2012", ("test2011",))
    assert results.paper_set("iwslt2011") == "test2011" and results.paper_set("c", tmp_path) is None


def test_ledger_keeps_an_ensembles_decision_bias(tmp_path):
    exp = tmp_path / "exp"
    e = _scored(exp, "c", "a_bias", "test", _report(53, 63, 13, 58.0))
    (e / "decode_test" / "decode_stats.json").write_text(json.dumps({"bias": {"COMMA": 0.4}, "words_per_s": 10}))
    (row,) = results.collect(exp)
    assert results.ledger_row(row)["decode"] == {"bias": {"COMMA": 0.4}, "words_per_s": 10}


def test_a_decode_with_its_own_command_is_credited_to_it(tmp_path):
    """A set decoded by hand (another corpus's set, by punct restore) names the command in its
    decode folder's run.cmd, not its model's training command, and the ledger keeps it."""
    exp = tmp_path / "exp"
    e = _scored(exp, "c", "m", "test", _report(53, 63, 13, 58.0))
    _scored(exp, "c", "m", "other", _report(50, 60, 10, 55.0))
    cmd = "punct restore data/x/other -o OUT --output-format datadir --model exp/c/m/best.pt; punct score data/x/other OUT"
    (e / "decode_other" / "run.cmd").write_text(cmd + "\n")
    rows = {r["set"]: r for r in results.collect(exp)}
    assert results.ledger_row(rows["other"])["decode"] == {"run.cmd": cmd} and "run.cmd" not in rows["test"]["decode"]
    text = results.render(list(rows.values()))
    assert f"`{cmd}`" in text and "`./run.sh --corpus c --models m --stage 6 --stop-stage 9`" in text


def test_a_row_without_a_command_is_scored_against_the_set_where_it_lives(tmp_path):
    """A model decoded by punct.bin.decode outside run.sh (no run.cmd) names the reference it was
    scored against: the data directory its decode read (decode_stats.json), else the corpus whose
    recipe names the set (an earnings student on iwslt2011's test2011), else its own corpus's."""
    exp = tmp_path / "exp"
    for name, stats in (("a_bias", {"data": "data/iwslt2011/test2011"}), ("b_bias", {})):
        e = _scored(exp, "earnings", name, "test2011", _report(53, 63, 13, 58.0))
        (e / "run.cmd").unlink()
        (e / "decode_test2011" / "decode_stats.json").write_text(json.dumps(stats))
    rows = results.collect(exp)
    assert [results.ledger_row(r)["decode"].get("data") for r in rows] == ["data/iwslt2011/test2011", None]
    text = results.render(rows)
    for name in ("a_bias", "b_bias"):
        assert f"`python -m punct score data/iwslt2011/test2011 {exp}/earnings/{name}/decode_test2011`" in text
    assert "data/earnings/test2011" not in text
    assert results.set_dir("earnings", "e22_dev") == "data/earnings/e22_dev"
    assert results.set_dir("earnings", "nowhere") == "data/earnings/nowhere"


def test_a_restored_hypothesis_row_takes_its_sets_wer():
    """punct restore's output scored against its own transferred marks reports WER 0 (a decode
    scored without a transfer: none); the table and the figure show the WER that the set's
    other rows give (its SET_words copy too). The reference's 0 is its own."""
    from punct.results.collect import row_wer, set_wers

    def row(set_, wer, corpus="earnings"):
        return {"corpus": corpus, "set": set_, "report": {"wer": wer}}

    rows = [row("e21_kaldi_rev", 16.3), row("e21_kaldi_rev", 16.28), row("e21_kaldi_rev", 0.0),
            row("e21_kaldi_rev_words", 0.0), row("e21_ref", 0.0), row("test2011", 0.0, "iwslt2011"),
            row("e21_kaldi_libri", None), row("e21_kaldi_rev", None)]
    wers = set_wers(rows)
    assert wers == {("earnings", "e21_kaldi_rev"): 16.3}
    assert [row_wer(r, wers) for r in rows] == [16.3, 16.28, 16.3, 16.3, 0.0, 0.0, None, 16.3]
