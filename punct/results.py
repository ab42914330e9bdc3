"""RESULTS.md from the experiment directories under exp/ and the ledger of earlier rows
(``RESULTS.json``): ``generate`` is what ``python -m punct.bin.results`` runs, and its help
says what is read and how the ledger carries rows whose files are gone. The published
numbers of the papers (``PUBLISHED``) and the targets drawn from them are here.
"""
from __future__ import annotations

import csv
import functools
import json
import math
import os
import platform
import re
from pathlib import Path
from typing import Any

from punct.errors import PunctError
from punct.fsutil import atomic_write
from punct.labels import COMMA, MARK_LABELS, PERIOD, QUESTION, SENTENCE_END, mark_of

#: the repository: recipes/<corpus>/results_notes.md is printed under its corpus table
ROOT = Path(__file__).resolve().parents[1]

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


#: models with nothing to train (no train_log.tsv rows of their own)
ACOUSTIC_ONLY = {"che_pause", "joint1", "joint2"}


def _get(d: dict, *path: str, default: Any = None) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return default
        d = d[p]
    return d


def _fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, (int, float)):
        return f"{x:.{nd}f}"
    return str(x)


def _class(report: dict, name: str) -> dict:
    """Per-class (or overall) P/R/F1 from a report.json, tolerant of layout."""
    for key in ("classes", "per_class"):
        c = _get(report, key, name)
        if c is not None:
            return c
    if name == "OVERALL":
        return report.get("overall", {})
    return report.get(name, {})


def _read_json(path: Path) -> dict[str, Any]:
    """The JSON object at PATH (every file the report reads holds one); malformed JSON or
    another top-level value is a one-line error naming the file (and line)."""
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise PunctError(f"invalid JSON: {e.msg}", path, e.lineno) from None
    except UnicodeDecodeError:
        raise PunctError("not UTF-8 text", path) from None
    if not isinstance(d, dict):
        raise PunctError(f"expected a JSON object, found {type(d).__name__}", path)
    return d


def _train_info(exp_dir: Path) -> dict[str, Any]:
    info: dict[str, Any] = {}
    log = exp_dir / "train_log.tsv"
    if log.is_file():
        with open(log, encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        if rows:
            info["epochs"] = len(rows)
            ppls = [float(r["valid_ppl"]) for r in rows if r.get("valid_ppl") not in (None, "", "nan")]
            if ppls:
                info["best_epoch"] = 1 + ppls.index(min(ppls))
            f1s = [float(r.get("valid_f1") or "nan") for r in rows]
            secs = [float(r.get("seconds") or 0) for r in rows]
            info["train_hours"] = sum(secs) / 3600
            wps = [float(r["words_per_s"]) for r in rows if r.get("words_per_s")]
            if wps:
                info["train_wps"] = sum(wps) / len(wps)
    info["stopped"] = _stopped(exp_dir)
    members_file = exp_dir / "members"
    if members_file.is_file():  # an ensemble (run.sh: name|ensemble|A+B|): its members did the training
        names = [Path(x.strip()).parent.name for x in members_file.read_text(encoding="utf-8").splitlines() if x.strip()]
        parts = [_train_info(exp_dir.parent / n) for n in names if n != exp_dir.name]
        info.update(model="ensemble", members=names, stopped="ensemble")
        hours = [p.get("train_hours") for p in parts]
        if hours and all(h is not None for h in hours):
            info["train_hours"] = sum(hours)
        words = [p.get("train_words") for p in parts if p.get("train_words")]
        if words:
            info["train_words"] = max(words)
    for name in ("run.cmd", "cmd"):
        p = exp_dir / name
        if p.is_file():
            info[name] = p.read_text(encoding="utf-8").strip().splitlines()[0]
    cfg = exp_dir / "config.yaml"
    if cfg.is_file():
        import yaml

        c = yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}
        info["model"] = c.get("model") or _get(c, "model", "name")
        info["model_args"] = c.get("model_args") or {}
        info["config"] = c
        if c.get("select_by") == "f1" and info.get("epochs"):  # best.pt is the epoch of the best validation F1
            scored = [i for i, f in enumerate(f1s) if not math.isnan(f)]
            if scored:  # the first epoch of the highest F1, as the trainer picks it
                info["best_epoch"] = 1 + max(scored, key=lambda i: f1s[i])
        elif c.get("select_by") == "last" and info.get("epochs"):  # no choice: the last epoch's model
            info["best_epoch"] = info["epochs"]
    train_stats = exp_dir / "train_data.json"
    if train_stats.is_file():
        info["train_words"] = _read_json(train_stats).get("words")
    elif info.get("cmd"):  # the training data directory's own statistics (prepare.py writes stats.json)
        m = re.search(r"--train (\S+)", info["cmd"])
        stats = Path(m.group(1)) / "stats.json" if m else None
        if stats is not None and stats.is_file():
            info["train_words"] = _read_json(stats).get("words")
            info["train_set"] = m.group(1)
    _add_warm_start_words(exp_dir, info)
    return info


