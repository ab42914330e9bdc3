"""punct.results.render: the score tables of RESULTS.md (a run's state, the validation set's rows,
the ablation tables and their gains) and the sections beside them (WER cross-checks, ASR
decoding, benchmarks, the prepared data sets), and how the ledger carries the sections."""
from __future__ import annotations

import json

import pytest

from punct import results
from punct.bin import results as results_bin
from punct.errors import PunctError
from tests.results.runs import report as _report, scored as _scored


def test_wer_cross_check_section(tmp_path):
    exp = tmp_path / "exp"
    d = exp / "earnings" / "wer_e21_kaldi_rev"
    d.mkdir(parents=True)
    (d / "wer.json").write_text(json.dumps({
        "punct_score": {"ref_words": 2707, "substitutions": 269, "deletions": 53, "insertions": 201, "wer": 19.32},
        "sclite": {"words": 2707, "sub": 9.9, "del": 2.0, "ins": 7.4, "wer": 19.3}, "utterances": ["4386541"]}))
    (d / "run.cmd").write_text("python -m punct.bin.wer --utt 4386541\n")
    asr = exp / "ljspeech" / "asr_dev" / "scoring"
    asr.mkdir(parents=True)
    (asr / "wer.json").write_text(json.dumps({"punct_score": {"ref_words": 593, "wer": 32.55}, "sclite": None}))
    out = tmp_path / "RESULTS.md"
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| earnings | e21_kaldi_rev | 4386541 | 2707 | 269 | 53 | 201 | 19.32 | 9.9 / 2.0 / 7.4 | 19.3 | " \
           "`python -m punct.bin.wer --utt 4386541` |" in text
    assert "| ljspeech | dev | 593 | 32.55 | - | `./run.sh --corpus ljspeech --stage 3 --stop-stage 3` |" in text


def test_no_experiments_no_sections(tmp_path):
    (tmp_path / "exp").mkdir()
    out = tmp_path / "RESULTS.md"
    assert results_bin.main(["--exp", str(tmp_path / "exp"), "--out", str(out)]) == 0
    assert "cross-check" not in out.read_text(encoding="utf-8")


