"""A corpus's experiments as data: ``recipes/<corpus>/experiments.yaml`` loaded and checked
into dataclasses. run.sh's stages 6-9 iterate over them (punct.bin.experiments) and
punct.results reads the corpus's sets from them, so an experiment is declared once.

The file holds the corpus's sets, the test set its rows stand beside the papers on, and one
entry per experiment: a model trained from a config (stage 6, or stage 7 for the models that
read pause or prosody features), an ensemble of trained experiments, a joint decision of a
lexical and an acoustic model, or a corpus hook (a shell function of its corpus.sh). Every
problem is a one-line PunctError naming the file, the line and the key.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from punct.errors import PunctError

#: the repository: recipes/<corpus>/experiments.yaml and the configs it names are under it
ROOT = Path(__file__).resolve().parents[1]
FILE_NAME = "experiments.yaml"

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_TOP_KEYS = {"sets", "paper_targets", "experiments"}
_SET_KEYS = {"train", "valid", "test", "reference"}
_ENTRY_KEYS = {"stage", "config", "train", "valid", "overrides", "warm_start", "warm_start_missing", "test", "state",
               "ensemble", "weights", "bias", "joint", "hook", "needs"}
#: what each kind of entry may hold besides ``stage``
_KIND_KEYS = {
    "train": {"config", "train", "valid", "overrides", "warm_start", "warm_start_missing", "test", "state"},
    "ensemble": {"ensemble", "weights", "bias"},
    "joint": {"joint", "test"},
    "hook": {"hook", "needs"},
}


@dataclass(frozen=True)
class Sets:
    """The prepared sets of a corpus: training sets, the validation set, the test sets that
    stages 8 and 9 decode and score, and the set every test set is scored against when the
    test sets are ASR hypotheses of one reference (None: each set against itself)."""

    train: tuple[str, ...]
    valid: str
    test: tuple[str, ...]
    reference: str | None = None


@dataclass(frozen=True)
class Experiment:
    """One entry. ``kind`` is train, ensemble, joint or hook; ``stage`` 6 (lexical models,
    ensembles: decoded and scored by stages 8 and 9; hooks that a later model needs, such as
    a teacher's posteriors) or 7 (models with acoustic features, joint decisions and hooks,
    trained, decoded and scored on ``test`` within stage 7)."""

    name: str
    kind: str
    stage: int
    config: str | None = None
    train: str | None = None
    valid: str | None = None
    overrides: tuple[tuple[str, str], ...] = ()
    #: the experiment whose best.pt this one starts from (a warm start, or a two-stage
    #: model's stage one); ``CORPUS/NAME`` names another corpus's experiment directory,
    #: ``models/FILE.pt`` a model shipped in the repository (a two-stage one: its stage one)
    warm_start: str | None = None
    #: "skip": leave this experiment out while the warm start's best.pt is missing
    warm_start_missing: str = "error"
    test: tuple[str, ...] = ()
    members: tuple[str, ...] = ()
    weights: str | tuple[float, ...] | None = None
    bias: str | tuple[float, ...] | None = None
    lexical: str | None = None
    acoustic: str | None = None
    hook: str | None = None
    needs: tuple[str, ...] = ()
    #: a state file in the repository (punct.engine.carry) that the training resumes from and
    #: writes back: a run longer than a machine's life, carried in git
    state: str | None = None

    def override_words(self) -> list[str]:
        """The overrides as the trainer's KEY=VALUE arguments."""
        return [f"{k}={v}" for k, v in self.overrides]


