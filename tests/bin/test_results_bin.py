"""punct.bin.results: the score tables of RESULTS.md (rows, ablations, targets, published rows) and
the ledger that carries rows whose files are gone (the other sections: test_results_sections_bin.py)."""
from __future__ import annotations

import json

import pytest

from punct import results
from punct.bin import results as results_bin
from punct.errors import PunctError


def test_missing_exp_is_an_error(tmp_path, capsys):
    assert results_bin.main(["--exp", str(tmp_path / "none"), "--out", str(tmp_path / "R.md")]) == 1
    assert "none" in capsys.readouterr().err
    assert not (tmp_path / "R.md").exists()


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


def _report(comma, period, question, overall, ser=50.0):
    return {"classes": {"COMMA": {"f1": comma}, "PERIOD": {"f1": period}, "QUESTION": {"f1": question},
                        "OVERALL": {"precision": overall + 1, "recall": overall - 1, "f1": overall}},
            "ser": ser, "boundary": {"f1": overall + 10}, "wer": 16.3}


def test_ablation_table_from_the_recipe_spec(tmp_path):
    """recipes/<corpus>/results_ablation.tsv orders the systems; the F1 gain is over the base row
    of the same test set; systems not run yet are left out; a malformed line names file and line."""
    exp, recipes = tmp_path / "exp", tmp_path / "recipes"
    for name, set_name, rep in [("lex", "hyp", _report(50, 60, 10, 55.0)), ("joint", "hyp", _report(51, 66, 10, 58.5)),
                                ("lex", "hyp2", _report(20, 30, 0, 25.0)), ("engine", "own", _report(40, 50, 5, 45.0))]:
        d = exp / "c" / name / f"decode_{set_name}" / "scoring"
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps(rep))
        (exp / "c" / name / "run.cmd").write_text(f"./run.sh --corpus c --models {name} --stage 6 --stop-stage 6\n")
    (recipes / "c").mkdir(parents=True)
    spec = recipes / "c" / "results_ablation.tsv"
    spec.write_text("# label\texperiment\tsets\trole\nlexical\tlex\thyp hyp2\tbase\nnot run yet\tppe\thyp\n"
                    "joint\tjoint\thyp hyp2\nengine\tengine\town\n")
    text = "\n".join(results.render_ablations(results.collect(exp), recipes))
    lines = [x for x in text.splitlines() if x.startswith("| ")]
    assert lines[1] == "| lexical [1] | lex | hyp | 50.0 | 60.0 | 10.0 | 56.0 | 54.0 | 55.0 | - | 50.0 | 65.0 | 16.3 |"
    assert lines[2].startswith("| joint [2] | joint | hyp | 51.0 | 66.0 | 10.0 | 59.5 | 57.5 | 58.5 | +3.5 (lexical) |")
    assert lines[3].startswith("| lexical [3] | lex | hyp2 |") and lines[4].startswith("| engine [4] | engine | own |")
    assert len(lines) == 5 and "not run yet" not in text
    assert "[2] `./run.sh --corpus c --models joint --stage 6 --stop-stage 9`" in text
    spec.write_text("lexical\tlex\n")
    with pytest.raises(PunctError, match="results_ablation.tsv"):
        results.render_ablations(results.collect(exp), recipes)


def test_ablation_gain_is_against_the_nearest_base_above(tmp_path):
    exp, recipes = tmp_path / "exp", tmp_path / "recipes"
    for name, rep in [("lex", _report(50, 60, 10, 55.0)), ("joint", _report(51, 66, 10, 58.5))]:
        d = exp / "c" / name / "decode_hyp" / "scoring"
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps(rep))
    (recipes / "c").mkdir(parents=True)
    (recipes / "c" / "results_ablation.tsv").write_text(
        "lexical (words)\tlex\thyp\tbase\njoint (second base)\tjoint\thyp\tbase\nlexical again\tlex\thyp\n")
    rows = [x for x in results.render_ablations(results.collect(exp), recipes) if x.startswith("| ")]
    assert "| - |" in rows[1] and "| - |" in rows[2]  # a base row has no gain of its own
    assert "| -3.5 (joint) |" in rows[3]