def _add_warm_start_words(exp_dir: Path, info: dict[str, Any]) -> None:
    """A warm start (init_from a model of the same kind) on another training set learnt from
    both texts: its "train words" are the source model's and, when it trained any epoch past
    the start, its own set's too. A run that trained no epoch has the source's words alone."""
    c = info.get("config") or {}
    src = Path(str(c.get("init_from") or ""))
    if (not c.get("init_from") or src.name != "best.pt" or not (src.parent / "config.yaml").is_file()
            or src.parent.resolve() == exp_dir.resolve()):
        return
    source = _train_info(src.parent)
    if source.get("model") != info.get("model") or not source.get("train_words"):
        return  # a two-stage model's stage one, not a warm start
    done = exp_dir / "train_done.json"
    start = _read_json(done).get("warm_start", {}).get("epoch") if done.is_file() else None
    if start is None:  # runs before train_done.json recorded it: the source's best.pt epoch
        sdone = src.parent / "train_done.json"
        if not sdone.is_file():
            return
        d = _read_json(sdone)
        start = max(d.get("averaged_epochs") or [d.get("best_epoch") or 0])
    own = info.get("train_words") if info.get("train_set") != source.get("train_set") else 0
    trained = (info.get("epochs") or 0) > start
    info["train_words"] = source["train_words"] + ((own or 0) if trained else 0)


def _stopped(exp_dir: Path) -> str | None:
    """Why training ended ("patience", "max_epochs", "estimated"), or None while it goes on:
    from train_done.json, or for runs older than that file from the end line of the log."""
    done = exp_dir / "train_done.json"
    if done.is_file():
        return _read_json(done).get("stopped")
    log_file = exp_dir / "log" / "train.log"
    if log_file.is_file():
        text = log_file.read_text(encoding="utf-8", errors="replace")
        m = re.findall(r"training stopped \((\w+)\)|(estimated) \w+ on \d+ words", text)
        if m:
            return m[-1][0] or m[-1][1]
    return None


def collect(exp_root: Path) -> list[dict[str, Any]]:
    """One row per scored decode: corpus, model dir, test set, report, training info."""
    rows = []
    trained: dict[Path, dict[str, Any]] = {}  # one experiment's training info, shared by its test sets
    for report_path in sorted(exp_root.glob("*/*/decode_*/scoring/report.json")):
        decode_dir = report_path.parent.parent
        exp_dir = decode_dir.parent
        corpus = exp_dir.parent.name
        report = _read_json(report_path)
        stats = {}
        if (decode_dir / "decode_stats.json").is_file():
            stats = _read_json(decode_dir / "decode_stats.json")
        if exp_dir not in trained:
            trained[exp_dir] = _train_info(exp_dir)
        rows.append(
            {
                "corpus": corpus,
                "exp": exp_dir.name,
                "exp_dir": str(exp_dir),
                "set": decode_dir.name[len("decode_"):],
                "report": report,
                "decode": stats,
                "train": trained[exp_dir],
            }
        )
    return rows


@functools.lru_cache(maxsize=None)  # read once per corpus and name, not once per row
def corpus_var(corpus: str, name: str, recipes: Path | None = None) -> str | None:
    """The value that ``recipes/<corpus>/corpus.sh`` assigns to the shell variable ``name``
    on a line of its own (``name="..."``), or None."""
    path = (recipes or ROOT / "recipes") / corpus / "corpus.sh"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    m = re.search(rf'^{re.escape(name)}="?([^"]*?)"?\s*$', text, re.M)
    return m.group(1) if m else None


def corpus_sets(corpus: str, recipes: Path | None = None) -> tuple[str | None, tuple[str, ...]]:
    """The validation set and the test sets that ``recipes/<corpus>/corpus.sh`` assigns
    (``valid_set="..."``, ``test_sets="..."``); None and () for what it does not assign."""
    valid, tests = corpus_var(corpus, "valid_set", recipes), corpus_var(corpus, "test_sets", recipes)
    return (valid.split()[0] if valid and valid.split() else None), (tuple(tests.split()) if tests else ())


def paper_set(corpus: str, recipes: Path | None = None) -> str | None:
    """The test set whose rows stand beside the papers' published numbers, with the targets
    table: ``paper_targets="..."`` in the corpus's recipe (recipes/iwslt2011: test2011). A
    corpus that tests on the same set for another purpose (the quick smoke test, a diagnostic
    trained on other text) does not set it."""
    return corpus_var(corpus, "paper_targets", recipes) or None


def _row_cmd(row: dict) -> str:
    cmd = row["train"].get("run.cmd")
    if cmd:
        # the run.sh call that trained this model, extended to decoding and scoring, and to
        # a set that is not one of the corpus's test sets (run.sh --decode-sets)
        cmd = cmd.replace("--stop-stage 6", "--stop-stage 9")
        tests = corpus_sets(row["corpus"])[1]
        if " --models " in cmd and " --stage " in cmd and "--decode-sets" not in cmd and tests and row["set"] not in tests:
            cmd = cmd.replace(" --stage ", f" --decode-sets {row['set']} --stage ", 1)
        return cmd
    return f"python -m punct score data/{row['corpus']}/{row['set']} {row['exp_dir']}/decode_{row['set']}"