def test_benchmark_sections(tmp_path):
    exp = tmp_path / "exp"
    b = exp / "benchmarks"
    b.mkdir(parents=True)
    (b / "models_speed.json").write_text(json.dumps({
        "rows": [{"config": "tbrnn.yaml", "model": "tbrnn", "params": 9018628, "train_wps": 2500.4, "decode_wps": 9000.0,
                  "epoch_hours": 0.2333}], "threads": 2, "epoch_words": 2100000, "cores": 2,
        "load_before": [0.1, 0.2, 0.3], "load_after": [1.0, 0.5, 0.4], "command": "python benchmarks/bench_models.py --json x"}))
    (b / "models_speed_precision.json").write_text(json.dumps({
        "rows": [{"config": "drnn_lwma.yaml", "model": "drnn_lwma", "params": 9174252, "train_wps": w, "decode_wps": 1600.0,
                  "epoch_hours": 2.1e6 / w / 3600, "precision": p} for p, w in (("fp32", 1784.0), ("bf16", 3248.0))],
        "threads": 2, "epoch_words": 2100000, "cores": 2, "load_before": [0, 0, 0], "load_after": [1, 1, 1],
        "command": "python benchmarks/bench_models.py --precision bf16"}))
    (b / "restore_earnings21.json").write_text(json.dumps({
        "machine": {"cores": 2, "machine": "x86_64"}, "load_before": [0, 0, 0], "load_after": [1, 1, 1],
        "runs": [{"ctm": "rev/kaldi/ctm/1.ctm", "audio_minutes": 59.9, "words": 9912, "marks": {",": 8, ".": 5, "?": 1},
                  "wall_s": 7.71, "cpu_s": 4.52, "words_per_s": 1285, "peak_rss_mb": 296, "identical_words_and_times": True}],
        "command": "python benchmarks/bench_restore_call.py"}))
    (b / "train_nproc.json").write_text(json.dumps({
        "config": "conf/tbrnn.yaml", "train_words": 203088, "cores": 2, "load_before": 0.1, "load_after": 1.2,
        "rows": [{"layout": "1 process, 1 thread", "words_per_s": 5025.0, "epoch_s": 48.2, "speedup": 1.0,
                  "valid_ppl": 1.58181}], "command": "python benchmarks/bench_train_nproc.py --json x"}))
    (b / "optimizer_step.json").write_text(json.dumps({
        "rows": [{"case": "conf/drnn_lwma_pre.yaml:401017", "model": "drnn_lwma_pre", "optimizer": "adam",
                  "vocab": 401017, "params": 28326286, "foreach_step_ms": 130.42, "fused_step_ms": 25.1,
                  "step_speedup": 5.196, "foreach_train_step_ms": 910.3, "fused_train_step_ms": 801.9,
                  "train_step_speedup": 1.135}],
        "threads": 1, "cores": 2, "torch": "2.13.0", "load_before": 0.1, "load_after": 0.9,
        "command": "python benchmarks/bench_optimizer.py --json x"}))
    out = tmp_path / "RESULTS.md"
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| tbrnn.yaml | tbrnn | 9,018,628 | 2500 | 9000 | 0.23 |" in text
    assert "| drnn_lwma.yaml (bf16) | drnn_lwma | 9,174,252 | 3248 | 1600 | 0.18 |" in text
    assert "| drnn_lwma.yaml | drnn_lwma | 9,174,252 | 1784 | 1600 | 0.33 |" in text
    assert text.index("## Training and decoding speed") < text.index("## Training speed in fp32 and bf16")
    assert "| rev/kaldi/ctm/1.ctm | 59.9 | 9912 | 7.7 | 4.5 | 1285 | 296 | 8 | 5 | 1 | yes |" in text
    assert "Command: `python benchmarks/bench_restore_call.py`" in text
    assert "first 203,088 training words" in text
    assert "| 1 process, 1 thread | 5025 | 48.2 | 1.00 | 1.5818 |" in text
    assert ("| `conf/drnn_lwma_pre.yaml:401017` | adam | 28,326,286 | 130.4 | 25.1 | 5.2 | 910 | 802 | 1.14 |"
            in text)
    assert text.index("## Using the cores in one training") < text.index("## Optimizer step, torch's fused")


def test_asr_rows_of_other_corpora_survive_a_rerun_of_one(tmp_path):
    """The ASR and WER sections hold one row per corpus and set: a rerun with one corpus's files
    under exp/ replaces that corpus's rows and carries the others, marked, rather than dropping them."""
    import shutil

    exp, out = tmp_path / "exp", tmp_path / "RESULTS.md"

    def asr(corpus, set_name, wer):
        d = exp / corpus / f"asr_{set_name}" / "scoring"
        d.mkdir(parents=True, exist_ok=True)
        (d / "wer.json").write_text(json.dumps({"punct_score": {"ref_words": 100, "wer": wer}, "sclite": None}))

    asr("ljspeech", "dev", 32.55)
    asr("earnings", "e21", 20.0)
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    shutil.rmtree(exp / "ljspeech")
    asr("earnings", "e21", 18.5)  # earnings decoded again: its new row wins
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    sec = text[text.index("## ASR decoding"):]
    sec = sec[: sec.index("\n## ")] if "\n## " in sec else sec
    body = [x for x in sec.splitlines() if x.startswith("| ") and "---" not in x][1:]
    assert body[0].startswith("| earnings | e21 | 100 | 18.50 |")
    assert body[1].startswith("| † ljspeech | dev | 100 | 32.55 |")
    assert "Rows marked † come from the ledger" in sec and "† From the ledger" not in sec
    ledger = json.loads((tmp_path / "RESULTS.json").read_text())["sections"]["asr"]
    assert not any("†" in x for x in ledger) and any(x.startswith("| ljspeech | dev |") for x in ledger)
    again = text
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0  # stable on a rerun
    assert out.read_text(encoding="utf-8") == again
    asr("ljspeech", "dev", 30.0)  # back under exp/: no longer carried
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| ljspeech | dev | 100 | 30.00 |" in text and "32.55" not in text and "| † " not in text