def test_a_run_stopped_by_hand_is_not_still_training(tmp_path):
    exp = tmp_path / "exp"
    d = exp / "c" / "m"
    (d / "decode_t" / "scoring").mkdir(parents=True)
    (d / "decode_t" / "scoring" / "report.json").write_text(json.dumps(_report(50, 60, 10, 55.0)))
    (d / "train_log.tsv").write_text("epoch\ttrain_loss\tvalid_ppl\tvalid_f1\tseconds\twords_per_s\n"
                                     "1\t0.5\t1.40\t40\t100\t10\n2\t0.4\t1.35\t45\t100\t10\n")
    assert "2 (best 2, still training)" in results.render(results.collect(exp))
    (d / "train_done.json").write_text(json.dumps({"stopped": "by hand", "epochs": 2}))
    assert "2 (best 2, stopped by hand)" in results.render(results.collect(exp))
    (d / "decode_t" / "decode_stats.json").write_text(json.dumps({"model_epoch": 2, "words_per_s": 9}))
    assert "2 (model of epoch 2, stopped by hand)" in results.render(results.collect(exp))
    # a checkpoint average (average_best) is named by its epochs
    (d / "decode_t" / "decode_stats.json").write_text(json.dumps({"model_epoch": 2, "model_averaged_epochs": [1, 2]}))
    assert "2 (average of the models of epochs 1, 2, stopped by hand)" in results.render(results.collect(exp))


def test_published_row_follows_the_first_row_of_its_model(tmp_path):
    """A model with published results gets the paper's row (per class where the source gives it)
    right after its first test2011 row, once."""
    exp = tmp_path / "exp"
    for name in ("tbrnn_2m", "tbrnn_all"):
        d = exp / "iwslt2011" / name
        (d / "decode_test2011" / "scoring").mkdir(parents=True)
        (d / "decode_test2011" / "scoring" / "report.json").write_text(json.dumps(_report(50, 60, 10, 55.0)))
        (d / "config.yaml").write_text("model: tbrnn\n")
    table = results.render(results.collect(exp)).split("### Targets")[0]  # the corpus table only
    lines = [x for x in table.splitlines() if x.startswith("| ")]
    assert lines[1].startswith("| tbrnn_2m [1] |") and lines[3].startswith("| tbrnn_all [2] |")
    assert lines[2].startswith("| T-BRNN (Tilk and Alumäe 2016, Table 2) | test2011 | 2.1M | 64.4 | 45.2 | 53.1 | "
                               "72.3 | 71.5 | 71.9 | 67.5 | 58.7 | 62.8 | 68.9 | 58.1 | 63.1 | 51.3 | - |")
    assert sum("Tilk and Alumäe 2016" in x for x in lines) == 1


def _scored(exp, corpus, name, set_name, rep, cmd=None):
    d = exp / corpus / name
    (d / f"decode_{set_name}" / "scoring").mkdir(parents=True, exist_ok=True)
    (d / f"decode_{set_name}" / "scoring" / "report.json").write_text(json.dumps(rep))
    (d / "run.cmd").write_text((cmd or f"./run.sh --corpus {corpus} --models {name} --stage 6 --stop-stage 6") + "\n")
    return d


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


def test_no_ledger_reads_exp_only(tmp_path):
    exp, out = tmp_path / "exp", tmp_path / "R.md"
    (exp / "c").mkdir(parents=True)
    (tmp_path / "R.json").write_text(json.dumps({"format": 1, "sections": {}, "rows": [
        {"corpus": "c", "exp": "gone", "set": "test", "report": _report(50, 60, 10, 55.0)}]}))
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    assert "| gone † [1] |" in out.read_text(encoding="utf-8")
    assert results_bin.main(["--exp", str(exp), "--out", str(out), "--no-ledger"]) == 0
    assert "gone" not in out.read_text(encoding="utf-8")


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


def test_ablation_gain_is_the_difference_of_the_printed_values(tmp_path):
    exp, recipes = tmp_path / "exp", tmp_path / "recipes"
    _scored(exp, "c", "lex", "hyp", _report(50, 60, 10, 61.54))   # printed 61.5
    _scored(exp, "c", "other", "hyp", _report(50, 60, 10, 62.66))  # printed 62.7: +1.2, not +1.1
    (recipes / "c").mkdir(parents=True)
    (recipes / "c" / "results_ablation.tsv").write_text("lexical\tlex\thyp\tbase\nother\tother\thyp\n")
    rows = [x for x in results.render_ablations(results.collect(exp), recipes) if x.startswith("| ")]
    assert "| 62.7 | +1.2 (lexical) |" in rows[2]


def test_ledger_and_results_file_must_differ(tmp_path, capsys):
    (tmp_path / "exp").mkdir()
    assert results_bin.main(["--exp", str(tmp_path / "exp"), "--out", str(tmp_path / "R.json")]) == 1
    assert "ledger would overwrite" in capsys.readouterr().err
    assert not (tmp_path / "R.json").exists()


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


