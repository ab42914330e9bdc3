"""Collecting what RESULTS.md reports: one row per scored decode under exp/ (with its
training's information), the corpus's sets from its experiments.yaml, and the ledger
(RESULTS.json) that carries rows and sections whose files are gone."""
from __future__ import annotations

import csv
import functools
import json
import math
import re
from pathlib import Path
from typing import Any, Sequence

from punct.errors import PunctError

#: the repository: recipes/<corpus>/results_notes.md is printed under its corpus table
ROOT = Path(__file__).resolve().parents[2]


def _get(d: dict, *path: str, default: Any = None) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return default
        d = d[p]
    return d


def set_wers(rows: Sequence[dict[str, Any]]) -> dict[tuple[str, str], float]:
    """{(corpus, set): the largest WER a row of the set reports}, over the rows with a WER above 0."""
    out: dict[tuple[str, str], float] = {}
    for r in rows:
        wer = _get(r.get("report") or {}, "wer")
        if wer:
            key = (r.get("corpus"), r.get("set"))
            out[key] = max(float(wer), out.get(key, 0.0))
    return out


def row_wer(r: dict[str, Any], wers: dict[tuple[str, str], float]) -> float | None:
    """The recognizer's WER of row ``r``: its report's, except that a report of 0 or none on a
    set whose other rows give a WER (``set_wers``) takes theirs. A recognizer's output scored
    against its own transferred marks (punct restore's datadir output; ``SET_words``, the set
    without its times) reports 0 for its words, not the recognizer's error rate."""
    wer = _get(r.get("report") or {}, "wer")
    if not wer:
        name = str(r.get("set", ""))
        for key in ((r.get("corpus"), name), (r.get("corpus"), name.removesuffix("_words"))):
            if key in wers:
                return wers[key]
    return wer


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
        if (decode_dir / "run.cmd").is_file():  # a decode made by its own command (another corpus's set, by punct restore)
            stats = dict(stats, **{"run.cmd": (decode_dir / "run.cmd").read_text(encoding="utf-8").strip()})
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


@functools.lru_cache(maxsize=None)  # read once per corpus, not once per row
def _recipe(corpus: str, recipes: Path | None = None) -> Any:
    from punct.experiments import load_corpus

    return load_corpus(corpus, recipes)


def corpus_sets(corpus: str, recipes: Path | None = None) -> tuple[str | None, tuple[str, ...]]:
    """The validation set and the test sets of ``recipes/<corpus>/experiments.yaml``; None and
    () for a corpus without one."""
    recipe = _recipe(corpus, recipes)
    return (recipe.sets.valid, recipe.sets.test) if recipe is not None else (None, ())


def set_dir(corpus: str, set_name: str, recipes: Path | None = None) -> str:
    """The data directory a row of CORPUS on SET_NAME was scored against, for its command: the
    corpus's own when its recipe names the set (validation or test), else that of the first
    corpus whose recipe does (an earnings student scored on iwslt2011's test2011), else
    data/CORPUS/SET_NAME."""
    own = corpus_sets(corpus, recipes)
    if set_name == own[0] or set_name in own[1]:
        return f"data/{corpus}/{set_name}"
    for path in sorted((recipes or ROOT / "recipes").glob("*/experiments.yaml")):
        valid, tests = corpus_sets(path.parent.name, recipes)
        if set_name == valid or set_name in tests:
            return f"data/{path.parent.name}/{set_name}"
    return f"data/{corpus}/{set_name}"


def paper_set(corpus: str, recipes: Path | None = None) -> str | None:
    """The test set whose rows stand beside the papers' published numbers, with the targets
    table: ``paper_targets`` of the corpus's experiments.yaml (recipes/iwslt2011: test2011). A
    corpus that tests on the same set for another purpose (the quick smoke test, a diagnostic
    trained on other text) does not set it."""
    recipe = _recipe(corpus, recipes)
    return recipe.paper_targets if recipe is not None else None


#: marks a row or section carried over from the ledger (its files are not under --exp)
CARRIED = "†"


#: the sections after the corpus tables, in the order they are written
SECTION_ORDER = ("asr", "wer_checks", "alignment", "restore", "models_speed", "models_precision", "train_nproc",
                 "optimizer_step", "audio_speed", "score_align", "restore_runtimes", "pitch_trackers", "live",
                 "feeder")


LEDGER_FORMAT = 1


#: sections with one row per corpus and set: merged row by row with the ledger (key: the first
#: N cells), so that rerunning one corpus's stage does not drop the other corpora's rows
ROW_MERGED_SECTIONS = {"asr": 2, "wer_checks": 2, "score_align": 1}


#: what the tables read of a row: kept in the ledger, the rest (confusion matrices, counts) is not
_LEDGER_KEYS = {
    "report": ("classes", "per_class", "overall", "ser", "err", "boundary", "sentence", "wer", "transfer"),
    "decode": ("words_per_s", "model_epoch", "model_averaged_epochs", "bias", "run.cmd", "data"),
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
