"""The package's floors (docs/DESIGN.md, "Floors"): every module of punct/ imports only
from its own floor or the floors below it, and no modules import each other, directly or
round a loop. Imports inside functions count: a lazy import is still a dependency.
And the label names are spelt in punct.text.labels only (CONVENTIONS.md, "Labels")."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "punct"

#: module (or package prefix) -> floor; the longest matching prefix decides
FLOORS = {
    "punct": 6,  # the package itself: its version, and the API of punct.api re-exported lazily
    "punct.errors": 1, "punct.config": 1, "punct.fsutil": 1, "punct.audio": 1, "punct.overlap": 1,
    "punct.experiments": 1,
    # the words and their spelling (punct/text/): casing reads the sentence splitter of punct.io
    "punct.text": 1, "punct.text.casing": 2,
    # Kaldi data directories and the mark transfer (punct/data/): the tables under the rest
    "punct.data": 2, "punct.data.tables": 1,
    "punct.io": 2, "punct.prosody": 2, "punct.align": 2, "punct.models": 2,
    # scores, intervals, WER and reports (punct/scoring/), and RESULTS.md drawn from them
    "punct.scoring": 3, "punct.results": 3,
    "punct.engine": 4,
    "punct.bin": 5, "punct.restore": 5, "punct.live": 5, "punct.api": 5,
    "punct.cli": 6, "punct.__main__": 6,
}


#: the training rooms of punct.engine (docs/DESIGN.md, "Engine rooms") -> rank: a room imports
#: only rooms of a lower rank, and no other module of the engine imports one (decoding,
#: export and the runtime do not depend on training)
TRAINING_ROOMS = {
    "punct.engine.config": 0, "punct.engine.checkpoint": 0,
    "punct.engine.loss": 1, "punct.engine.optim": 1, "punct.engine.expdir": 1, "punct.engine.averaging": 1,
    "punct.engine.parallel": 2, "punct.engine.carry": 2, "punct.engine.start": 3,
    "punct.engine.validation": 3, "punct.engine.budget": 3, "punct.engine.sgd": 3,
    "punct.engine.warm_optim": 3,
    "punct.engine.train": 4,
}
#: the rooms above that decoding may use too (the config and the checkpoint files)
SHARED_ROOMS = {"punct.engine.config", "punct.engine.checkpoint"}


def floor_of(module: str) -> int | None:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        f = FLOORS.get(".".join(parts[:n]))
        if f is not None and (n > 1 or module == "punct"):
            return f
    return None


def modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for p in sorted(root.rglob("*.py")):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the punct modules it imports (a name imported from a package resolves to
    the submodule when there is one, else to the package)."""

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # ``from punct import significance`` needs the submodule, not the package
                targets = [f"{base}.{a.name}" for a in node.names]
                if any(t not in mods for t in targets):
                    targets.append(base)
            else:
                continue
            for t in targets:
                if t == "punct" or t.startswith("punct."):
                    r = resolve(t)
                    if r is not None and r != name:
                        deps.add(r)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} (floor {floor_of(m)}) imports {d} (floor {floor_of(d)})"
            for m in sorted(graph) for d in sorted(graph[m]) if floor_of(d) > floor_of(m)]


def test_every_module_has_a_floor():
    assert [m for m in modules() if floor_of(m) is None] == []


def test_no_module_imports_a_floor_above_its_own():
    assert upward_imports(import_graph(modules())) == []


def test_no_import_cycles():
    assert cycles(import_graph(modules())) == []


def room_violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for m in sorted(graph):
        for d in sorted(graph[m]):
            if d not in TRAINING_ROOMS or d in SHARED_ROOMS and m not in TRAINING_ROOMS:
                continue
            if m not in TRAINING_ROOMS:
                if m.startswith("punct.engine."):
                    out.append(f"{m} (not a training room) imports {d}")
            elif TRAINING_ROOMS[d] >= TRAINING_ROOMS[m]:
                out.append(f"{m} (rank {TRAINING_ROOMS[m]}) imports {d} (rank {TRAINING_ROOMS[d]})")
    return out


def test_the_training_rooms_import_downwards_and_decoding_none_of_them():
    mods = modules()
    assert set(TRAINING_ROOMS) <= set(mods)
    assert room_violations(import_graph(mods)) == []


def test_the_room_check_sees_a_sideways_and_an_inference_import():
    graph = {"punct.engine.loss": {"punct.engine.optim"}, "punct.engine.decode": {"punct.engine.validation",
                                                                                    "punct.engine.checkpoint"}}
    assert room_violations(graph) == ["punct.engine.decode (not a training room) imports punct.engine.validation",
                                      "punct.engine.loss (rank 1) imports punct.engine.optim (rank 1)"]


def _package(tmp_path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        p = tmp_path / "punct" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return modules(tmp_path / "punct")


@pytest.mark.parametrize("files,expected", [
    ({"__init__.py": "", "a.py": "from punct import b\n", "b.py": "def f():\n    from punct.a import x\n"},
     [["punct.a", "punct.b"]]),
    ({"__init__.py": "", "a.py": "import punct.b\n", "b.py": "from . import c\n", "c.py": "from .a import y\n"},
     [["punct.a", "punct.b", "punct.c"]]),
    ({"__init__.py": "", "a.py": "import punct.b\n", "b.py": "from punct.errors import E\n"}, []),
])
def test_the_cycle_check_sees_loops_and_lazy_imports(tmp_path, files, expected):
    assert cycles(import_graph(_package(tmp_path, files))) == expected


def test_the_floor_check_sees_an_upward_import(tmp_path):
    mods = _package(tmp_path, {"__init__.py": "", "errors.py": "", "data/__init__.py": "",
                               "audio.py": "def f():\n    from punct.data.datadir import read_table\n",
                               "data/datadir.py": "from punct.errors import PunctError\n"})
    assert upward_imports(import_graph(mods)) == ["punct.audio (floor 1) imports punct.data.datadir (floor 2)"]


def label_literals(mods: dict[str, Path]) -> list[str]:
    """``module:line`` of every string constant that spells a mark label outside
    punct.text.labels (docstrings aside): the inventory is listed in one place only."""
    names = {"COMMA", "PERIOD", "QUESTION"}
    out = []
    for name, path in mods.items():
        if name == "punct.text.labels":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        out += [f"{name}:{n.lineno}" for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and n.value in names and id(n) not in docs]
    return out


def test_only_punct_labels_spells_the_labels():
    assert label_literals(modules()) == []


def test_the_label_check_sees_a_literal(tmp_path):
    mods = _package(tmp_path, {"__init__.py": "", "text/__init__.py": "", "text/labels.py": 'COMMA = "COMMA"\n',
                               "x.py": '"""Says COMMA."""\nENDS = ("PERIOD", "QUESTION")\n'})
    assert label_literals(mods) == ["punct.x:2", "punct.x:2"]
