"""tests/ mirrors punct/ (docs/DESIGN.md, "Floors"): the tests of punct/P/M.py are in
tests/P/test_M.py (of punct/M.py in tests/test_M.py), where a newcomer looks for them, and no
test file grows past 600 lines (one is split by module or topic first)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the most lines a test file holds
MAX_LINES = 600


def mirrored_path(module: Path, package: Path) -> Path:
    """tests/P/test_M.py of ``package``/P/M.py."""
    rel = module.relative_to(package)
    return Path("tests", *rel.parts[:-1], f"test_{rel.stem}.py")


def unmirrored(root: Path = ROOT) -> list[str]:
    """The modules of root/punct (packages' __init__ and __main__ aside) without their test file."""
    package = root / "punct"
    return [str(m.relative_to(root)) for m in sorted(package.rglob("*.py"))
            if m.name not in ("__init__.py", "__main__.py") and not (root / mirrored_path(m, package)).is_file()]


def long_files(root: Path = ROOT) -> list[str]:
    return [f"{p.relative_to(root)} ({n} lines)" for p in sorted((root / "tests").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]


def test_every_module_has_its_test_file():
    assert unmirrored() == []


def test_no_test_file_is_over_600_lines():
    assert long_files() == []


def test_the_checks_see_a_missing_test_file_and_a_long_one(tmp_path):
    for rel in ("punct/__init__.py", "punct/cli.py", "punct/io/__init__.py", "punct/io/ctm.py", "punct/io/text.py",
                "tests/test_cli.py", "tests/io/test_ctm.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert unmirrored(tmp_path) == ["punct/io/text.py"]
    (tmp_path / "tests" / "io" / "test_ctm.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_files(tmp_path) == [f"tests/io/test_ctm.py ({MAX_LINES + 1} lines)"]
