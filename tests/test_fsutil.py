"""Atomic writes: never half-written, and the usual file modes."""
import os
import stat

import pytest

from punct.fsutil import atomic_dir, atomic_path, atomic_write, is_done, mark_done


def test_atomic_write_keeps_old_file_on_error(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(p) as f:
            f.write("half")
            raise RuntimeError("boom")
    assert p.read_text() == "old\n"
    assert [x.name for x in tmp_path.iterdir()] == ["out.txt"]


def test_atomic_outputs_follow_umask(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "f.txt") as f:
            f.write("x")
        with atomic_dir(tmp_path / "d") as d:
            (d / "a").write_text("y")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o755


def test_atomic_path_for_writers_that_take_a_name(tmp_path):
    p = tmp_path / "talk.TextGrid"
    p.write_text("old\n")
    with pytest.raises(ValueError):
        with atomic_path(p) as name:
            with open(name, "w") as f:  # a library reopening the name, as praatio's save does
                f.write("half")
            raise ValueError("writer failed")
    assert p.read_text() == "old\n" and [x.name for x in tmp_path.iterdir()] == ["talk.TextGrid"]
    old = os.umask(0o022)
    try:
        with atomic_path(p) as name:
            with open(name, "w") as f:
                f.write("new\n")
    finally:
        os.umask(old)
    assert p.read_text() == "new\n"
    assert stat.S_IMODE(p.stat().st_mode) == 0o644


def test_atomic_dir_replaces_only_when_complete(tmp_path):
    d = tmp_path / "set"
    with atomic_dir(d) as t:
        (t / "text").write_text("a\n")
    with pytest.raises(ValueError):
        with atomic_dir(d) as t:
            (t / "text").write_text("b\n")
            raise ValueError
    assert (d / "text").read_text() == "a\n"
    assert not is_done(d)
    mark_done(d)
    assert is_done(d)