def test_data_sets_section_from_prepared_stats(tmp_path):
    (tmp_path / "exp").mkdir()
    d = tmp_path / "data" / "c" / "train"
    d.mkdir(parents=True)
    (d / "stats.json").write_text(json.dumps({"words": 1000, "labels": {"O": 850, "COMMA": 80, "PERIOD": 60, "QUESTION": 10},
                                              "heldout_overlap": {"test": {"shared_pct": 0.125, "utterances": 13,
                                                                           "utterances_seen": 0}}}))
    (tmp_path / "data" / "c" / "test").mkdir()
    (tmp_path / "data" / "c" / "test" / "stats.json").write_text(json.dumps({"words": 10, "labels": {"O": 9, "PERIOD": 1}}))
    (tmp_path / "data" / "c" / "hyp").mkdir()
    (tmp_path / "data" / "c" / "hyp" / "stats.json").write_text(json.dumps({"speakers": 3}))  # not label stats: skipped
    out = tmp_path / "R.md"
    assert results_bin.main(["--exp", str(tmp_path / "exp"), "--data", str(tmp_path / "data"), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## c: the prepared data sets" in text
    assert "| train | 1,000 | 8.00 | 6.00 | 1.00 | 14.3 | test 0.12% (0 of 13 seen) |" in text and "| hyp |" not in text
    assert "| test | 10 | 0.00 | 10.00 | 0.00 | 10.0 | - |" in text


def _bench_files(bench):
    bench.mkdir(parents=True, exist_ok=True)
    (bench / "score_align_e21_amazon.json").write_text(json.dumps({
        "ref": "data/earnings/e21_ref", "hyp": "data/earnings/e21_amazon", "utterances": 2, "align_dp_cpu_s": 13.5, "align_rapidfuzz_cpu_s": 1.1,
        "score_before_cpu_s": 16.0, "score_after_cpu_s": 3.0, "differing_utterances": 0, "load_before": 0.1,
        "load_after": 0.2, "cores": 2, "wer_before": {"standard": 17.7, "loose": 17.5, "ref_words": 100},
        "wer_after": {"standard": 17.7, "loose": 17.5, "ref_words": 100},
        "command": "python benchmarks/bench_score_align.py REF HYP --json X"}))
    (bench / "restore_runtimes.json").write_text(json.dumps({
        "info": {"ctm": "c/4366302.ctm", "threads": 1, "cores": 2, "load_before": [3.9], "load_after": [4.1],
                 "torch": "2", "onnxruntime": "1", "command": "python benchmarks/bench_restore.py --runtimes torch onnx"},
        "rows": [{"model": "models/default.pt", "runtime": "torch", "words": 1000, "decode": {"decode_cpu_s": 2.0},
                  "decode_words_per_cpu_s": 500.0, "startup_s": 1.8, "torch_imported": True},
                 {"model": "models/default.pt", "runtime": "onnx", "words": 1000, "decode": {"decode_cpu_s": 1.0},
                  "decode_words_per_cpu_s": 1000.0, "startup_s": 0.4, "torch_imported": False}]}))
    (bench / "pitch_trackers.json").write_text(json.dumps({
        "clips": 2, "audio_seconds": 10.0, "load_before": 0.1, "load_after": 0.1,
        "trackers": {"yin": {"seconds": 1.0, "x_real_time": 0.1, "voiced_share": 0.5},
                     "pyin": {"seconds": 3.0, "x_real_time": 0.3, "first_call_seconds": 5.0, "voiced_share": 0.6}},
        "pairs": {"yin-pyin": {"voicing_agreement": 0.8, "kappa": 0.6, "both_voiced_frames": 10,
                               "median_semitones": 0.1, "gross_over_3_semitones": 0.01}}}))


def test_issue48_benchmark_sections_print_their_commands_and_outlive_their_files(tmp_path):
    """Scoring before/after rapidfuzz, the inference runtimes and the pitch trackers each get a
    section with the command that reproduces it and the machine's load; with their JSON files
    gone the ledger carries them, marked, unchanged otherwise."""
    exp, out = tmp_path / "exp", tmp_path / "RESULTS.md"
    _bench_files(exp / "benchmarks")
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| e21_ref / e21_amazon | 2 | 100 | 13.50 | 1.10 | 16.00 | 3.00 | 17.70 | 17.50 | yes | 0 |" in text
    assert "`python benchmarks/bench_score_align.py REF HYP --json X`" in text
    assert "| default.pt | onnx | 1000 | 1.000 | 1000 | 2.00 |" in text and "| default.pt | torch | 1000 | 2.000 |" in text
    assert "Command: `python benchmarks/bench_restore.py --runtimes torch onnx`" in text
    assert "the machine was loaded" in text.split("## Inference runtimes")[1].split("\n## ")[0]
    assert "| yin-pyin | 80.0 | 0.600 | 10 | 0.100 | 1.00 |" in text
    assert "| pyin | 3.00 | 0.3000 | 5.0 | 60.0 | 80.0 | - |" in text
    assert f"Command: `python benchmarks/bench_pitch.py --clips 2 --trackers yin pyin --json {exp / 'benchmarks'}" in text
    assert "†" not in text
    ledger = json.loads((tmp_path / "RESULTS.json").read_text())["sections"]
    assert {"score_align", "restore_runtimes", "pitch_trackers"} <= set(ledger)

    for f in (exp / "benchmarks").iterdir():
        f.unlink()
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0
    carried = out.read_text(encoding="utf-8")
    for title in ("## Scoring speed before and after", "## Inference runtimes", "## Pitch trackers"):
        sec = carried.split(title)[1].split("\n## ")[0]
        assert "† From the ledger `RESULTS.json`" in sec
        assert "Command: `python benchmarks/" in sec or "| `python benchmarks/bench_score_align.py" in sec
    assert "| e21_ref / e21_amazon | 2 | 100 | 13.50 |" in carried and "| yin-pyin | 80.0 |" in carried
    assert "Command: `python benchmarks/bench_restore.py --runtimes torch onnx`" in carried
    again = carried
    assert results_bin.main(["--exp", str(exp), "--out", str(out)]) == 0  # stable: nothing lost on a rerun
    assert out.read_text(encoding="utf-8") == again


def test_a_lightly_loaded_machine_is_not_called_loaded(tmp_path):
    exp, out = tmp_path / "exp", tmp_path / "RESULTS.md"
    _bench_files(exp / "benchmarks")
    assert results_bin.main(["--exp", str(exp), "--out", str(out), "--no-ledger"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "the machine was loaded" not in text.split("## Pitch trackers")[1]
    assert "Load average before/after: 0.10 / 0.10 on 2 cores." in text


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


def test_ablation_gain_is_the_difference_of_the_printed_values(tmp_path):
    exp, recipes = tmp_path / "exp", tmp_path / "recipes"
    _scored(exp, "c", "lex", "hyp", _report(50, 60, 10, 61.54))   # printed 61.5
    _scored(exp, "c", "other", "hyp", _report(50, 60, 10, 62.66))  # printed 62.7: +1.2, not +1.1
    (recipes / "c").mkdir(parents=True)
    (recipes / "c" / "results_ablation.tsv").write_text("lexical\tlex\thyp\tbase\nother\tother\thyp\n")
    rows = [x for x in results.render_ablations(results.collect(exp), recipes) if x.startswith("| ")]
    assert "| 62.7 | +1.2 (lexical) |" in rows[2]


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
