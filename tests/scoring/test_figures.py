"""The figures of RESULTS.md (punct.scoring.figures), drawn by punct.bin.results from its rows."""
from __future__ import annotations

import json

import pytest

from punct import results

from punct.scoring import figures

pytest.importorskip("matplotlib")


def _row(corpus, set_, exp, f1, hours=None, wer=None):
    return {"corpus": corpus, "set": set_, "exp": exp, "train": {"train_hours": hours},
            "report": {"overall": {"f1": f1}, "wer": wer}, "decode": {}}


ROWS = [_row("iwslt2011", "test2011", "a", 60.0, 1.5), _row("iwslt2011", "test2011", "b", 64.0, 6.0),
        _row("iwslt2011", "dev2012", "a", 61.0, 1.5),  # a validation set: not drawn
        _row("iwslt2011", "ted_heldout", "c", 50.0, 2.0),  # fewer rows than test2011: another set, not drawn
        _row("earnings", "e21_amazon", "amazon", 56.3, None, 17.5),
        _row("earnings", "e21_kaldi_rev", "ta_brnn_p", 70.3, 0.4, 16.3),
        _row("earnings", "e21_kaldi_rev", "default", 61.5, 0.2, 16.3)]
#: rows scored against the recognizer's output with its transferred marks report WER 0
RESTORED = [_row("earnings", "e21_kaldi_rev", "default_new", 72.9, None, 0.0),
            _row("earnings", "e21_kaldi_rev_words", "default_new", 67.1, None, 0.0),
            _row("earnings", "e21_kaldi_libri", "default_new", 39.7, None, 0.0),  # no row gives its WER
            _row("earnings", "e21_ref", "student", 73.1, None, 0.0)]


def test_panels_and_points_come_from_the_rows():
    panels = figures.training_panels(ROWS)
    assert panels == {("earnings", "e21_kaldi_rev"): [("default", 0.2, 61.5), ("ta_brnn_p", 0.4, 70.3)],
                      ("iwslt2011", "test2011"): [("a", 1.5, 60.0), ("b", 6.0, 64.0)]}
    assert sorted(figures.earnings_points(ROWS)) == [("engine", "amazon", 17.5, 56.3),
                                                     ("punct", "default on kaldi_rev", 16.3, 61.5),
                                                     ("punct", "ta_brnn_p on kaldi_rev", 16.3, 70.3)]


def test_a_restored_hypothesis_is_drawn_at_its_recognizers_wer():
    """A hypothesis set's row that reports WER 0 (scored on its own transferred marks) takes the
    WER the set's other rows give, its words-only copy too; without one it is left out. The
    reference's WER 0 is its own."""
    pts = sorted(figures.earnings_points(ROWS + RESTORED))
    assert ("punct", "default_new on kaldi_rev", 16.3, 72.9) in pts
    assert ("punct", "default_new on kaldi_rev_words", 16.3, 67.1) in pts
    assert ("punct", "student on ref", 0.0, 73.1) in pts
    assert not any(p[1] == "default_new on kaldi_libri" for p in pts)


def test_results_draws_the_figures_and_links_them(tmp_path):
    (tmp_path / "exp").mkdir()
    ledger = tmp_path / "RESULTS.json"
    ledger.write_text(json.dumps({"format": 1, "rows": [], "sections": {}}))
    out = tmp_path / "RESULTS.md"
    rows = [dict(r, exp_dir=f"exp/{r['corpus']}/{r['exp']}") for r in ROWS]
    lines = results.render_figures(rows, tmp_path / "docs" / "figures", tmp_path)
    assert "![overall F1 against training hours, one point per model](docs/figures/f1_vs_training_hours.svg)" in lines
    svg = (tmp_path / "docs" / "figures" / "earnings21_f1_vs_wer.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "amazon" in svg and "ta_brnn_p on kaldi_rev" in svg
    first = svg
    results.render_figures(rows, tmp_path / "docs" / "figures", tmp_path)  # a redraw is byte for byte the same
    assert (tmp_path / "docs" / "figures" / "earnings21_f1_vs_wer.svg").read_text() == first
    results.generate(tmp_path / "exp", out, None, None)  # no rows: no figures, no section
    assert "## Figures" not in out.read_text()