def render(rows: list[dict[str, Any]]) -> str:
    """The corpus tables of RESULTS.md (with their notes and targets) from ROWS."""
    out = [
        "# Results",
        "",
        "Generated by `python -m punct.bin.results --exp exp --out RESULTS.md` (stage 10 of `run.sh`)",
        "from the experiment directories and the ledger of earlier runs, `RESULTS.json`; do not edit by hand.",
        "P, R, F1, SER and Err in percent;",
        "overall scores are micro-averaged over comma, period and question mark.",
        f"Machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}.",
        "",
    ]
    if not rows:
        out.append("No scored experiments under exp/ yet.")
        return "\n".join(out) + "\n"
    if any(r.get("carried") for r in rows):
        out += [f"Rows marked {CARRIED} come from the ledger `RESULTS.json`: runs measured earlier whose experiment",
                "directories are not under exp/ on the machine that wrote this file. The command beside each",
                "row reproduces it.", ""]
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["corpus"], []).append(r)
    for corpus, rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: (r["set"], r["exp"]))
        out += [f"## {corpus}", ""]
        notes = ROOT / "recipes" / corpus / "results_notes.md"
        if notes.is_file():  # the recipe's own reading guide for its table
            out += [notes.read_text(encoding="utf-8").strip(), ""]
        valid_set, _ = corpus_sets(corpus)
        tested = [r for r in rs if r["set"] != valid_set]
        validated = [r for r in rs if r["set"] == valid_set]
        if tested:
            papers = paper_set(corpus)
            out += _score_table(tested, papers) + (render_targets(tested, papers) if papers else [])
        if validated:
            out += [f"### {corpus}: {valid_set} decoded whole (the validation set)", "",
                    f"{valid_set} is the set the models were selected on (the epoch, the averaged epochs) and the "
                    "tuned ensembles tuned their weights and decision bias on, so these rows are not test scores. They "
                    "compare models on more words than the test set has. Decoded like a test set (whole utterances, "
                    "not the training's slices) by `./run.sh ... --decode-sets " + valid_set + " --stage 8 --stop-stage 9`.",
                    ""]
            out += _score_table(validated)
    return "\n".join(out) + "\n"


def _score_table(rs: list[dict[str, Any]], papers: str | None = None) -> list[str]:
    """One score table (rows of one corpus), with the published rows beside the paper's models
    on the set ``papers`` (the corpus's ``paper_targets``) and the list of the commands that
    reproduce each row."""
    out: list[str] = []
    asr = any(_get(r["report"], "wer") is not None for r in rs)
    head = ["system", "test set", "train words"]
    for c in MARK_LABELS:
        head += [f"{c[:5]} P", f"{c[:5]} R", f"{c[:5]} F1"]
    head += ["P", "R", "F1", "SER", "Err", "2-class F1", "sent. F1"]
    if asr:
        head += ["WER", "marks carried", "marks moved", "marks dropped"]
    head += ["epochs", "train h", "decode w/s"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    cmds = []
    published_done: set[str] = set()
    for i, r in enumerate(rs, 1):
        rep, tr = r["report"], r["train"]
        mark = f" {CARRIED}" if r.get("carried") else ""
        cells = [f"{r['exp']}{mark} [{i}]", r["set"], _fmt(tr.get("train_words"), 0)]
        for c in MARK_LABELS:
            d = _class(rep, c)
            cells += [_fmt(d.get("precision")), _fmt(d.get("recall")), _fmt(d.get("f1"))]
        o = _class(rep, "OVERALL")
        cells += [_fmt(o.get("precision")), _fmt(o.get("recall")), _fmt(o.get("f1"))]
        cells += [_fmt(rep.get("ser")), _fmt(rep.get("err"))]
        cells += [_fmt(_get(rep, "boundary", "f1")), _fmt(_get(rep, "sentence", "f1"))]
        if asr:
            t = rep.get("transfer") or {}
            cells += [_fmt(rep.get("wer")), _fmt(t.get("carried"), 0), _fmt(t.get("moved"), 0), _fmt(t.get("dropped"), 0)]
        epochs = _fmt(tr.get("epochs"), 0)
        notes = []
        if tr.get("members"):  # one member: that model with its own decision bias
            epochs = " + ".join(tr["members"]) if len(tr["members"]) == 1 else "ensemble of " + " + ".join(tr["members"])
            bias = r["decode"].get("bias")
            if isinstance(bias, dict):
                notes.append("bias " + " ".join(f"{mark_of(k)} {v:+g}" for k, v in bias.items() if k in MARK_LABELS))
        decoded = r["decode"].get("model_epoch")
        averaged = r["decode"].get("model_averaged_epochs")
        if averaged:
            notes.append("average of the models of epochs " + ", ".join(map(str, averaged)))
        elif decoded and tr.get("epochs", 0) > 1:
            notes.append(f"model of epoch {decoded}")  # the checkpoint this row was decoded with
        elif tr.get("best_epoch") and tr.get("epochs", 0) > 1:
            notes.append(f"best {tr['best_epoch']}")
        if tr.get("epochs") and not tr.get("stopped") and tr.get("model") not in ACOUSTIC_ONLY:
            notes.append("still training")  # no end of training recorded: stopped by hand or going on
        elif tr.get("stopped") == "by hand":  # train_done.json written when a run was abandoned
            notes.append("stopped by hand")
        if notes:
            epochs += f" ({', '.join(notes)})"
        cells += [epochs, _fmt(tr.get("train_hours"), 2), _fmt(r["decode"].get("words_per_s"), 0)]
        out.append("| " + " | ".join(cells) + " |")
        cmds.append(f"[{i}] `{_row_cmd(r)}`")
        model = tr.get("model")
        if papers and r["set"] == papers and model in PUBLISHED and model not in published_done:
            published_done.add(model)
            for pub in PUBLISHED[model]:
                pc = [pub["system"], papers, "2.1M"]
                for c in MARK_LABELS:
                    pc += [_fmt(x) for x in (pub.get("classes") or {}).get(c, (None, None, None))]
                pc += [_fmt(pub.get("p")), _fmt(pub.get("r")), _fmt(pub.get("f1")), _fmt(pub.get("ser")), "-", "-", "-"]
                pc += ["-"] * ((4 if asr else 0) + 3)
                out.append("| " + " | ".join(pc) + " |")
    out += ["", "Commands that reproduce each row:", ""] + [f"- {c}" for c in cmds] + [""]
    return out


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
           "percentile interval of 2,000 bootstrap resamples of its scored slots (`punct.significance`;",
           "`punct score REF HYP --bootstrap 1000` resamples blocks of 100 words and gives the same to 0.1",
           "on test2011). A published number inside it is within what one test set can tell apart.", "",
           "| paper's model | published F1 | needed | best row, same budget | gap | met | 95% interval | "
           "best row, more text |",
           "|---|---|---|---|---|---|---|---|"]
    def interval(r: dict[str, Any], published: float) -> str:
        from punct.significance import report_intervals

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


