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


def test_an_output_where_no_file_can_be_made_is_named(tmp_path, monkeypatch):
    """A directory that takes no new file (read-only, no permission, /proc): the error names the
    output asked for, not the temporary name beside it that failed first."""
    import tempfile

    from punct.errors import PunctError

    def refuse(prefix, suffix, dir):
        raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "x" + suffix))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    for make in (lambda p: atomic_write(p), lambda p: atomic_path(p), lambda p: atomic_dir(p)):
        out = tmp_path / "ro" / "out.srt"
        with pytest.raises(PunctError) as e:
            with make(out):
                pass
        assert str(e.value) == f"{out}: cannot create a file in {out.parent}: permission denied"
        assert isinstance(e.value, OSError) and not out.exists()


def test_an_output_that_cannot_be_written_is_named(tmp_path):
    """A full disk or an I/O error while writing (OSError without a file name, or naming the
    temporary file): one error naming the output; the old file stays, no temporary is left."""
    import errno

    from punct.errors import PunctError

    p = tmp_path / "out.srt"
    p.write_text("old\n")
    for fail in (lambda tmp: OSError(errno.ENOSPC, "No space left on device"),
                 lambda tmp: OSError(errno.EIO, "Input/output error", tmp)):
        with pytest.raises(PunctError) as e:
            with atomic_path(p) as tmp:
                raise fail(tmp)
        assert str(e.value) in (f"{p}: cannot write it: no space left on device",
                                f"{p}: cannot write it: input/output error")
    assert p.read_text() == "old\n" and sorted(x.name for x in tmp_path.iterdir()) == ["out.srt"]
    with pytest.raises(FileNotFoundError):  # an error about another file is left as it is
        with atomic_write(p):
            open(tmp_path / "missing.txt")
    try:  # and a write that can be done without (a cache) still catches an OSError
        with atomic_write(p):
            raise OSError(errno.ENOSPC, "No space left on device")
    except OSError as e:
        assert isinstance(e, PunctError) and str(e) == f"{p}: cannot write it: no space left on device"


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


def test_atomic_dir_replaces_only_its_own_outputs(tmp_path):
    from punct.errors import PunctError
    from punct.fsutil import OUTPUT_MARK

    d = tmp_path / "out"
    with atomic_dir(d) as t:  # new, then its own output again
        (t / "a").write_text("1\n")
    assert (d / OUTPUT_MARK).is_file()
    with atomic_dir(d) as t:
        (t / "a").write_text("2\n")
    assert (d / "a").read_text() == "2\n"
    (tmp_path / "empty").mkdir()
    with atomic_dir(tmp_path / "empty") as t:
        (t / "a").write_text("3\n")
    # someone's folder, an input given as the output by mistake, a file: refused, left as they were
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep\n")
    (tmp_path / "f").write_text("keep\n")
    for target, msg in ((mine, "exists and is not an output of this command"),
                        (tmp_path / "f", "exists and is not a directory")):
        with pytest.raises(PunctError, match=msg) as e:
            with atomic_dir(target) as t:
                (t / "a").write_text("x\n")
        assert str(e.value).startswith(f"{target}: ")
    assert (mine / "notes.txt").read_text() == "keep\n" and sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert (tmp_path / "f").read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "f", "mine", "out"]  # no temporary left
    # an older output of the command, which it recognises by its files
    with atomic_dir(mine, ours=lambda p: (p / "notes.txt").is_file()) as t:
        (t / "a").write_text("4\n")
    assert sorted(p.name for p in mine.iterdir()) == [OUTPUT_MARK, "a"]


def test_a_lock_is_removed_by_its_holder_and_taken_over_from_a_dead_one(tmp_path):
    from punct.errors import PunctError
    from punct.fsutil import exclusive

    lock = tmp_path / ".x.lock"
    with exclusive(lock, "a job"):
        assert lock.read_text() == f"host {os.uname().nodename}, pid {os.getpid()}\n"
        with pytest.raises(PunctError, match="a job is already running here"):
            with exclusive(lock, "a job"):
                pass
        assert lock.is_file()  # the refused one leaves it alone
    assert not lock.exists()
    lock.write_text("host gone, pid 1\n")  # left by a holder that was killed
    with exclusive(lock, "a job"):
        assert lock.read_text().startswith(f"host {os.uname().nodename}")
    assert not lock.exists()
