"""The papers' published numbers on IWSLT2011 test2011 and the targets table drawn from them."""
from __future__ import annotations

from typing import Any

from punct.errors import PunctError
from punct.text.labels import COMMA, PERIOD, QUESTION
from punct.results.collect import CARRIED, ROOT, _class

#: Published results on IWSLT2011 test2011 (reference transcripts), keyed by the
#: model name used in conf/. Overall F1 and SER as reported in the papers.
PUBLISHED: dict[str, list[dict[str, Any]]] = {
    # per class (P, R, F1) and overall P, R: the T-BRNN table of the punctuator2 README
    # (github.com/ottokart/punctuator2, "English TED talks", the Interspeech 2016 model)
    "tbrnn": [{"system": "T-BRNN (Tilk and Alumäe 2016, Table 2)", "f1": 63.1, "ser": 51.3, "p": 68.9, "r": 58.1,
               "classes": {COMMA: (64.4, 45.2, 53.1), PERIOD: (72.3, 71.5, 71.9), QUESTION: (67.5, 58.7, 62.8)}}],
    "tbrnn_pre": [{"system": "T-BRNN-pre (Tilk and Alumäe 2016, Table 2)", "f1": 64.4}],
    "tlstm": [{"system": "T-LSTM (Tilk and Alumäe 2015, as reported by Tilk and Alumäe 2016)", "f1": 50.8}],
    "drnn_lwma": [{"system": "DRNN-LWMA (Kim 2019)", "f1": 67.2}],
    "drnn_lwma_pre": [{"system": "DRNN-LWMA-pre (Kim 2019)", "f1": 68.6}],
    # Che et al. (LREC 2016) classify the slot after the 3rd word of a 5-word window (LMC-1):
    # rows of other windows (LMC-2's 8 words) are not that model
    "lmc": [{"system": "DNN-A (Che et al. 2016)", "f1": 53.8, "model_args": {"window": 5}}],
}


#: the papers trained on IWSLT's train2012 (2.1M words); rows up to this size count as the same budget
PAPER_BUDGET_WORDS = 2_200_000


def row_model_args(row: dict[str, Any]) -> dict[str, Any]:
    """The model arguments a row was trained with: its resolved config's, or, for a ledger row
    written before they were kept, those of the config its training command names (as the
    repository has it now) with the command's ``model_args.K=V`` overrides."""
    known = row["train"].get("model_args")
    if isinstance(known, dict):
        return known
    import shlex

    from punct.config import load_yaml, merge, parse_overrides

    try:
        args = shlex.split(row["train"].get("cmd") or "")
        config = ROOT / args[args.index("--config") + 1] if "--config" in args[:-1] else None
        base = load_yaml(config) if config is not None and config.is_file() else {}
        data = merge(base, parse_overrides([a for a in args if a.startswith("model_args.") and "=" in a]))
    except (ValueError, PunctError):
        return {}
    return data.get("model_args") or {}


def _overall_f1(row: dict[str, Any]) -> float | None:
    f1 = _class(row["report"], "OVERALL").get("f1")
    return float(f1) if isinstance(f1, (int, float)) else None


def render_targets(rows: list[dict[str, Any]], test_set: str = "test2011", margin: float = 2.0) -> list[str]:
    """The targets of the papers' models, read off the rows of one corpus: for each model with a
    published overall F1 (``PUBLISHED``), the best row of that model on ``test_set`` within the
    papers' training budget (``PAPER_BUDGET_WORDS``), whether it is within ``margin`` points of
    the paper or above, and the best row on more text; then the best single model and the best
    system (ensembles included) against the best published number. Empty if no row of the corpus
    is a published model on ``test_set``."""
    scored = [r for r in rows if r["set"] == test_set and _overall_f1(r) is not None]
    if not any(r["train"].get("model") in PUBLISHED for r in scored):
        return []

    def best(rs: list[dict[str, Any]]) -> dict[str, Any] | None:
        return max(rs, key=lambda r: (_overall_f1(r), not r.get("carried"))) if rs else None

    def name(r: dict[str, Any]) -> str:
        return f"`{r['exp']}`{' ' + CARRIED if r.get('carried') else ''} {_overall_f1(r):.1f}"

    out = [f"### Targets on {test_set}", "",
           "Each paper's model against its published overall F1: met when the best row of that model on the",
           f"papers' 2.1M-word budget (rows of at most {PAPER_BUDGET_WORDS:,} training words) is within {margin:g}"
           " points or above.",
           "Read off the table above; rows still training or stopped early count as they stand. A paper model",
           "that is one configuration reads only the rows of that configuration (DNN-A: the 5-word window).",
           "\"95% interval\" is that row's overall F1 on other test sets of the same size and kind: the",
           "percentile interval of 2,000 bootstrap resamples of its scored slots (`punct.scoring.significance`;",
           "`punct score REF HYP --bootstrap 1000` resamples blocks of 100 words and gives the same to 0.1",
           "on test2011). A published number inside it is within what one test set can tell apart.", "",
           "| paper's model | published F1 | needed | best row, same budget | gap | met | 95% interval | "
           "best row, more text |",
           "|---|---|---|---|---|---|---|---|"]
    def interval(r: dict[str, Any], published: float) -> str:
        from punct.scoring.significance import report_intervals

        iv = report_intervals(r["report"])
        if iv is None or "overall" not in iv:
            return "-"
        lo, hi = iv["overall"]
        return f"{lo:.1f}-{hi:.1f}" + (" (paper inside)" if lo <= published <= hi else "")

    top_published = 0.0
    for model, pubs in PUBLISHED.items():
        for pub in pubs:
            top_published = max(top_published, pub["f1"])
            mine = [r for r in scored if r["train"].get("model") == model
                    and all(row_model_args(r).get(k) == v for k, v in (pub.get("model_args") or {}).items())]
            small = best([r for r in mine if (r["train"].get("train_words") or 0) <= PAPER_BUDGET_WORDS])
            large = best([r for r in mine if (r["train"].get("train_words") or 0) > PAPER_BUDGET_WORDS])
            if small is None:
                cells = ["not measured", "-", "no", "-"]
            else:
                gap = _overall_f1(small) - pub["f1"]
                cells = [name(small), f"{gap:+.1f}", "yes" if gap >= -margin else "no", interval(small, pub["f1"])]
            out.append(f"| {pub['system']} | {pub['f1']:.1f} | {pub['f1'] - margin:.1f} | " + " | ".join(cells)
                       + f" | {name(large) if large else '-'} |")
    single = best([r for r in scored if r["train"].get("model") != "ensemble"])
    system = best(scored)

    def verdict(r) -> str:  # to two decimals: a row that rounds to the published number is still below it
        d = _overall_f1(r) - top_published
        iv = interval(r, top_published)
        return f" ({'above' if d > 0 else 'below'}: {_overall_f1(r):.2f}, {d:+.2f}" + \
            (f"; 95% interval {iv}" if iv != "-" else "") + ")"

    out += ["", f"Best published: {top_published:.1f}. Best single punct model: "
            f"{name(single) + verdict(single) if single else '-'}; best punct system: {name(system)}{verdict(system)}.", ""]
    return out
