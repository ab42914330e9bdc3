"""The figures of RESULTS.md, drawn from its rows (punct.results: the experiments under exp/
and the ledger ``RESULTS.json``) with matplotlib, as SVG files (text kept as text, no
timestamp, so a redraw of the same rows gives the same file):

- ``f1_vs_training_hours.svg``: overall F1 against training time (hours on the machine that
  trained, the sum of the epochs' times of ``train_log.tsv``; an ensemble counts its
  members' sum), one point per model with a time, one panel per corpus and test set;
- ``earnings21_f1_vs_wer.svg``: overall F1 of the punctuation against the word error rate of
  the recognizer on Earnings-21: the commercial engines' own punctuation, and punct's models
  on the Kaldi recognizers' output and on the reference words (WER 0).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

#: file names of the figures, and what each shows (the alt text in RESULTS.md)
FIGURES = {
    "f1_vs_training_hours.svg": "overall F1 against training hours, one point per model",
    "earnings21_f1_vs_wer.svg": "Earnings-21: punctuation F1 against the recognizer's WER",
}

#: systems scored with their own punctuation (``engines`` of recipes/earnings/corpus.sh)
ENGINES = ("amazon", "google", "microsoft", "speechmatics")


def _f1(row: dict[str, Any]) -> float | None:
    return ((row.get("report") or {}).get("overall") or {}).get("f1")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "punct"  # the same ids on every redraw
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    import io

    from punct.fsutil import atomic_write

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    with atomic_write(path) as f:
        f.write(buf.getvalue())


def training_panels(rows: Sequence[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[str, float, float]]]:
    """(corpus, set) -> [(model, hours, F1)] of the rows with a training time and an F1, for
    the set of each corpus with the most such rows (its main test set), validation sets aside."""
    by: dict[tuple[str, str], list[tuple[str, float, float]]] = {}
    for r in rows:
        hours, f1 = (r.get("train") or {}).get("train_hours"), _f1(r)
        if hours and f1 is not None and r["set"] not in ("dev2012", "dev2012_b", "e22_dev"):
            by.setdefault((r["corpus"], r["set"]), []).append((r["exp"], float(hours), float(f1)))
    best: dict[str, tuple[str, str]] = {}
    for key, pts in sorted(by.items()):  # most rows; among as many, the higher mean F1 (the better input)
        rank = (len(pts), sum(p[2] for p in pts) / len(pts))
        if key[0] not in best or rank > (len(by[best[key[0]]]), sum(p[2] for p in by[best[key[0]]]) / len(by[best[key[0]]])):
            best[key[0]] = key
    return {k: sorted(by[k], key=lambda p: p[1]) for k in sorted(best.values())}


def earnings_points(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str, float, float]]:
    """(kind, system, WER, F1) of the Earnings-21 rows: kind ``engine`` (an engine's own
    punctuation) or ``punct`` (a model of punct on a recognizer's output or the reference)."""
    from punct.results.collect import row_wer, set_wers

    e21 = [r for r in rows if r.get("corpus") == "earnings" and str(r.get("set", "")).startswith("e21_")]
    wers = set_wers(e21)
    out = []
    for r in e21:
        wer, f1 = row_wer(r, wers), _f1(r)
        if not wer and r["set"] != "e21_ref":  # a recognizer's output whose WER no row gives
            continue
        if wer is None or f1 is None:
            continue
        kind = "engine" if r["exp"] in ENGINES else "punct"
        out.append((kind, r["exp"] if kind == "engine" else f"{r['exp']} on {r['set'][4:]}", float(wer), float(f1)))
    return out


def draw_training(rows: Sequence[dict[str, Any]], path: Path) -> bool:
    """F1 against training hours (see the module docstring); False when no row has both."""
    panels = training_panels(rows)
    if not panels:
        return False
    plt = _pyplot()
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    for ax, ((corpus, set_), pts) in zip(axes[0], panels.items()):
        xs, ys = [p[1] for p in pts], [p[2] for p in pts]
        ax.scatter(xs, ys, s=14)
        top = sorted(pts, key=lambda p: -p[2])[:8]  # the best few named; the rest are dots
        for name, x, y in top:
            ax.annotate(name, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("training time (hours, log scale)")
        ax.set_ylabel("overall F1 (%)")
        ax.set_title(f"{corpus}: {set_} ({len(pts)} models)", fontsize=9)
        ax.grid(alpha=0.3)
    _save(fig, path)
    plt.close(fig)
    return True


def draw_earnings(rows: Sequence[dict[str, Any]], path: Path) -> bool:
    """F1 against the recognizer's WER on Earnings-21; False without such rows."""
    pts = earnings_points(rows)
    if not pts:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for kind, marker, color, label in (("engine", "X", "tab:red", "engine's own punctuation"),
                                       ("punct", "o", "tab:blue", "punct's models")):
        sel = [p for p in pts if p[0] == kind]
        if sel:
            ax.scatter([p[2] for p in sel], [p[3] for p in sel], marker=marker, c=color, s=30 if kind == "engine" else 14,
                       label=label)
    for kind, name, x, y in pts:
        if kind == "engine":
            ax.annotate(name, (x, y), fontsize=7, xytext=(4, 2), textcoords="offset points")
    best: dict[float, tuple[str, float]] = {}  # the best punct model at each WER, named
    for kind, name, x, y in pts:
        if kind == "punct" and (x not in best or y > best[x][1]):
            best[x] = (name, y)
    for x, (name, y) in best.items():
        ax.annotate(name, (x, y), fontsize=6, xytext=(4, -8), textcoords="offset points")
    ax.set_xlabel("word error rate of the recognizer (%)")
    ax.set_ylabel("overall punctuation F1 (%)")
    ax.set_title("Earnings-21 (33 calls)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    plt.close(fig)
    return True


def draw_all(rows: Sequence[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draw every figure whose rows exist into ``out_dir``; the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (("f1_vs_training_hours.svg", draw_training), ("earnings21_f1_vs_wer.svg", draw_earnings)):
        if draw(rows, out_dir / name):
            written.append(out_dir / name)
    return written