@dataclass(frozen=True)
class Recipe:
    """A corpus's experiments.yaml, resolved."""

    corpus: str
    path: Path
    sets: Sets
    experiments: tuple[Experiment, ...]
    paper_targets: str | None = None
    names: tuple[str, ...] = field(default=())

    def get(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise KeyError(name)

    def selected(self, models: list[str] | None = None) -> list[Experiment]:
        """The experiments that ``run.sh --models`` names (all without MODELS); a joint
        decision goes with its acoustic model. An unknown name is an error listing the known."""
        if not models:
            return list(self.experiments)
        unknown = [m for m in models if m not in self.names]
        if unknown:
            raise PunctError(f"--models: {self.path} has no experiment '{unknown[0]}' (it has: {' '.join(self.names)})")
        want = set(models)
        return [e for e in self.experiments if e.name in want or (e.kind == "joint" and e.acoustic in want)]


def _lines(path: Path, text: str) -> dict[tuple[str, ...], int]:
    """The line of every mapping key of TEXT, by its key path (for the errors)."""
    import yaml

    out: dict[tuple[str, ...], int] = {}

    def walk(node: Any, at: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for k, v in node.value:
                key = at + (str(k.value),)
                if key in seen:  # YAML would keep the last one silently
                    raise PunctError(f"{'.'.join(key)}: given twice", path, k.start_mark.line + 1)
                seen.add(key)
                out.setdefault(key, k.start_mark.line + 1)
                walk(v, key)

    try:
        walk(yaml.compose(text, Loader=yaml.SafeLoader), ())
    except yaml.YAMLError:
        pass  # the loader below reports it
    return out


class _Checker:
    def __init__(self, path: Path, lines: dict[tuple[str, ...], int]):
        self.path, self.lines = path, lines

    def fail(self, at: tuple[str, ...], message: str) -> PunctError:
        line = None
        for n in range(len(at), 0, -1):
            line = self.lines.get(at[:n])
            if line is not None:
                break
        return PunctError(f"{'.'.join(at)}: {message}" if at else message, self.path, line)

    def mapping(self, value: Any, at: tuple[str, ...], allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(at, f"expected a mapping, found {type(value).__name__}")
        for k in value:
            if k not in allowed:
                raise self.fail(at + (str(k),), f"unknown key (expected one of: {', '.join(sorted(allowed))})")
        return value

    def name(self, value: Any, at: tuple[str, ...]) -> str:
        if not isinstance(value, str) or not _NAME.match(value):
            raise self.fail(at, f"expected a name of letters, digits, '_', '.' or '-', found {value!r}")
        return value

    def names(self, value: Any, at: tuple[str, ...]) -> tuple[str, ...]:
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not value:
            raise self.fail(at, "expected a list of names")
        return tuple(self.name(v, at) for v in value)

    def numbers(self, value: Any, at: tuple[str, ...], count: int | None) -> str | tuple[float, ...]:
        if value == "tune":
            return "tune"
        if (not isinstance(value, list) or not value
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x == x for x in value)):
            raise self.fail(at, f"expected 'tune' or a list of numbers, found {value!r}")
        if count is not None and len(value) != count:
            raise self.fail(at, f"expected {count} numbers, found {len(value)}")
        return tuple(float(x) for x in value)


def _value_word(value: Any) -> str:
    """An override value as the trainer's command line reads it back (punct.config._scalar)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value) if not isinstance(value, float) else repr(value)


def load(path: Path, root: Path = ROOT) -> Recipe:
    """The experiments of the file at PATH (recipes/<corpus>/experiments.yaml), checked: config
    files exist under ROOT, warm starts and members name earlier experiments, every key is known."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise PunctError("no experiments file", path)
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise PunctError(f"invalid YAML: {getattr(e, 'problem', None) or e}", path,
                         mark.line + 1 if mark else None) from None
    c = _Checker(path, _lines(path, text))
    data = c.mapping(data if data is not None else {}, (), _TOP_KEYS)
    for key in ("sets", "experiments"):
        if key not in data:
            raise c.fail((key,), "missing")
    s = c.mapping(data["sets"], ("sets",), _SET_KEYS)
    for key in ("train", "valid", "test"):
        if key not in s:
            raise c.fail(("sets", key), "missing")
    sets = Sets(train=c.names(s["train"], ("sets", "train")), valid=c.name(s["valid"], ("sets", "valid")),
                test=c.names(s["test"], ("sets", "test")),
                reference=c.name(s["reference"], ("sets", "reference")) if s.get("reference") is not None else None)
    paper = data.get("paper_targets")
    if paper is not None:
        paper = c.name(paper, ("paper_targets",))
        if paper not in sets.test:
            raise c.fail(("paper_targets",), f"{paper} is not one of sets.test ({' '.join(sets.test)})")
    entries = data["experiments"] if data["experiments"] is not None else {}
    if not isinstance(entries, dict):
        raise c.fail(("experiments",), f"expected a mapping of experiment names, found {type(entries).__name__}")
    done: dict[str, Experiment] = {}
    for raw_name, spec in entries.items():
        name = c.name(raw_name, ("experiments", str(raw_name)))
        done[name] = _entry(c, name, spec, sets, done, root)
    return Recipe(corpus=path.parent.name, path=path, sets=sets, experiments=tuple(done.values()),
                  paper_targets=paper, names=tuple(done))


def _entry(c: _Checker, name: str, spec: Any, sets: Sets, done: dict[str, Experiment], root: Path) -> Experiment:
    at = ("experiments", name)
    spec = c.mapping(spec, at, _ENTRY_KEYS)
    kinds = [k for k in ("ensemble", "joint", "hook") if k in spec] or ["train"]
    if len(kinds) > 1:
        raise c.fail(at, f"an entry is one of a trained model, ensemble, joint or hook, found {' and '.join(kinds)}")
    kind = kinds[0]
    for k in spec:
        if k not in _KIND_KEYS[kind] | {"stage"}:
            raise c.fail(at + (k,), f"not a key of a{'n' if kind == 'ensemble' else ''} {kind} entry")
    allowed = {"train": (6, 7), "ensemble": (6,), "joint": (7,), "hook": (7, 6)}[kind]
    stage = spec.get("stage", allowed[0])
    if stage not in allowed:
        raise c.fail(at + ("stage",), f"a {kind} entry belongs to stage {' or '.join(map(str, allowed))}, found {stage!r}")

    def earlier(ref: str, key: str, what: str) -> Experiment:
        if ref == name:
            raise c.fail(at + (key,), f"{what} '{ref}' is this experiment itself (a cycle)")
        if ref in done:
            return done[ref]
        raise c.fail(at + (key,), f"{what} '{ref}' is not an experiment above this one in the file")

    if kind == "ensemble":
        members = c.names(spec["ensemble"], at + ("ensemble",))
        for m in members:
            if earlier(m, "ensemble", "member").kind != "train":
                raise c.fail(at + ("ensemble",), f"member '{m}' is not a trained model")
        return Experiment(name, kind, stage, members=members,
                          weights=c.numbers(spec["weights"], at + ("weights",), len(members)) if "weights" in spec else None,
                          bias=c.numbers(spec["bias"], at + ("bias",), 3) if "bias" in spec else None)
    if kind == "joint":
        j = c.mapping(spec["joint"], at + ("joint",), {"lexical", "acoustic"})
        parts = {}
        for k in ("lexical", "acoustic"):
            if k not in j:
                raise c.fail(at + ("joint", k), "missing")
            parts[k] = c.name(j[k], at + ("joint", k))
            if earlier(parts[k], "joint", f"{k} model").kind != "train":
                raise c.fail(at + ("joint", k), f"'{parts[k]}' is not a trained model")
        return Experiment(name, kind, stage, lexical=parts["lexical"], acoustic=parts["acoustic"],
                          test=c.names(spec["test"], at + ("test",)) if "test" in spec else ())
    if kind == "hook":
        hook = spec["hook"]
        if not isinstance(hook, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", hook):
            raise c.fail(at + ("hook",), f"expected the name of a shell function of corpus.sh, found {hook!r}")
        needs = c.names(spec["needs"], at + ("needs",)) if "needs" in spec else ()
        for n in needs:
            earlier(n, "needs", "experiment")
        return Experiment(name, kind, stage, hook=hook, needs=needs)
    for key in ("config", "train"):
        if key not in spec:
            raise c.fail(at + (key,), "missing")
    config = spec["config"]
    if not isinstance(config, str) or not (root / config).is_file():
        raise c.fail(at + ("config",), f"config file {config!r} not found")
    train = c.name(spec["train"], at + ("train",))
    valid = c.name(spec.get("valid", sets.valid), at + ("valid",))
    over = spec.get("overrides") or {}
    if not isinstance(over, dict):
        raise c.fail(at + ("overrides",), f"expected a mapping of config keys, found {type(over).__name__}")
    overrides = []
    for k, v in over.items():
        word = _value_word(v)
        if not isinstance(k, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_.]*$", k) or isinstance(v, (dict, list)) \
                or re.search(r"\s", word) or k == "init_from":
            raise c.fail(at + ("overrides", str(k)), "expected a config key and a scalar value without spaces"
                         + (" (a warm start is warm_start: NAME)" if k == "init_from" else ""))
        overrides.append((k, word))
    warm = spec.get("warm_start")
    if warm is not None:
        shipped = isinstance(warm, str) and warm.startswith("models/") and warm.endswith(".pt") and ".." not in warm
        if not shipped and (not isinstance(warm, str) or not all(_NAME.match(p) for p in warm.split("/"))
                            or warm.count("/") > 1):
            raise c.fail(at + ("warm_start",), f"expected NAME, CORPUS/NAME or models/FILE.pt, found {warm!r}")
        if "/" not in warm and earlier(warm, "warm_start", "warm start").kind != "train":
            raise c.fail(at + ("warm_start",), f"'{warm}' is not a trained model")
    missing = spec.get("warm_start_missing", "error")
    if missing not in ("error", "skip") or (missing == "skip" and warm is None):
        raise c.fail(at + ("warm_start_missing",), "expected 'error' or 'skip', with a warm_start")
    test = c.names(spec["test"], at + ("test",)) if "test" in spec else ()
    if test and stage != 7:
        raise c.fail(at + ("test",), "only a stage 7 entry names its own test sets (stages 8 and 9 use sets.test)")
    state = spec.get("state")
    if state is not None and (not isinstance(state, str) or not state.startswith("models/") or ".." in state
                              or not state.endswith(".pt")):
        raise c.fail(at + ("state",), f"expected a .pt file under models/, found {state!r}")
    if state is not None and warm is not None and not warm.startswith("models/"):
        # an experiment directory's best.pt is gone with the machine, the state file is not
        raise c.fail(at + ("state",), "a run carried in a state file starts from its own file or a model under "
                                      "models/, not an experiment's warm start")
    return Experiment(name, kind, stage, config=config, train=train, valid=valid, overrides=tuple(overrides),
                      warm_start=warm, warm_start_missing=missing, test=test, state=state)


def recipe_path(corpus: str, recipes: Path | None = None) -> Path:
    """recipes/<corpus>/experiments.yaml, relative to the working directory when under it."""
    path = (recipes or ROOT / "recipes") / corpus / FILE_NAME
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def load_corpus(corpus: str, recipes: Path | None = None) -> Recipe | None:
    """The recipe of CORPUS under RECIPES (default: the repository's), None without one."""
    path = recipe_path(corpus, recipes)
    return load(path, (recipes or ROOT / "recipes").parent.resolve()) if path.is_file() else None
