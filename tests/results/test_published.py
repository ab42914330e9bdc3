"""punct.results.published: the papers' rows beside the first row of their models, and the targets
table: each paper's model on its training budget, the intervals of the best rows, only where the
recipe says its test set is the papers'."""
from __future__ import annotations

import json

from punct import results
from tests.results.runs import report as _report, scored as _scored


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
