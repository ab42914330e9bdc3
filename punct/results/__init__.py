"""RESULTS.md from the experiment directories under exp/ and the ledger of earlier rows
(``RESULTS.json``): ``generate`` is what ``python -m punct.bin.results`` runs, and its help
says what is read and how the ledger carries rows whose files are gone. Collection
(``collect``), rendering (``render``) and the papers' numbers (``published``) are its parts.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from punct.errors import PunctError
from punct.fsutil import atomic_write
from punct.results.collect import (CARRIED, _class, _get, _read_json, _stopped, _train_info, collect, corpus_sets,
                                   ledger_row, load_ledger, merge_ledger, paper_set, set_dir)
from punct.results.published import PUBLISHED, render_targets, row_model_args
from punct.results.render import (FIGURES_DIR, render, render_ablations, render_figures, render_sections)

__all__ = ["CARRIED", "PUBLISHED", "collect", "corpus_sets", "generate", "ledger_row", "load_ledger", "paper_set",
           "set_dir", "render", "render_ablations", "render_figures", "render_targets", "row_model_args", "_class", "_get",
           "_read_json", "_stopped", "_train_info"]


def generate(exp_root: Path, out: Path, data_root: Path | None = None, ledger_path: Path | None = None
             ) -> list[dict[str, Any]]:
    """Write OUT (Markdown) from EXP_ROOT's experiments, DATA_ROOT's prepared sets and the
    ledger at LEDGER_PATH (None: neither read nor written), and the ledger back; returns the
    rows found under EXP_ROOT."""
    exp_root, out = Path(exp_root), Path(out)
    if not exp_root.is_dir():
        raise PunctError("experiment directory not found", exp_root)
    if ledger_path is not None and Path(ledger_path).resolve() == out.resolve():
        raise PunctError("the ledger would overwrite the results file: give --ledger another name", ledger_path)
    fresh = collect(exp_root)
    rows, sections, ledger = merge_ledger(fresh, render_sections(exp_root, data_root), load_ledger(ledger_path))
    text = render(rows) + "\n".join(render_ablations(rows) + [x for lines in sections.values() for x in lines])
    text += "\n".join(render_figures(rows, out.parent / FIGURES_DIR, out.parent))
    with atomic_write(out) as f:
        f.write(text)
    if ledger_path is not None:
        with atomic_write(ledger_path) as f:
            f.write(json.dumps(ledger, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    return fresh
