"""Self-contained HTML reports of ``punct score`` and ``punct compare``, and the figures.

One ``.html`` file each, with the figures inline as SVG (matplotlib, Agg; text kept as text),
no script, no link to anything outside the file: it opens offline and can be mailed.

- ``score_html``: per-class and overall precision, recall and F1 with the bootstrap interval
  of each F1 and of SER (punct.scoring.significance), the confusion matrix as a heat map (each row
  shaded by its share of the reference label, counts written in), the word error rates and
  the mark transfer, and the wrong slots in their context.
- ``compare_html``: two hypotheses side by side: their tables, their heat maps, F1 with
  intervals in one chart, the paired differences with intervals and p-values.
"""
from __future__ import annotations

import html
import io
from typing import TYPE_CHECKING, Sequence

from punct.text.labels import LABELS, MARK_LABELS

if TYPE_CHECKING:
    from punct.scoring.score import ScoreReport
    from punct.scoring.significance import Comparison, Intervals

#: wrong slots listed in a report (the errors.txt beside it has them all)
MAX_ERRORS = 300

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.4em} h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0} td,th{padding:.2em .6em;text-align:right;border-bottom:1px solid #eee}
th{background:#f4f4f4} td.l,th.l{text-align:left} .muted{color:#777;font-size:.9em}
.side{display:flex;gap:2em;flex-wrap:wrap} .side>div{flex:1;min-width:380px}
.err td{font-family:ui-monospace,monospace;font-size:.85em} .tag{background:#fde2e2;color:#900}
svg{max-width:100%;height:auto}
"""


def _f(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _svg(fig) -> str:
    """A matplotlib figure as inline SVG markup (no XML prolog), the figure closed."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.find("<svg"):]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: smaller, searchable
    import matplotlib.pyplot as plt

    return plt


def confusion_figure(report: "ScoreReport", title: str = "") -> str:
    """The confusion matrix as an SVG heat map: rows reference, columns hypothesis, each
    cell shaded by its share of its row, its count written in."""
    import numpy as np

    plt = _pyplot()
    m = np.array([[report.confusion[r][h] for h in LABELS] for r in LABELS], dtype=float)
    share = m / np.maximum(m.sum(1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(4.6, 3.9))
    ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for i in range(len(LABELS)):
        for j in range(len(LABELS)):
            ax.text(j, i, f"{int(m[i, j]):,}\n{100 * share[i, j]:.0f}%", ha="center", va="center", fontsize=8,
                    color="white" if share[i, j] > 0.6 else "black")
    ax.set_xticks(range(len(LABELS)), LABELS, fontsize=8)
    ax.set_yticks(range(len(LABELS)), LABELS, fontsize=8)
    ax.set_xlabel("hypothesis")
    ax.set_ylabel("reference")
    if title:
        ax.set_title(title, fontsize=9)
    return _svg(fig)


def f1_figure(systems: Sequence[tuple[str, "ScoreReport", "Intervals | None"]]) -> str:
    """Per-class and overall F1 of one or more systems as grouped bars, with the bootstrap
    interval of each as an error bar where there is one."""
    import numpy as np

    plt = _pyplot()
    keys = [*MARK_LABELS, "overall"]
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    width = 0.8 / max(1, len(systems))
    for s, (name, rep, iv) in enumerate(systems):
        vals = [(rep.per_class[k] if k != "overall" else rep.overall).f1 for k in keys]
        y = np.array([np.nan if v is None else v for v in vals])
        x = np.arange(len(keys)) + (s - (len(systems) - 1) / 2) * width
        err = None
        if iv is not None:
            lo = np.array([np.nan if iv.low.get(k) is None else iv.low[k] for k in keys])
            hi = np.array([np.nan if iv.high.get(k) is None else iv.high[k] for k in keys])
            err = np.vstack([np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)])
        ax.bar(x, y, width * 0.95, yerr=err, capsize=3, label=name)
    ax.set_xticks(range(len(keys)), keys, fontsize=8)
    ax.set_ylabel("F1 (%)")
    ax.set_ylim(0, 100)
    ax.grid(axis="y", alpha=0.3)
    if len(systems) > 1:
        ax.legend(fontsize=8)
    return _svg(fig)


def _score_table(report: "ScoreReport", iv: "Intervals | None") -> str:
    rows = []
    pct = f"{100 * iv.level:g}% interval" if iv is not None else "interval"
    for name, p in [*report.per_class.items(), ("overall", report.overall), ("boundary", report.boundary),
                    ("sentence", report.sentence)]:
        cell = "-"
        if iv is not None and name in iv.point:
            cell = f"{_f(iv.low[name])} &ndash; {_f(iv.high[name])}"
        rows.append(f"<tr><td class=l>{name}</td><td>{p.ref:,}</td><td>{p.hyp:,}</td><td>{p.tp:,}</td>"
                    f"<td>{_f(p.precision)}</td><td>{_f(p.recall)}</td><td><b>{_f(p.f1)}</b></td><td>{cell}</td></tr>")
    ser = "-" if iv is None else f"{_f(iv.low['ser'])} &ndash; {_f(iv.high['ser'])}"
    rows.append(f"<tr><td class=l>SER</td><td colspan=5></td><td><b>{_f(report.ser)}</b></td><td>{ser}</td></tr>")
    return ("<table><tr><th class=l>class</th><th>ref</th><th>hyp</th><th>tp</th><th>P</th><th>R</th><th>F1</th>"
            f"<th>F1 {pct}</th></tr>" + "".join(rows) + "</table>")


def _transfer(report: "ScoreReport") -> str:
    t = report.transfer
    if t is None or not (t.word_errors or t.exact_errors or t.dropped or t.moved):
        return ""
    return (f"<p>WER <b>{_f(t.exact_wer)}</b> (standard: words equal only as spelled, as sclite and jiwer count; "
            f"{t.exact_errors:,} errors over {t.ref_words:,} reference words). "
            f"WER {_f(t.wer)} of the alignment that carries the marks (words matched loosely: case, edge marks, "
            f"abbreviation dots, clitics joined): S {t.substitutions:,} + D {t.deletions:,} + I {t.insertions:,}.</p>"
            f"<p>Reference marks {t.marks:,}: carried {t.carried:,}, on deleted words {t.on_deleted:,} (moved to the "
            f"preceding word {t.moved:,}), dropped {t.dropped:,}.</p>")


def _errors(report: "ScoreReport", limit: int = MAX_ERRORS) -> str:
    counts: dict[str, int] = {}
    for e in report.errors:
        counts[f"{e.ref} &rarr; {e.hyp}"] = counts.get(f"{e.ref} &rarr; {e.hyp}", 0) + 1
    summary = ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
    rows = []
    for e in report.errors[:limit]:
        tag = f"[{e.ref}->{e.hyp}]"
        ctx = html.escape(e.context).replace(html.escape(tag), f"<span class=tag>{html.escape(tag)}</span>", 1)
        rows.append(f"<tr><td class=l>{html.escape(str(e.utt or ''))}</td><td>{e.index}</td>"
                    f"<td class=l>{ctx}</td></tr>")
    more = (f"<p class=muted>the first {limit:,} of {len(report.errors):,} wrong slots (all of them: errors.txt)</p>"
            if len(report.errors) > limit else "")
    return (f"<p>{len(report.errors):,} wrong slots: {summary or 'none'}.</p>{more}"
            "<table class=err><tr><th class=l>utterance</th><th>word</th><th class=l>context</th></tr>"
            + "".join(rows) + "</table>")


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n")


def score_html(report: "ScoreReport", intervals: "Intervals | None", ref: str, hyp: str,
               command: str | None = None) -> str:
    """The HTML report of one hypothesis against its reference (see the module docstring)."""
    head = (f"<p>reference <code>{html.escape(ref)}</code><br>hypothesis <code>{html.escape(hyp)}</code></p>"
            + (f"<p class=muted>{html.escape(command)}</p>" if command else ""))
    iv_note = "" if intervals is None else (
        f"<p class=muted>intervals: bootstrap, {intervals.resamples} resamples of {intervals.blocks:,} blocks of "
        f"{intervals.block_words} words (punct.scoring.significance)</p>")
    body = (head + "<h2>Scores</h2>" + _score_table(report, intervals) + iv_note
            + f"<p>Err {_f(report.err)} ({report.wrong_slots:,} wrong of {report.slots:,} slots)</p>"
            + _transfer(report)
            + "<h2>Confusion and F1</h2><div class=side><div>" + confusion_figure(report) + "</div><div>"
            + f1_figure([("", report, intervals)]) + "</div></div>"
            + "<h2>Errors in context</h2>" + _errors(report))
    return _page("punct score", body)


def compare_html(a: "ScoreReport", b: "ScoreReport", cmp: "Comparison", name_a: str, name_b: str, ref: str,
                 intervals: tuple["Intervals | None", "Intervals | None"] = (None, None),
                 command: str | None = None) -> str:
    """The HTML report of two hypotheses against one reference, side by side."""
    rows = []
    for k in cmp.delta:
        p = "-" if cmp.p_value[k] is None else f"{cmp.p_value[k]:.3f}"
        rows.append(f"<tr><td class=l>{'SER' if k == 'ser' else k}</td><td>{_f(cmp.a[k], 2)}</td>"
                    f"<td>{_f(cmp.b[k], 2)}</td><td><b>{_f(cmp.delta[k], 2)}</b></td>"
                    f"<td>{_f(cmp.low[k], 2)} &ndash; {_f(cmp.high[k], 2)}</td><td>{p}</td></tr>")
    paired = ("<table><tr><th class=l>metric</th><th>A</th><th>B</th><th>A &minus; B</th>"
              f"<th>{100 * cmp.level:g}% interval</th><th>p</th></tr>" + "".join(rows) + "</table>"
              f"<p class=muted>paired bootstrap: {cmp.resamples} resamples of {cmp.blocks:,} blocks of "
              f"{cmp.block_words} words, the same blocks for A and B</p>")
    side = "<div class=side>"
    for tag, name, rep, iv in (("A", name_a, a, intervals[0]), ("B", name_b, b, intervals[1])):
        side += (f"<div><h2>{tag}: <code>{html.escape(name)}</code></h2>" + _score_table(rep, iv)
                 + _transfer(rep) + confusion_figure(rep, f"{tag}: confusion") + "</div>")
    side += "</div>"
    body = (f"<p>reference <code>{html.escape(ref)}</code><br>A <code>{html.escape(name_a)}</code><br>"
            f"B <code>{html.escape(name_b)}</code></p>"
            + (f"<p class=muted>{html.escape(command)}</p>" if command else "")
            + "<h2>A against B</h2>" + paired
            + f1_figure([("A", a, intervals[0]), ("B", b, intervals[1])]) + side)
    return _page("punct compare", body)