def render_ablations(rows: list[dict[str, Any]], recipes: Path = ROOT / "recipes") -> list[str]:
    """The comparison tables a recipe declares in ``recipes/<corpus>/results_ablation.tsv``:
    one line per system, ``label<TAB>experiment<TAB>test sets<TAB>role``; role ``base`` marks
    the row the rows below it (to the next base) are compared with, on the same test set (the
    F1 gain column; the label up to " (" names it). The cells
    come from the same report.json files as the corpus table; systems not run yet are left out."""
    out: list[str] = []
    by_key = {(r["corpus"], r["exp"], r["set"]): r for r in rows}
    for spec in sorted(recipes.glob("*/results_ablation.tsv")):
        corpus = spec.parent.name
        lines = []
        for n, line in enumerate(spec.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            f = line.split("\t")
            if len(f) not in (3, 4) or not f[2].split():
                raise PunctError("expected label<TAB>experiment<TAB>test sets[<TAB>base]", spec, n)
            lines.append((f[0], f[1], f[2].split(), len(f) == 4 and f[3].strip() == "base"))
        sets: list[str] = []
        for _, _, ss, _ in lines:
            sets += [x for x in ss if x not in sets]
        table, cmds = [], []
        for test_set in sets:
            base = None  # the last base row above, on this test set
            for label, e, ss, is_base in lines:
                r = by_key.get((corpus, e, test_set))
                if test_set not in ss or r is None:
                    continue
                rep = r["report"]
                f1 = _class(rep, "OVERALL").get("f1")
                base_f1 = _class(base[1]["report"], "OVERALL").get("f1") if base and not is_base else None
                # the difference of the F1 values as printed, so that the column adds up for the reader
                gain = (f"{round(f1, 1) - round(base_f1, 1) + 0.0:+.1f} ({base[0]})"
                        if f1 is not None and base_f1 is not None else "-")
                if is_base:
                    base = (label.split(" (")[0], r)
                cmds.append(f"[{len(cmds) + 1}] `{_row_cmd(r)}`")
                table.append([f"{label} [{len(cmds)}]", e, test_set] + [_fmt(_class(rep, c).get("f1")) for c in MARK_LABELS]
                             + [_fmt(_class(rep, "OVERALL").get(k)) for k in ("precision", "recall", "f1")]
                             + [gain, _fmt(rep.get("ser")), _fmt(_get(rep, "boundary", "f1")), _fmt(rep.get("wer"))])
        if table:
            out += _section(f"{corpus}: what each part adds (recipes/{corpus}/results_ablation.tsv)",
                            ["system", "experiment", "test set"] + [f"{c[:5]} F1" for c in MARK_LABELS]
                            + ["P", "R", "F1", "F1 gain", "SER", "2-class F1", "WER"], table,
                            ["F1 gain: overall F1 minus that of the system named in brackets (the base row above it, "
                             "same test set). Commands:", ""]
                            + [f"- {c}" for c in cmds])
    return out


def render_asr(exp_root: Path) -> list[str]:
    """Word error rates of the recipe's own ASR decoding (stage 3), project scorer and sclite."""
    rows = []
    for wer_path in sorted(exp_root.glob("*/asr_*/scoring/wer.json")):
        w = _read_json(wer_path)
        corpus, set_name = wer_path.parents[2].name, wer_path.parents[1].name[len("asr_"):]
        ps, sc = w.get("punct_score") or {}, w.get("sclite") or {}
        rows.append([corpus, set_name, _fmt(ps.get("ref_words"), 0), _fmt(ps.get("wer"), 2), _fmt(sc.get("wer"), 1),
                     f"`./run.sh --corpus {corpus} --stage 3 --stop-stage 3`"])
    if not rows:
        return []
    return _section("ASR decoding (stage 3: pocketsphinx en-us, whole utterances)",
                    ["corpus", "set", "reference words", "WER (punct score)", "WER (NIST sclite)", "command"], rows, [])


def _section(title: str, header: list[str], rows: list[list[Any]], notes: list[str]) -> list[str]:
    """A Markdown section: title, a table with HEADER and ROWS (cells as given), then NOTES lines."""
    lines = [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines + [""] + list(notes) + ([""] if notes else [])


def render_wer_checks(exp_root: Path) -> list[str]:
    """Word error rates of given ASR hypotheses scored twice: punct.score and NIST sclite (punct.bin.wer)."""
    rows = []
    for wer_path in sorted(exp_root.glob("*/wer_*/wer.json")):
        w = _read_json(wer_path)
        corpus, hyp = wer_path.parents[1].name, wer_path.parent.name[len("wer_"):]
        ps, sc = w.get("punct_score") or {}, w.get("sclite") or {}
        utts = w.get("utterances")
        utts = ", ".join(utts) if isinstance(utts, list) else f"all {utts}"
        cmd_file = wer_path.parent / "run.cmd"
        cmd = cmd_file.read_text(encoding="utf-8").strip() if cmd_file.is_file() else ""
        rows.append([corpus, hyp, utts, _fmt(ps.get("ref_words"), 0), _fmt(ps.get("substitutions"), 0),
                     _fmt(ps.get("deletions"), 0), _fmt(ps.get("insertions"), 0), _fmt(ps.get("wer"), 2),
                     f"{_fmt(sc.get('sub'), 1)} / {_fmt(sc.get('del'), 1)} / {_fmt(sc.get('ins'), 1)}",
                     _fmt(sc.get("wer"), 1), f"`{cmd}`"])
    if not rows:
        return []
    return _section("Word error rate cross-check: punct's alignment against NIST sclite (Debian sctk)",
                    ["corpus", "hypothesis", "utterances", "reference words", "sub", "del", "ins", "WER (punct score)",
                     "sclite sub / del / ins %", "WER (sclite)", "command"], rows, [])


def benchmark_sections(exp_root: Path) -> dict[str, list[str]]:
    """The measurements of benchmarks/*.py that were saved under exp/benchmarks/ with --json, by section key."""
    out: dict[str, list[str]] = {}
    acc = exp_root / "benchmarks" / "audio_alignment.json"
    if acc.is_file():
        a = _read_json(acc).get("alignment_accuracy") or {}
        out["alignment"] = _section("Forced alignment accuracy (speech synthesized by Festival, which reports its true word times)",
                        ["sentences", "words", "boundaries", "mean abs. error ms", "median ms", "within 20 ms",
                         "within 50 ms", "letter-to-sound words", "failed"],
                        [[a.get("sentences"), a.get("words"), a.get("boundaries"), _fmt(a.get("mean_ms")),
                          _fmt(a.get("median_ms")), f"{_fmt(100 * a.get('within_20ms', 0))}%",
                          f"{_fmt(100 * a.get('within_50ms', 0))}%", a.get("lts_words"), a.get("failed")]],
                        [f"Command: `python benchmarks/bench_audio.py --skip-speed --json {acc}`"])
    rst = exp_root / "benchmarks" / "restore_earnings21.json"
    if rst.is_file():
        d = _read_json(rst)
        m = d.get("machine") or {}
        rows = []
        for r in d.get("runs") or []:
            mk = r.get("marks") or {}
            rows.append([r.get("ctm"), r.get("audio_minutes"), r.get("words"), _fmt(r.get("wall_s"), 1), _fmt(r.get("cpu_s"), 1),
                         r.get("words_per_s"), r.get("peak_rss_mb"), mk.get(","), mk.get("."), mk.get("?"),
                         "yes" if r.get("identical_words_and_times") else "NO"])
        out["restore"] = _section("`punct restore` on a real hour-long call (Earnings-21 CTMs, default model, one process per file)",
                        ["CTM", "audio min", "words", "wall s", "CPU s", "words/s", "peak RSS MB", "commas", "periods",
                         "questions", "words and times unchanged"], rows,
                        [f"Machine: {m.get('cores')} cores ({m.get('machine')}), load average before/after "
                         f"{d.get('load_before')} / {d.get('load_after')}; wall time includes starting Python and loading "
                         "the model.", f"Command: `{d.get('command')}`"])
    for key, name, title in (
            ("models_speed", "models_speed.json", "Training and decoding speed of every model config"),
            ("models_precision", "models_speed_precision.json",
             "Training speed in fp32 and bf16, TrainConfig precision; decoding is fp32 in both")):
        mdl = exp_root / "benchmarks" / name
        if mdl.is_file():
            out[key] = _models_speed_section(_read_json(mdl), title)
    npr = exp_root / "benchmarks" / "train_nproc.json"
    if npr.is_file():
        d = _read_json(npr)
        out["train_nproc"] = _section(f"Using the cores in one training ({d.get('config')}, one epoch of the first "
                        f"{d.get('train_words'):,} training words)",
                        ["layout", "words/s", "epoch s", "speed-up", "valid ppl"],
                        [[r.get("layout"), _fmt(r.get("words_per_s"), 0), _fmt(r.get("epoch_s"), 1),
                          _fmt(r.get("speedup"), 2), _fmt(r.get("valid_ppl"), 4)] for r in d.get("rows") or []],
                        [f"Machine: {d.get('cores')} cores; load average before/after {d.get('load_before')} / "
                         f"{d.get('load_after')}. The processes layout is `./run.sh --train-nproc N`; its update "
                         "equals the one-process update, hence the same perplexity.", f"Command: `{d.get('command')}`"])
    opt = exp_root / "benchmarks" / "optimizer_step.json"
    if opt.is_file():
        d = _read_json(opt)
        out["optimizer_step"] = _section(
            f"Optimizer step, torch's fused CPU kernel against foreach (TrainConfig fused_optimizer; {d.get('threads')} "
            f"thread{'' if d.get('threads') == 1 else 's'})",
            ["config:vocabulary", "optimizer", "parameters", "step ms foreach", "step ms fused", "step speed-up",
             "training step ms foreach", "training step ms fused", "training speed-up"],
            [[f"`{r.get('case')}`", r.get("optimizer"), f"{r.get('params'):,}", _fmt(r.get("foreach_step_ms"), 1),
              _fmt(r.get("fused_step_ms"), 1), _fmt(r.get("step_speedup"), 1), _fmt(r.get("foreach_train_step_ms"), 0),
              _fmt(r.get("fused_train_step_ms"), 0), _fmt(r.get("train_step_speedup"), 2)] for r in d.get("rows") or []],
            [f"Machine: {d.get('cores')} cores, torch {d.get('torch')}; load average before/after {d.get('load_before')} / "
             f"{d.get('load_after')} (near 2 or above: other jobs shared the cores; both implementations ran "
             "alternately under the same load). A training step is the forward, backward, clipping and optimizer step of one "
             "random batch of the config's size; the two implementations end at the same weights to float rounding.",
             f"Command: `{d.get('command')}`"])
    spd = exp_root / "benchmarks" / "audio_speed.json"
    if spd.is_file():
        d = _read_json(spd)
        speed = d.get("speed") or []
        if speed:
            out["audio_speed"] = _section("Speed of the audio stages (real-time factor: wall-clock / audio duration)",
                            ["--nj", "alignment", "decoding", "pitch + energy features"],
                            [[r.get("nj"), _fmt(r.get("align_rtf"), 3), _fmt(r.get("decode_rtf"), 3),
                              _fmt(r.get("features_rtf"), 3)] for r in speed],
                            [f"Load average of the machine before/after: {d.get('load_before')} / {d.get('load_after')} "
                             "(other jobs slow these numbers down).",
                             f"Command: `python benchmarks/bench_audio.py --skip-accuracy --clips {speed[0].get('clips', 30)} "
                             f"--nj {' '.join(str(r.get('nj')) for r in speed)} --json {spd}` "
                             f"(LJ Speech, {_fmt(speed[0].get('audio_s'), 0)} s of audio)"])
    return out


def _models_speed_section(d: dict[str, Any], title: str) -> list[str]:
    """A table of benchmarks/bench_models.py's JSON: speed per config (and precision)."""
    rows = d.get("rows") or []
    ew = d.get("epoch_words") or 2100000
    return _section(f"{title} (synthetic English-like text, {d.get('threads')} threads)",
                    ["config", "model", "parameters", "train words/s", "decode words/s",
                     f"hours per {ew / 1e6:.1f}M-word epoch"],
                    [[str(r.get("config")) + (f" ({r['precision']})" if r.get("precision", "fp32") != "fp32" else ""),
                      r.get("model"), f"{r.get('params', 0):,}", _fmt(r.get("train_wps"), 0),
                      _fmt(r.get("decode_wps"), 0), _fmt(r.get("epoch_hours"), 2)] for r in rows],
                    [f"Machine: {d.get('cores')} cores; load average before/after {d.get('load_before')} / "
                     f"{d.get('load_after')} (other jobs slow these numbers down).", f"Command: `{d.get('command')}`"])


def data_sections(data_root: Path) -> dict[str, list[str]]:
    """Label statistics of every prepared data directory that has them (``stats.json`` with
    ``words`` and ``labels``), one section per corpus (key ``data:<corpus>``): how often each mark
    follows a word and the mean sentence length, which differ between training text and test sets."""
    out: dict[str, list[str]] = {}
    for corpus_dir in sorted(p for p in data_root.glob("*") if p.is_dir()):
        rows = []
        for stats_path in sorted(corpus_dir.glob("*/stats.json")):
            st = _read_json(stats_path)
            labels, words = st.get("labels"), st.get("words")
            if not isinstance(labels, dict) or not words:
                continue
            ends = sum(labels.get(c, 0) for c in SENTENCE_END)
            ov = st.get("heldout_overlap") if isinstance(st.get("heldout_overlap"), dict) else {}
            seen = ", ".join(f"{k} {_fmt(v.get('shared_pct'), 2)}% ({v.get('utterances_seen', 0)} of "
                             f"{v.get('utterances', 0)} seen)" for k, v in sorted(ov.items()) if isinstance(v, dict))
            rows.append([stats_path.parent.name, f"{words:,}"] + [_fmt(100 * labels.get(c, 0) / words, 2) for c in MARK_LABELS]
                        + [_fmt(words / ends if ends else None, 1), seen or "-"])
        if rows:
            out[f"data:{corpus_dir.name}"] = _section(
                f"{corpus_dir.name}: the prepared data sets", ["set", "words"] + [f"{c} %" for c in MARK_LABELS]
                + ["words per sentence", "held-out text in it"], rows,
                ["Marks per 100 words; a sentence ends at a PERIOD or QUESTION. \"held-out text in it\" (training "
                 "sets): the share of each benchmark set's distinct 12-word n-grams that the training text also has, "
                 "and how many of its utterances have more than half of theirs there (a test talk in the training "
                 "text); punct.overlap. "
                 f"Command: `./run.sh --corpus {corpus_dir.name} --stage 1 --stop-stage 1` (writes `data/{corpus_dir.name}/<set>/stats.json`)"])
    return out


def render_sections(exp_root: Path, data_root: Path | None = None) -> dict[str, list[str]]:
    """Every section after the corpus and ablation tables that exp/ (and data/) has the files for, by key."""
    secs = data_sections(data_root) if data_root is not None and data_root.is_dir() else {}
    secs.update({"asr": render_asr(exp_root), "wer_checks": render_wer_checks(exp_root)})
    secs.update(benchmark_sections(exp_root))
    return {k: v for k, v in secs.items() if v}


#: marks a row or section carried over from the ledger (its files are not under --exp)
CARRIED = "†"
#: the sections after the corpus tables, in the order they are written
SECTION_ORDER = ("asr", "wer_checks", "alignment", "restore", "models_speed", "models_precision", "train_nproc",
                 "optimizer_step", "audio_speed")
LEDGER_FORMAT = 1
#: sections with one row per corpus and set: merged row by row with the ledger (key: the first
#: N cells), so that rerunning one corpus's stage does not drop the other corpora's rows
ROW_MERGED_SECTIONS = {"asr": 2, "wer_checks": 2}
#: what the tables read of a row: kept in the ledger, the rest (confusion matrices, counts) is not
_LEDGER_KEYS = {
    "report": ("classes", "per_class", "overall", "ser", "err", "boundary", "sentence", "wer", "transfer"),
    "decode": ("words_per_s", "model_epoch", "model_averaged_epochs", "bias"),
    "train": ("epochs", "best_epoch", "train_hours", "train_wps", "stopped", "run.cmd", "cmd", "model", "train_words",
              "members", "model_args"),
}


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return row["corpus"], row["exp"], row["set"]


def ledger_row(row: dict[str, Any]) -> dict[str, Any]:
    """The part of a collected row that the tables need, as stored in the ledger."""
    out: dict[str, Any] = {k: row[k] for k in ("corpus", "exp", "exp_dir", "set")}
    for part, keys in _LEDGER_KEYS.items():
        src = row.get(part) or {}
        out[part] = {k: src[k] for k in keys if k in src}
    return out


def load_ledger(path: Path | None) -> dict[str, Any]:
    """The ledger at PATH ({format, rows, sections}); an empty one when there is no file."""
    empty: dict[str, Any] = {"format": LEDGER_FORMAT, "rows": [], "sections": {}}
    if path is None or not path.is_file():
        return empty
    d = _read_json(path)
    if not isinstance(d, dict) or d.get("format") != LEDGER_FORMAT or not isinstance(d.get("rows"), list) \
            or not isinstance(d.get("sections"), dict):
        raise PunctError(f"not a results ledger (expected an object with format {LEDGER_FORMAT}, rows and sections)",
                         path)
    for i, r in enumerate(d["rows"], 1):
        missing = [k for k in ("corpus", "exp", "set", "report") if not isinstance(r, dict) or k not in r]
        if missing:
            raise PunctError(f"ledger row {i} has no {', '.join(missing)}", path)
        r.setdefault("train", {})
        r.setdefault("decode", {})
        r.setdefault("exp_dir", f"exp/{r['corpus']}/{r['exp']}")
    for k, lines in d["sections"].items():
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise PunctError(f"ledger section {k!r} is not a list of lines", path)
    return d


def _table_body(lines: list[str]) -> tuple[int, int]:
    """Start and end (exclusive) of the first Markdown table's body rows in LINES; (0, 0) if none."""
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            j = i + 1
            while j < len(lines) and lines[j].startswith("| "):
                j += 1
            return i + 1, j
    return 0, 0


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def merge_section_rows(fresh: list[str], old: list[str], nkey: int) -> tuple[list[str], list[str]]:
    """FRESH section lines plus the table rows of OLD whose first NKEY cells FRESH lacks.

    Returns (the lines to write, with carried rows marked and a note; the lines to keep in the
    ledger, unmarked)."""
    a, b = _table_body(fresh)
    c, d = _table_body(old)
    if a == b == 0 or c == d == 0:
        return fresh, fresh
    have = {tuple(_cells(x)[:nkey]) for x in fresh[a:b]}
    carried = [x for x in old[c:d] if tuple(_cells(x)[:nkey]) not in have]
    if not carried:
        return fresh, fresh
    body = sorted([(x, False) for x in fresh[a:b]] + [(x, True) for x in carried], key=lambda t: _cells(t[0])[:nkey])
    keep = fresh[:a] + [x for x, _ in body] + fresh[b:]
    shown = fresh[:a] + [("| " + CARRIED + " " + x[2:]) if was else x for x, was in body] + fresh[b:]
    note = (f"Rows marked {CARRIED} come from the ledger `RESULTS.json`: measured earlier; their files are not "
            "under exp/ on the machine that wrote this file.")
    return shown[:1] + ["", note] + shown[1:], keep


def merge_ledger(rows: list[dict[str, Any]], sections: dict[str, list[str]], ledger: dict[str, Any]
                 ) -> tuple[list[dict[str, Any]], dict[str, list[str]], dict[str, Any]]:
    """Fresh ROWS and SECTIONS plus the ledger's rows and sections that exp/ no longer has (marked
    carried), and the new ledger that holds them all."""
    have = {_key(r) for r in rows}
    all_rows = rows + [dict(r, carried=True) for r in ledger["rows"] if _key(r) not in have]
    sections, kept = dict(sections), dict(sections)
    for k, nkey in ROW_MERGED_SECTIONS.items():
        if k in sections and k in ledger["sections"]:
            sections[k], kept[k] = merge_section_rows(sections[k], ledger["sections"][k], nkey)
    new_ledger = {"format": LEDGER_FORMAT,
                  "rows": sorted((ledger_row(r) for r in all_rows), key=_key),
                  "sections": {**ledger["sections"], **kept}}
    data = sorted(k for k in new_ledger["sections"] if k.startswith("data:"))
    order = data + list(SECTION_ORDER) + sorted(k for k in new_ledger["sections"] if k not in SECTION_ORDER and k not in data)
    out_sections: dict[str, list[str]] = {}
    for k in order:
        if k in sections:
            out_sections[k] = sections[k]
        elif k in ledger["sections"]:
            lines = ledger["sections"][k]
            out_sections[k] = lines[:1] + ["", f"{CARRIED} From the ledger `RESULTS.json`: measured earlier; its files "
                                           "are not under exp/ on the machine that wrote this file."] + lines[1:]
    return all_rows, out_sections, new_ledger


#: where the figures of RESULTS.md go, beside it
FIGURES_DIR = Path("docs") / "figures"


def render_figures(rows: list[dict[str, Any]], fig_dir: Path, base: Path) -> list[str]:
    """Draw the figures of ``rows`` (punct.figures) into ``fig_dir`` and return the Markdown
    section that shows them (paths relative to ``base``); nothing without matplotlib."""
    import importlib.util
    import logging

    if importlib.util.find_spec("matplotlib") is None:
        logging.getLogger(__name__).warning("matplotlib is not installed: RESULTS.md without its figures")
        return []
    from punct.figures import FIGURES, draw_all

    paths = draw_all(rows, fig_dir)
    if not paths:
        return []
    out = ["", "## Figures", "",
           "Drawn from the rows above by `python -m punct.bin.results` (punct/figures.py); training time is the sum "
           "of the epochs' times in `train_log.tsv` on the machine that trained (2 cores).", ""]
    for p in paths:
        out += [f"![{FIGURES[p.name]}]({p.relative_to(base).as_posix()})", ""]
    return out


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