def test_targets_compare_each_papers_model_on_its_budget(tmp_path):
    """The targets table takes each paper's model's best row within the papers' 2.1M-word budget
    (a run on more text is listed apart), says whether it is within 2 points, names the models
    without a row, and compares the best single model and the best system (ensembles count)
    with the best published number."""
    exp = tmp_path / "exp"
    for name, model, words, f1 in (("tbrnn_2m", "tbrnn", 2_100_000, 61.5), ("tbrnn_2m_b", "tbrnn", 2_100_000, 60.0),
                                   ("tbrnn_all", "tbrnn", 4_800_000, 64.2), ("drnn_2m", "drnn_lwma", 2_100_000, 58.6),
                                   ("tfm", "transformer_tagger", 2_100_000, 64.7)):
        d = _scored(exp, "iwslt2011", name, "test2011", _report(50, 60, 10, f1))
        (d / "config.yaml").write_text(f"model: {model}\n")
        (d / "train_data.json").write_text(json.dumps({"words": words}))
    e = _scored(exp, "iwslt2011", "ens", "test2011", _report(50, 60, 10, 69.0))
    (e / "members").write_text(f"{exp}/iwslt2011/tfm/best.pt\n{exp}/iwslt2011/tbrnn_all/best.pt\n")
    text = results.render(results.collect(exp))
    targets = text.split("### Targets on test2011")[1]
    row = {c[0]: c for c in ([x.strip() for x in line.strip("|").split("|")]
                             for line in targets.splitlines() if line.startswith("| "))}
    assert row["T-BRNN (Tilk and Alumäe 2016, Table 2)"][1:] == ["63.1", "61.1", "`tbrnn_2m` 61.5", "-1.6", "yes",
                                                                 "-", "`tbrnn_all` 64.2"]
    assert row["DRNN-LWMA (Kim 2019)"][3:6] == ["`drnn_2m` 58.6", "-8.6", "no"]
    assert row["DRNN-LWMA-pre (Kim 2019)"][3:7] == ["not measured", "-", "no", "-"]
    assert ("Best single punct model: `tfm` 64.7 (below: 64.70, -3.90); best punct system: `ens` 69.0 "
            "(above: 69.00, +0.40).") in targets
    # a corpus without the papers' models has no targets section
    other = tmp_path / "other"
    d = _scored(other, "earnings", "x", "e21", _report(50, 60, 10, 55.0))
    (d / "config.yaml").write_text("model: tbrnn\n")
    assert "### Targets" not in results.render(results.collect(other))


def _counted_report(tp, s, d, i, slots):
    """A report with the counts of real scoring: ``tp`` right marks (all commas), ``s`` commas
    taken for periods, ``d`` deleted and ``i`` inserted commas, over ``slots`` slots."""
    from punct.scoring.score import score_labels

    ref = ["COMMA"] * tp + ["COMMA"] * s + ["COMMA"] * d + ["O"] * i
    hyp = ["COMMA"] * tp + ["PERIOD"] * s + ["O"] * d + ["COMMA"] * i
    ref += ["O"] * (slots - len(ref))
    hyp += ["O"] * (slots - len(hyp))
    return score_labels(ref, hyp).to_dict()


def test_targets_give_the_interval_of_each_best_row(tmp_path):
    """The interval of a row comes from its counts alone, for old reports (no confusion matrix) too,
    and says when the published number lies inside it."""
    from punct.scoring.significance import report_intervals

    exp = tmp_path / "exp"
    near = _counted_report(600, 100, 250, 250, 12000)  # overall F1 2*600/(1200+350+350) = 63.2
    far = _counted_report(480, 150, 300, 300, 12000)
    for name, model, rep in (("tbrnn_2m", "tbrnn", near), ("drnn_2m", "drnn_lwma", far)):
        d = _scored(exp, "iwslt2011", name, "test2011", rep)
        (d / "config.yaml").write_text(f"model: {model}\n")
        (d / "train_data.json").write_text(json.dumps({"words": 2_100_000}))
    targets = results.render(results.collect(exp)).split("### Targets on test2011")[1]
    row = {c[0]: c for c in ([x.strip() for x in line.strip("|").split("|")]
                             for line in targets.splitlines() if line.startswith("| "))}
    lo, hi = report_intervals(near)["overall"]
    assert lo < 63.1 < hi and hi - lo > 3  # about 1,000 marks: a few points wide
    assert row["T-BRNN (Tilk and Alumäe 2016, Table 2)"][6] == f"{lo:.1f}-{hi:.1f} (paper inside)"
    assert "(paper inside)" not in row["DRNN-LWMA (Kim 2019)"][6] and row["DRNN-LWMA (Kim 2019)"][6] != "-"
    old = {k: v for k, v in near.items() if k not in ("counts", "confusion")}  # a ledger row's report
    assert report_intervals(old) == report_intervals(near)


