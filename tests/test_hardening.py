"""Bad inputs get a clear one-line error and no input or output is lost: the classes of
fault closed where they live (input opening, numbers and option bounds, nested JSON, output
ownership, alignment sanity, scoring of folders). benchmarks/hostile_cli.py runs the CLI."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from punct.errors import PunctError
from punct.fsutil import (atomic_dir, atomic_write, check_input, check_not_input, input_problem, is_stream,
                          loads_json, remove_stale_temps, spooled_input)

ROOT = Path(__file__).resolve().parents[1]
CTM = "talk 1 0.00 0.30 hello 0.9\ntalk 1 0.40 0.30 world 0.9\n"


def _fifo(tmp_path: Path, data: bytes, name: str = "pipe") -> Path:
    """A named pipe that a thread fills with ``data`` once a reader opens it."""
    p = tmp_path / name
    os.mkfifo(p)

    def feed():
        with open(p, "wb") as f:
            f.write(data)
    threading.Thread(target=feed, daemon=True).start()
    return p


# ----------------------------------------------------------------------------- input opening

@pytest.mark.parametrize("make,want,expected", [
    (lambda d: d / "nothere", "any", "not found"),
    (lambda d: (os.symlink(d / "nowhere", d / "l"), d / "l")[1], "any", "broken symbolic link"),
    (lambda d: ((d / "f").write_text("x"), d / "f" / "g")[1], "any", "not found (a file stands"),
    (lambda d: d, "file", "is a directory, not a file"),
    (lambda d: ((d / "f").write_text("x"), d / "f")[1], "dir", "is a file, not a directory"),
    (lambda d: Path("/dev/zero"), "any", "is a character device"),
    (lambda d: Path("/dev/null"), "file", "is a character device"),
    (lambda d: ((d / "e").write_bytes(b""), d / "e")[1], "file", "is empty (0 bytes)"),
])
def test_every_kind_of_unreadable_input_says_what_it_is(tmp_path, make, want, expected):
    path = make(tmp_path)
    assert expected in input_problem(path, want, empty_ok=False)


def test_good_inputs_and_pipes_pass(tmp_path):
    (tmp_path / "f").write_text("x")
    assert input_problem(tmp_path / "f", "file", empty_ok=False) is None
    assert input_problem(tmp_path, "dir") is None
    os.mkfifo(tmp_path / "p")
    assert input_problem(tmp_path / "p", "file") is None and is_stream(tmp_path / "p")
    assert input_problem(tmp_path / "p", "dir") == "is a pipe, not a directory"


def test_check_input_names_the_kind_of_input(tmp_path):
    with pytest.raises(PunctError, match=r": is a directory, not a model file$"):
        check_input(tmp_path, "model file", "file")
    with pytest.raises(PunctError, match=r"nothere: reference not found$"):
        check_input(tmp_path / "nothere", "reference")
    with pytest.raises(PunctError, match=r"/dev/zero: is a character device"):
        check_input("/dev/zero", "input")


def test_a_pipe_is_read_once_into_a_file_that_may_be_read_twice(tmp_path):
    from punct.io import read_any

    pipe = _fifo(tmp_path, CTM.encode())
    with spooled_input(pipe) as f:
        assert f != pipe and f.read_text() == CTM
        utts = read_any(f, "ctm")
    assert [w.text for w in utts[0].words] == ["hello", "world"]
    assert not f.exists()  # the copy is gone
    pipe2 = _fifo(tmp_path, b"talk 1 x 0.3 hi\n", "pipe2")
    with pytest.raises(PunctError) as e:
        with spooled_input(pipe2) as f:
            read_any(f, "ctm")
    assert e.value.path == str(pipe2) and e.value.line == 1  # named as the user gave it


def test_restore_reads_a_pipe_and_refuses_a_device(tmp_path, capsys):
    from punct.bin import restore

    assert restore.main(["/dev/zero", "-o", str(tmp_path / "x.ctm")]) == 1
    assert capsys.readouterr().err.strip().startswith("error: /dev/zero: is a character device")
    assert restore.main(["--model", str(tmp_path), "x.ctm"]) == 1  # x.ctm missing: the input is checked first
    (tmp_path / "in.ctm").write_text(CTM)
    assert restore.main(["--model", str(tmp_path), str(tmp_path / "in.ctm")]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("is a directory, not a model file")


def test_an_empty_directory_is_not_called_a_missing_file(tmp_path):
    from punct.io import detect_format

    with pytest.raises(PunctError, match="an empty directory: not a data directory"):
        detect_format(tmp_path)


# ----------------------------------------------------------------------------- numbers

def _parsers():
    import punct.bin

    for m in pkgutil.iter_modules(punct.bin.__path__):
        mod = importlib.import_module(f"punct.bin.{m.name}")
        if hasattr(mod, "build_parser"):
            yield m.name, mod.build_parser()


def _actions(parser):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub in a.choices.values():
                yield from _actions(sub)
        else:
            yield a


def test_no_entry_point_takes_a_bare_float():
    """Every number option of every entry point refuses nan and inf (finite_float): a bare
    ``type=float`` takes them."""
    bare = [(name, a.option_strings) for name, p in _parsers() for a in _actions(p) if a.type is float]
    assert bare == []


@pytest.mark.parametrize("module,argv", [
    ("restore", ["x.ctm", "--threads", "100000"]), ("restore", ["x.ctm", "--window", "100000000"]),
    ("restore", ["x.ctm", "--batch-size", "1000000000000"]), ("restore", ["x.ctm", "--bias", "nan", "0", "0"]),
    ("restore", ["x.ctm", "--weights", "inf"]), ("decode", ["--model", "m", "--data", "d", "--out", "o", "--threads", "5000"]),
    ("score", ["r", "h", "--level", "nan"]), ("score", ["r", "h", "--bootstrap", "0"]),
    ("compare", ["r", "a", "b", "--resamples", "1000000000000"]), ("pause_feats", ["--data", "d", "--cap", "inf"]),
])
def test_absurd_numbers_on_the_command_line_are_refused(module, argv, capsys):
    parser = importlib.import_module(f"punct.bin.{module}").build_parser()
    with pytest.raises(SystemExit) as e:
        parser.parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: argument")


@pytest.mark.parametrize("fmt,name,content,expected", [
    ("ctm", "a.ctm", "talk 1 1e300 0.3 hi\n", "start time 1e300 is beyond"),
    ("ctm", "a.ctm", "talk 1 0 1e308 hi\n", "duration 1e308 is beyond"),
    ("ctm", "a.ctm", "talk 1 nan 0.3 hi\n", "is not a finite number"),
    ("ctm", "a.ctm", "talk 1 -2 0.3 hi\n", "negative start time"),
    ("json", "a.json", '{"words": [{"word": "hi", "start": 1e300, "end": 1e301}]}', "beyond"),
    ("textgrid", "a.TextGrid", None, "beyond"),
    ("srt", "a.srt", "1\n99999999999:00:00,000 --> 99999999999:00:05,000\nhi there\n", "beyond"),
])
def test_absurd_times_are_refused_by_every_reader(tmp_path, fmt, name, content, expected):
    from punct.io import read_any

    if content is None:  # a TextGrid punct writes, with its last time made absurd
        from punct.io import textgrid
        from punct.text.words import Utterance, Word

        textgrid.write([Utterance("a", [Word("hi", start=0.0, end=0.5), Word("there", start=0.5, end=1.25)])],
                       tmp_path / name)
        content = (tmp_path / name).read_text().replace("1.25", "99999999999")
    (tmp_path / name).write_text(content)
    with pytest.raises(PunctError, match=expected):
        read_any(tmp_path / name, fmt)


def test_word_times_and_segments_are_bounded_too():
    from punct.data.datadir import parse_word_time
    from punct.data.tables import MAX_SECONDS, seconds, time_problem

    with pytest.raises(ValueError, match="beyond"):
        parse_word_time("0,1e300")
    assert time_problem(MAX_SECONDS) is None and "beyond" in time_problem(MAX_SECONDS * 1.01)
    assert seconds("12.5", "start", "f", 1) == 12.5


# ----------------------------------------------------------------------------- deep structures

@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000, '{"a":' * 5000 + "1" + "}" * 5000,
                                  '{"words": [{"x": ' + "[" * 150 + "]" * 150 + "}]}"])
def test_deep_json_is_one_error_naming_the_file(text):
    with pytest.raises(PunctError, match=r"f.json:1: JSON nested deeper than 100 levels"):
        loads_json(text, "f.json")


def test_json_at_the_depth_limit_reads_and_brackets_in_strings_do_not_count():
    assert loads_json("[" * 100 + "]" * 100, "f") is not None
    assert loads_json('["' + "[" * 500 + '"]', "f") == ["[" * 500]
    with pytest.raises(PunctError, match=":3: JSON nested"):
        loads_json("\n\n" + "[" * 101 + "]" * 101, "f")


@pytest.mark.parametrize("command", ["restore", "score"])
def test_deep_json_in_restore_and_score_is_one_line(tmp_path, command, capsys):
    from punct.bin import restore, score

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    (tmp_path / "ref.txt").write_text("Hello, world.\n")
    if command == "restore":
        rc = restore.main([str(deep), "-o", str(tmp_path / "x.json")])
    else:
        rc = score.main([str(tmp_path / "ref.txt"), str(deep)])
    assert rc == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {deep}:1: JSON nested deeper than 100 levels (not a word list)"]


def test_deep_weights_file_is_refused(tmp_path):
    from punct.engine.decode import read_weights_file

    (tmp_path / "w.json").write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(PunctError, match="nested deeper"):
        read_weights_file(tmp_path / "w.json")


# ----------------------------------------------------------------------------- output ownership

def test_an_output_that_is_an_input_is_refused_by_inode(tmp_path):
    a = tmp_path / "a.ctm"
    a.write_text(CTM)
    os.link(a, tmp_path / "hard.ctm")
    os.symlink(a, tmp_path / "soft.ctm")
    for out in (a, tmp_path / "." / "a.ctm", tmp_path / "hard.ctm", tmp_path / "soft.ctm"):
        with pytest.raises(PunctError, match="the output would replace it"):
            check_not_input(out, [a])
    check_not_input(tmp_path / "new.ctm", [a])
    check_not_input(None, [a])


def test_restore_does_not_replace_its_input(tmp_path, capsys):
    from punct.bin import restore

    a = tmp_path / "t.ctm"
    a.write_text(CTM)
    assert restore.main([str(a), "-o", str(a)]) == 1
    assert "-o is the input" in capsys.readouterr().err
    assert a.read_text() == CTM


def _killed_writer(out: Path, kind: str = "file") -> None:
    """A process that dies by SIGKILL inside ``atomic_write`` (or ``atomic_dir``) of ``out``."""
    block = (f"with atomic_write({str(out)!r}) as f:\n    f.write('half'); f.flush()\n" if kind == "file" else
             f"with atomic_dir({str(out)!r}) as d:\n    (d / 'x').write_text('half')\n")
    code = ("import os, signal\nfrom punct.fsutil import atomic_dir, atomic_write\n" + block
            + "    os.kill(os.getpid(), signal.SIGKILL)\n")
    r = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == -signal.SIGKILL


def _hidden(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_a_killed_runs_temporary_output_is_removed_by_the_next_run(tmp_path, kind):
    out = tmp_path / ("out.ctm" if kind == "file" else "outdir")
    _killed_writer(out, kind)
    assert len(_hidden(tmp_path)) == 1 and not out.exists()  # what a SIGKILL leaves
    if kind == "file":
        with atomic_write(out) as f:
            f.write("whole\n")
    else:
        with atomic_dir(out) as d:
            (d / "x").write_text("whole\n")
    assert _hidden(tmp_path) == []


def test_a_live_writers_temporary_output_is_kept(tmp_path):
    out = tmp_path / "out.txt"
    with atomic_write(out) as f:  # this process, alive and holding the lock
        f.write("x")
        assert remove_stale_temps(out) == []
        other = tmp_path / ".out.txt.abcdefgh.tmp"  # another writer's name without a pid: unlocked, so stale
        other.write_text("y")
        assert remove_stale_temps(out) == [other]
    assert out.read_text() == "x" and _hidden(tmp_path) == []
    old = tmp_path / ".gone.old"  # a directory swap cut between its two renames: the only copy, kept
    old.mkdir()
    assert remove_stale_temps(tmp_path / "gone") == [] and old.exists()


def test_an_output_that_is_a_device_or_pipe_is_written_in_place(tmp_path):
    with atomic_write("/dev/null") as f:
        f.write("nothing\n")
    assert Path("/dev/null").is_char_device()
    p = tmp_path / "p"
    os.mkfifo(p)
    got = []
    t = threading.Thread(target=lambda: got.append(open(p).read()))
    t.start()
    with atomic_write(p) as f:
        f.write("through the pipe\n")
    t.join()
    assert got == ["through the pipe\n"] and is_stream(p)
    with pytest.raises(PunctError, match="is a directory, where an output file belongs"):
        with atomic_write(tmp_path) as f:
            pass


def test_score_out_dir_only_replaces_a_folder_it_made(tmp_path, capsys):
    from punct.bin import score

    (tmp_path / "ref.txt").write_text("Hello, world. How are you?\n")
    (tmp_path / "hyp.txt").write_text("hello world how are you\n")
    args = [str(tmp_path / "ref.txt"), str(tmp_path / "hyp.txt"), "--out-dir"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.txt").write_text("my notes\n")
    assert score.main(args + [str(mine)]) == 1
    assert "is not an output of this command" in capsys.readouterr().err
    assert (mine / "report.txt").read_text() == "my notes\n"
    out = tmp_path / "scoring"
    assert score.main(args + [str(out)]) == 0 and score.main(args + [str(out)]) == 0  # its own: replaced
    older = tmp_path / "older"  # a report written before the mark, as decode leaves it
    older.mkdir()
    for n in ("report.txt", "report.json", "confusion.txt", "errors.txt"):
        (older / n).write_text("old\n")
    assert score.main(args + [str(older)]) == 0 and (older / "report.txt").read_text() != "old\n"
    assert score.main([str(tmp_path / "ref.txt"), str(out), "--out-dir", str(out)]) == 1


# ----------------------------------------------------------------------------- scoring

def _folders(tmp_path, ref_names, hyp_names):
    for side, names, text in (("R", ref_names, "Hello, world.\n"), ("H", hyp_names, "hello world\n")):
        (tmp_path / side).mkdir()
        for n in names:
            (tmp_path / side / n).write_text(text)
    return str(tmp_path / "R"), str(tmp_path / "H")


@pytest.mark.parametrize("ref_names,hyp_names", [(["a.txt"], ["b.txt"]), (["a.txt", "b.txt"], ["c.txt", "d.txt"])])
def test_folders_whose_names_do_not_match_are_an_error(tmp_path, ref_names, hyp_names, capsys):
    from punct.bin import compare, score

    ref, hyp = _folders(tmp_path, ref_names, hyp_names)
    assert score.main([ref, hyp]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "two folders pair by file name" in err[0]
    assert compare.main([ref, hyp, hyp, "--resamples", "10"]) == 1


def test_folders_whose_names_match_score(tmp_path, capsys):
    from punct.bin import score

    ref, hyp = _folders(tmp_path, ["a.txt", "b.txt"], ["a.txt", "b.txt"])
    assert score.main([ref, hyp]) == 0
    assert "utterance ids differ" not in capsys.readouterr().err


def test_by_id_in_the_library():
    from punct.scoring.score import aligned_slots
    from punct.text.words import Utterance, Word

    ref = [Utterance("a", [Word("hi", label="PERIOD")])]
    hyp = [Utterance("b", [Word("hi")])]
    aligned_slots(ref, hyp)  # two single files: one stream, as before
    with pytest.raises(PunctError, match="'b' has no reference one"):
        aligned_slots(ref, hyp, by_id=True)


def test_a_line_of_only_punctuation_warns(tmp_path, caplog):
    from punct.io import text
    from punct.io.text import read_input as read_plain_text

    p = tmp_path / "t.txt"
    p.write_text("hello there\n. . . ? ! ,\nhow are you\n")
    for read in (read_plain_text, text.read):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            read(p)
        assert "1 line(s) hold only punctuation, no word (first: line 2)" in caplog.text
    p.write_text("hello there, how are you?\n")
    caplog.clear()
    read_plain_text(p)
    assert "only punctuation" not in caplog.text


# ----------------------------------------------------------------------------- alignment sanity

def test_silent_or_too_short_audio_is_no_alignment():
    import numpy as np

    from punct.align.aligner import audio_problem

    assert "silent" in audio_problem(np.zeros(16000 * 5, dtype="float32"), 10)
    assert "silent" in audio_problem(np.zeros(0, dtype="float32"), 10)
    tone = (0.3 * np.sin(np.arange(1600) / 3)).astype("float32")  # 0.1 s
    assert "too short" in audio_problem(tone, 20)
    assert audio_problem(tone, 3) is None


def test_punct_align_fails_on_silence_without_raw_decoder_lines(tmp_path):
    import numpy as np
    import soundfile as sf

    sf.write(tmp_path / "a.wav", np.zeros(16000 * 5, dtype="float32"), 16000)
    sr = 16000
    sf.write(tmp_path / "tone.wav", (0.3 * np.sin(2 * np.pi * 220 * np.arange(sr * 2) / sr)).astype("float32"), sr)
    (tmp_path / "t.txt").write_text("hello world this is a test\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for audio in ("a.wav", "tone.wav"):
        r = subprocess.run([sys.executable, "-m", "punct", "align", audio, "t.txt", "-o", "o.ctm"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 1, r.stderr
        errors = [x for x in r.stderr.splitlines() if x.startswith("error:")]
        assert len(errors) == 1 and "cannot align the transcript" in errors[0]
        assert not any(x.startswith("ERROR:") for x in r.stderr.splitlines()), r.stderr
        assert not (tmp_path / "o.ctm").exists()
    r = subprocess.run([sys.executable, "-m", "punct", "align", "a.wav", "t.txt", "-o", "o.ctm", "--spread-if-failed"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "silent" in r.stderr
    confs = [float(line.split()[5]) for line in (tmp_path / "o.ctm").read_text().splitlines()]
    assert confs and max(confs) == 0.0


def test_files_per_recording_go_only_into_a_folder_punct_made_or_an_empty_one(tmp_path):
    from punct.fsutil import OUTPUT_MARK, claim_dir

    new = claim_dir(tmp_path / "new")
    assert (new / OUTPUT_MARK).is_file()
    (new / "talk.ctm").write_text("x")
    claim_dir(new)  # its own, again
    (tmp_path / "empty").mkdir()
    claim_dir(tmp_path / "empty")
    user = tmp_path / "user"
    user.mkdir()
    (user / "talk.ctm").write_text("mine")
    with pytest.raises(PunctError, match="did not make, and not empty"):
        claim_dir(user)
    assert (user / "talk.ctm").read_text() == "mine" and not (user / OUTPUT_MARK).exists()


def test_a_nul_byte_in_a_text_input_is_an_error(tmp_path):
    from punct.io import read_any

    (tmp_path / "a.ctm").write_bytes(b"talk 1 0 0.3 hello\ntalk 1 0.4 0.3 h\x00i\n")
    with pytest.raises(PunctError, match=r"a.ctm:2: line holds a NUL byte"):
        read_any(tmp_path / "a.ctm")


def test_every_threads_window_and_batch_option_has_an_upper_bound():
    """A count that crashes or stalls a run when absurd (torch segfaulted at 100000 threads)."""
    found = []
    for name, parser in _parsers():
        for a in _actions(parser):
            if a.dest in ("threads", "window", "batch_size"):
                found.append(name)
                with pytest.raises(argparse.ArgumentTypeError, match="at most"):
                    a.type("1000000000")
    assert {"restore", "decode"} <= set(found)
