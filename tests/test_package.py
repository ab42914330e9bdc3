"""The installable package: the wheel built from the repository holds the default model and
the compiled kernel's source, declares its runtime dependencies, and an installed
``punct restore`` works in a fresh virtual environment, from outside the source tree.

No network: the wheel is built without build isolation (setuptools of the running
environment) and installed without dependencies; the fresh environment reads torch and the
rest from the running environment's site-packages through a ``.pth`` line, which does not
run that environment's own ``.pth`` files (so its editable punct stays out of sight).
Takes about half a minute.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the package's files (the build leaves build/ and
    *.egg-info behind, which must not land in the working tree)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("punct", "models"):
        shutil.copytree(ROOT / name, src / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
              "--disable-pip-version-check", "-q", "-w", str(out), str(src)])
    assert r.returncode == 0, r.stderr
    (whl,) = out.glob("punct-*.whl")
    return whl


def test_the_wheel_holds_the_model_the_kernel_source_and_the_dependencies(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        model = z.getinfo("punct/assets/default.pt")
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [line.split(":", 1)[1].strip() for line in z.read(meta).decode().splitlines()
                    if line.startswith("Requires-Dist:")]
    assert model.file_size == (ROOT / "models" / "default.pt").stat().st_size  # the file, not a link
    assert "punct/models/csrc/additive.cpp" in names and "punct/api.py" in names
    shipped = {p.name for p in (ROOT / "models" / "accurate").glob("*.pt")}  # the accurate tier, as files
    assert {f"punct/assets/accurate/{n}" for n in shipped} <= names
    assert not any(n.startswith(("tests/", "exp/", "data/")) for n in names)
    runtime = {r.split(">")[0].split("=")[0].split("<")[0].split(";")[0].strip().lower() for r in requires
               if "extra ==" not in r}
    assert {"torch", "numpy", "pyyaml", "kaldiio", "tqdm", "praatio"} <= runtime
    assert "pytest" not in runtime and "pyflakes" not in runtime  # test tools are an extra


def test_punct_restore_runs_from_a_fresh_environment(wheel, tmp_path):
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    shared = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "shared.pth").write_text("".join(f"{p}\n" for p in sorted(shared)))
    r = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
              "--disable-pip-version-check", str(wheel)])
    assert r.returncode == 0, r.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    punct = env_dir / "bin" / "punct"
    r = _run([str(py), "-c", "import punct.restore as rs, punct.engine.restorer as er; print(rs.__file__); "
                             "print(er.DEFAULT_MODEL.is_file())"],
             cwd=work)
    assert r.returncode == 0, r.stderr
    where, has_model = r.stdout.split()
    assert Path(where).is_relative_to(site) and has_model == "True"  # the installed copy, not the repository's
    r = _run([str(punct), "--version"], cwd=work)
    assert r.returncode == 0 and r.stdout.strip().startswith("punct "), r.stderr
    r = _run([str(punct), "restore", "-"], cwd=work, input="good morning everyone thank you\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout.split()
    assert [w.strip(",.?").lower() for w in out] == ["good", "morning", "everyone", "thank", "you"]
    assert any(w[-1] in ",.?" for w in out), r.stdout  # a mark was put in