def test_validation_set_rows_get_their_own_table(tmp_path):
    """Rows decoded on the corpus's validation set (run.sh --decode-sets) are not test scores: they
    go to a table of their own after the targets, whose commands name the set."""
    exp = tmp_path / "exp"
    for set_name, f1 in (("test2011", 55.0), ("dev2012", 52.0)):
        d = _scored(exp, "iwslt2011", "m", set_name, _report(50, 60, 10, f1))
        (d / "config.yaml").write_text("model: tbrnn\n")
    text = results.render(results.collect(exp))
    main, dev = text.split("### iwslt2011: dev2012 decoded whole (the validation set)")
    assert "### Targets on test2011" in main and "| 52.0 |" not in main and "dev2012 |" not in main
    rows = [x for x in dev.splitlines() if x.startswith("| m ")]
    assert len(rows) == 1 and rows[0].startswith("| m [1] | dev2012 |") and "| 52.0 |" in rows[0]
    assert "T-BRNN (Tilk" not in dev  # the published numbers are test2011's
    assert "[1] `./run.sh --corpus iwslt2011 --models m --decode-sets dev2012 --stage 6 --stop-stage 9`" in dev
    assert "[1] `./run.sh --corpus iwslt2011 --models m --stage 6 --stop-stage 9`" in main


def test_corpus_sets_read_from_the_recipe(tmp_path):
    """The sets come from the corpus's experiments.yaml, the file run.sh's stages read."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "experiments.yaml").write_text("sets: {train: [a, b], valid: dev, test: [t1, t2]}\nexperiments: {}\n")
    assert results.corpus_sets("c", tmp_path) == ("dev", ("t1", "t2"))
    assert results.corpus_sets("none", tmp_path) == (None, ())
    assert results.corpus_sets("iwslt2011") == ("dev2012", ("test2011",))
    assert results.paper_set("iwslt2011") == "test2011" and results.paper_set("c", tmp_path) is None


def test_published_rows_and_targets_only_where_the_recipe_says_its_test_set_is_the_papers(tmp_path):
    """recipes/quick and recipes/iwslt2011_text test on test2011 too, with other training text:
    their rows are not the papers' models on the papers' terms."""
    exp = tmp_path / "exp"
    for corpus in ("iwslt2011", "quick"):
        d = exp / corpus / "tbrnn_2m"
        (d / "decode_test2011" / "scoring").mkdir(parents=True)
        (d / "decode_test2011" / "scoring" / "report.json").write_text(json.dumps(_report(50, 60, 10, 55.0)))
        (d / "config.yaml").write_text("model: tbrnn\n")
    text = results.render(results.collect(exp))
    paper, quick = text.split("## quick")
    assert "### Targets on test2011" in paper and "T-BRNN (Tilk and Alumäe 2016, Table 2) | test2011 |" in paper
    assert "Targets" not in quick and "Tilk" not in quick and "| tbrnn_2m [1] | test2011 |" in quick


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


def test_the_dnn_a_target_reads_the_five_word_window_rows_only(tmp_path):
    """Che et al.'s 53.8 is their 5-word window (LMC-1): an 8-word-window row (LMC-2) that scores
    higher is not taken for it. A ledger row without model_args gets them from its command."""
    exp = tmp_path / "exp"
    for name, window, f1 in (("lmc1", 5, 50.5), ("lmc2", 8, 52.0)):
        d = _scored(exp, "iwslt2011", name, "test2011", _report(50, 60, 10, f1))
        (d / "config.yaml").write_text(f"model: lmc\nmodel_args:\n  window: {window}\n")
        (d / "train_data.json").write_text(json.dumps({"words": 2_100_000}))
    targets = results.render(results.collect(exp)).split("### Targets on test2011")[1]
    row = {c[0]: c for c in ([x.strip() for x in line.strip("|").split("|")]
                             for line in targets.splitlines() if line.startswith("| "))}
    assert row["DNN-A (Che et al. 2016)"][3] == "`lmc1` 50.5"
    old = {"train": {"cmd": "python -m punct.bin.train --config conf/lmc2.yaml --exp x model_args.dropout=0.3"}}
    assert results.row_model_args(old)["window"] == 8 and results.row_model_args(old)["dropout"] == 0.3
    old = {"train": {"cmd": "python -m punct.bin.train --config conf/lmc2.yaml model_args.window=5"}}
    assert results.row_model_args(old)["window"] == 5
