"""The HTML reports (punct.scoring.report) of punct score --out-dir and punct compare --html: one
self-contained file with the figures inline, the scores with intervals, errors in context."""
from __future__ import annotations

import random
import re

import pytest

from punct.bin import compare, score
from punct.data.datadir import write_datadir
from punct.text.labels import LABELS, MARK_LABELS, O
from punct.text.words import Utterance, Word

pytest.importorskip("matplotlib")


def _write(path, labels_per_utt, words=None):
    write_datadir(path, [Utterance(f"talk{u}", [Word(words[k] if words else f"w{k}", lab)
                                                for k, lab in enumerate(labels)])
                         for u, labels in enumerate(labels_per_utt)])
    return path


@pytest.fixture
def dirs(tmp_path):
    rng = random.Random(7)
    ref = [[rng.choice(MARK_LABELS) if rng.random() < 0.2 else O for _ in range(300)] for _ in range(3)]

    def noisy(flip):
        return [[rng.choice(LABELS) if rng.random() < flip else lab for lab in u] for u in ref]

    return _write(tmp_path / "ref", ref), _write(tmp_path / "good", noisy(0.05)), _write(tmp_path / "bad", noisy(0.4))


def _self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"<(script|link|img|iframe)\b", page)  # nothing to fetch or run
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", page)
    assert not re.search(r"url\(\s*[\"']?https?:", page)


def test_score_out_dir_writes_a_self_contained_html_report(dirs, tmp_path, capsys):
    ref, good, _ = dirs
    out = tmp_path / "scoring"
    assert score.main([str(ref), str(good), "--out-dir", str(out)]) == 0
    table = capsys.readouterr().out
    page = (out / "report.html").read_text()
    _self_contained(page)
    assert page.count("<svg") == 2  # the heat map and the F1 chart
    overall_f1 = next(x for x in table.splitlines() if x.startswith("overall")).split()[-1]
    row = re.search(r"<td class=l>overall</td>(.*?)</tr>", page).group(1)
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert f"<b>{overall_f1}</b>" in row
    low, high = (float(x) for x in cells[-1].split(" &ndash; "))
    assert low < float(overall_f1) < high  # a bootstrap interval around the point
    n_errors = len((out / "errors.txt").read_text().splitlines())
    assert f"{n_errors:,} wrong slots" in page and "<span class=tag>[" in page
    for lab in LABELS:  # the heat map's axes
        assert f">{lab}<" in page


def test_compare_html_puts_both_systems_side_by_side(dirs, tmp_path, capsys):
    ref, good, bad = dirs
    html_path = tmp_path / "cmp.html"
    assert compare.main([str(ref), str(good), str(bad), "--resamples", "200", "--html", str(html_path)]) == 0
    table = capsys.readouterr().out
    page = html_path.read_text()
    _self_contained(page)
    assert page.count("<svg") == 3  # F1 of both, a heat map each
    assert f"A: <code>{good}</code>" in page and f"B: <code>{bad}</code>" in page
    delta = next(x for x in table.splitlines() if x.startswith("overall")).split()[3]
    assert f"<b>{float(delta):.2f}</b>" in page


def test_words_in_the_error_context_are_escaped(tmp_path):
    ref = _write(tmp_path / "ref", [[O, "COMMA", O, O]], words=["a<b", "&c", "d", "e"])
    hyp = _write(tmp_path / "hyp", [[O, O, O, O]], words=["a<b", "&c", "d", "e"])
    out = tmp_path / "s"
    assert score.main([str(ref), str(hyp), "--out-dir", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "a&lt;b &amp;c <span class=tag>[COMMA-&gt;O]</span>" in page
