"""Feed the command line a suite of bad inputs, as a hostile user would, and check each run.

    python benchmarks/hostile_cli.py                    # every case, this repository's punct
    python benchmarks/hostile_cli.py --root /work/main  # the same cases against another checkout
    python benchmarks/hostile_cli.py --short            # the quick subset that tests/test_hostile_cli.py runs
    python benchmarks/hostile_cli.py --only 'json|ctm' -v

Every case runs ``python -m punct ...`` (or ``run.sh``, ``python -m punct.bin.X``) in a folder of
its own and is checked for: no Python traceback; no crash signal and no hang; a non-zero exit
with one ``error:`` line (log lines aside) or, where the input is good, exit 0 and nothing
else on stderr; a case whose input is wrong does not succeed silently; every file present
before the run is unchanged afterwards (SHA-256) and still of its kind (a device stays a
device); no hidden temporary file (``.NAME.*.tmp``, ``.NAME.old``) is left beside the
outputs, after a run killed with SIGKILL too once the same command has run again. Prints one
line per failed case (``-v``: every case) and a summary table by command; the exit status is
the number of failed cases (capped at 100).

Runs as root see no permission errors: the cases of an unreadable input or a read-only output
folder then accept any clean outcome.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
TEMP_NAME = re.compile(r"^\..+\.(tmp|old)$")

ERROR, OK, ANY = "error", "ok", "any"


@dataclass
class Case:
    """One run: ``cmd`` (``punct ...``, ``bin.X ...`` for ``python -m punct.bin.X``, ``run.sh
    ...``), the files made first (name -> bytes, or a callable of the case folder), what is
    expected (ERROR, OK or ANY), standard input, and an optional extra check."""

    name: str
    cmd: list[str]
    files: dict = field(default_factory=dict)
    expect: str = ERROR
    stdin: bytes | None = None
    shell: bool = False  # cmd[0] is a bash command line (process substitution)
    kill_after: float | None = None  # SIGKILL the run after this many seconds, then run it again
    check: Callable[[Path], str | None] | None = None
    short: bool = False
    timeout: float = 300.0

    @property
    def group(self) -> str:
        """The command under test: ``restore``, ``score``, ``bin.train``, ``run.sh`` ..."""
        if self.shell:
            return re.search(r"punct (\w+)", self.cmd[0]).group(1)
        return self.cmd[1] if self.cmd[0] == "punct" else self.cmd[0]


# ----------------------------------------------------------------------------- fixtures

GOOD_CTM = b"".join(f"talk 1 {0.4 * i:.2f} 0.30 {w} 0.9\n".encode() for i, w in enumerate(
    "so today we will talk about the weather is it going to rain tomorrow i do not know".split()))
REF_TXT = b"So today we will talk about the weather. Is it going to rain tomorrow? I do not know.\n"
HYP_TXT = b"so today we will talk about the weather is it going to rain tomorrow i do not know\n"
GOOD_JSON = json.dumps({"words": [{"word": w, "start": 0.4 * i, "end": 0.4 * i + 0.3}
                                  for i, w in enumerate(HYP_TXT.decode().split())]}).encode()


def textgrid(intervals: list[tuple[str, str, str]], xmax: str = "8", size: str | None = None) -> bytes:
    lines = ['File type = "ooTextFile"', 'Object class = "TextGrid"', "", "xmin = 0", f"xmax = {xmax}",
             "tiers? <exists>", "size = 1", "item []:", "    item [1]:", '        class = "IntervalTier"',
             '        name = "words"', "        xmin = 0", f"        xmax = {xmax}",
             f"        intervals: size = {size if size is not None else len(intervals)}"]
    for k, (a, b, t) in enumerate(intervals, 1):
        lines += [f"        intervals [{k}]:", f"            xmin = {a}", f"            xmax = {b}",
                  f'            text = "{t}"']
    return ("\n".join(lines) + "\n").encode()


GOOD_TG = textgrid([(f"{0.4 * i:.1f}", f"{0.4 * i + 0.4:.1f}", w) for i, w in enumerate(HYP_TXT.decode().split())])


def srt(stamp: str = "00:00:00,000 --> 00:00:05,000", body: str = "so today we will talk about the weather") -> bytes:
    return f"1\n{stamp}\n{body}\n\n".encode()


def wav(kind: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        import numpy as np
        import soundfile as sf

        sr = 16000
        if kind == "silence":
            x = np.zeros(sr * 5, dtype="float32")
        elif kind == "empty":
            x = np.zeros(0, dtype="float32")
        elif kind == "tone":
            x = (0.3 * np.sin(2 * np.pi * 220 * np.arange(sr * 2) / sr)).astype("float32")
        else:  # noise
            x = (0.1 * np.random.default_rng(0).standard_normal(sr * 2)).astype("float32")
        sf.write(d / "a.wav", x, sr)
    return make


def mknod_null(name: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        try:
            os.mknod(d / name, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            (d / name).write_bytes(b"")  # not root: a plain file stands in
    return make


def symlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda d: os.symlink(target, d / name)


def hardlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda d: os.link(d / target, d / name)


def chmod(name: str, mode: int) -> Callable[[Path], None]:
    return lambda d: os.chmod(d / name, mode)


def stale_temp(output: str, root: Path) -> Callable[[Path], None]:
    """A temporary file beside ``output`` left by a writer killed with SIGKILL (the root's own
    ``atomic_write``, so its naming is what a real killed run leaves)."""
    def make(d: Path) -> None:
        code = ("import os, signal, sys; from punct.fsutil import atomic_write\n"
                f"with atomic_write({str(d / output)!r}) as f:\n"
                "    f.write('half'); f.flush(); os.kill(os.getpid(), signal.SIGKILL)\n")
        subprocess.run([python_of(root), "-c", code], env=env_for(root), cwd=d)
    return make


def deep_json(n: int, open_: str = "[", close: str = "]") -> bytes:
    return (open_ * n + close * n).encode()


def pickle_bomb() -> bytes:
    import pickle

    class Evil:
        def __reduce__(self):
            return (os.system, ("touch PWNED",))
    return pickle.dumps(Evil())


def big_ctm(n: int) -> bytes:
    words = "so today we will talk about the weather is it going to rain tomorrow".split()
    return "".join(f"talk 1 {0.3 * i:.2f} 0.25 {words[i % len(words)]} 0.9\n" for i in range(n)).encode()


def unchanged(name: str, content: bytes) -> Callable[[Path], str | None]:
    return lambda d: None if (d / name).read_bytes() == content else f"{name} was changed"


def absent(name: str) -> Callable[[Path], str | None]:
    return lambda d: f"{name} was created" if (d / name).exists() else None


# ----------------------------------------------------------------------------- the cases

def cases(root: Path) -> list[Case]:
    out: list[Case] = []

    def add(name, cmd, files=None, expect=ERROR, **kw):
        out.append(Case(name, cmd, dict(files or {}), expect, **kw))

    R = ["punct", "restore"]
    # CTM
    ctm_bad = {
        "ctm_empty": b"", "ctm_comments_only": b";; nothing\n;; here\n", "ctm_4_fields": b"talk 1 0.0 0.3\n",
        "ctm_7_fields": b"talk 1 0.0 0.3 hi 0.9 x\n", "ctm_start_word": b"talk 1 abc 0.3 hi\n",
        "ctm_start_nan": b"talk 1 nan 0.3 hi\n", "ctm_start_inf": b"talk 1 inf 0.3 hi\n",
        "ctm_start_negative": b"talk 1 -1 0.3 hi\n", "ctm_duration_negative": b"talk 1 0.0 -0.5 hi\n",
        "ctm_start_1e300": b"talk 1 1e300 0.3 hi\n", "ctm_duration_1e308": b"talk 1 0 1e308 hi\n",
        "ctm_conf_nan": b"talk 1 0 0.3 hi nan\n", "ctm_binary": bytes(range(256)) * 8,
        "ctm_nul_bytes": b"talk 1 0 0.3 h\x00i\n", "ctm_bad_utf8": b"talk 1 0 0.3 h\xffi\n",
        "ctm_marks_only": b"talk 1 0 0.3 ,\ntalk 1 0.4 0.3 .\n", "ctm_huge_time_digits": b"talk 1 " + b"9" * 400 + b" 0.3 hi\n",
    }
    for name, content in ctm_bad.items():
        add(name, R + ["in.ctm", "-o", "out.ctm"], {"in.ctm": content}, short=name in ("ctm_start_1e300",))
    ctm_good = {
        "ctm_bom_crlf": b"\xef\xbb\xbf" + GOOD_CTM.replace(b"\n", b"\r\n"), "ctm_good": GOOD_CTM,
        "ctm_unicode_words": "talk 1 0 0.3 \u05e9\u05dc\u05d5\u05dd\ntalk 1 0.4 0.3 e\u0301t\u00e9\ntalk 1 0.8 0.3 "
                             "\U0001f600\ntalk 1 1.2 0.3 \u200b\u200bx\n".encode(),
        "ctm_out_of_order": GOOD_CTM.splitlines(keepends=True)[3] + GOOD_CTM,
        "ctm_long_word": b"talk 1 0 0.3 " + b"a" * 100_000 + b"\ntalk 1 0.4 0.3 b\n",
    }
    for name, content in ctm_good.items():
        add(name, R + ["in.ctm", "-o", "out.ctm"], {"in.ctm": content}, expect=OK)
    # JSON
    json_bad = {
        "json_deep_list": deep_json(200_000), "json_deep_object": b'{"a":' * 5000 + b"1" + b"}" * 5000,
        "json_null": b"null", "json_number": b"1e999", "json_nan_start": b'{"words": [{"word": "hi", "start": NaN, "end": 1}]}',
        "json_negative_start": b'{"words": [{"word": "hi", "start": -4, "end": 1}]}',
        "json_start_1e300": b'{"words": [{"word": "hi", "start": 1e300, "end": 1e301}]}',
        "json_truncated": GOOD_JSON[: len(GOOD_JSON) // 2], "json_string": b'"hello world"',
        "json_lines_one_bad": b'{"word": "hi", "start": 0, "end": 1}\n{"word": \n', "json_empty_object": b"{}",
        "json_items_not_objects": b'{"words": [1, 2, 3]}', "json_text_null": b'{"words": [{"word": null, "start": 0, "end": 1}]}',
        "json_deep_inside_word": b'{"words": [{"word": "hi", "start": 0, "end": 1, "x": ' + deep_json(50_000) + b"}]}",
    }
    for name, content in json_bad.items():
        add(name, R + ["in.json", "-o", "out.json"], {"in.json": content}, short=name == "json_deep_list")
    add("json_good", R + ["in.json", "-o", "out.json"], {"in.json": GOOD_JSON}, expect=OK)
    # TextGrid
    tg_bad = {
        "textgrid_truncated": GOOD_TG[: len(GOOD_TG) // 2],
        "textgrid_xmin_nan": textgrid([("nan", "0.4", "hi"), ("0.4", "0.8", "there")]),
        "textgrid_xmax_1e300": textgrid([("0", "1e300", "hi")], xmax="1e300"),
        "textgrid_huge_size": textgrid([("0", "0.4", "hi")], size="99999999999"),
        "textgrid_end_before_start": textgrid([("0.8", "0.4", "hi")]),
        "textgrid_binary": b"\x00\x01" * 3000,
    }
    for name, content in tg_bad.items():
        add(name, R + ["in.TextGrid", "-o", "out.ctm"], {"in.TextGrid": content})
    # praatio reads the intervals as written whatever size they declare: read, not refused
    add("textgrid_negative_size", R + ["in.TextGrid", "-o", "out.ctm"], {"in.TextGrid": textgrid([("0", "0.4", "hi")],
                                                                                                size="-3")}, expect=ANY)
    add("textgrid_good", R + ["in.TextGrid", "-o", "out.ctm"], {"in.TextGrid": GOOD_TG}, expect=OK)
    # text
    add("text_marks_only_line", R + ["in.txt", "-o", "out.txt"], {"in.txt": b"hello there\n. . . ? ! ,\nhow are you\n"},
        expect=OK)
    add("text_whitespace_only", R + ["in.txt", "-o", "out.txt"], {"in.txt": b"   \n\t\n  \n"})
    add("text_control_chars", R + ["in.txt", "-o", "out.txt"], {"in.txt": b"hello \x1b[31mred\x1b[0m world\n"}, expect=ANY)
    add("text_nul", R + ["in.txt", "-o", "out.txt"], {"in.txt": b"\x00" * 1000})
    add("text_bad_utf8", R + ["in.txt", "-o", "out.txt"], {"in.txt": b"caf\xe9 au lait\n"})
    # subtitles
    add("srt_huge_hours", R + ["in.srt", "-o", "out.srt"], {"in.srt": srt("99999999999:00:00,000 --> 99999999999:00:05,000")})
    add("srt_bad_timing", R + ["in.srt", "-o", "out.srt"], {"in.srt": srt("00:00:00,000 -> 00:00:05,000")})
    add("vtt_end_before_start", R + ["in.vtt", "-o", "out.vtt"],
        {"in.vtt": b"WEBVTT\n\n00:00:05.000 --> 00:00:01.000\nhello there\n"})
    add("srt_good", R + ["in.srt", "-o", "out.txt"], {"in.srt": srt()}, expect=OK)
    # what INPUT is
    add("input_empty_dir", R + ["d", "-o", "out.ctm"], {"d": lambda d: (d / "d").mkdir()})
    add("input_dir_of_junk", R + ["d", "-o", "out.ctm"], {"d": lambda d: ((d / "d").mkdir(), (d / "d" / "README").write_text("hi"))})
    add("input_dev_zero", R + ["/dev/zero", "-o", "out.ctm"], short=True)
    add("input_dev_null", R + ["/dev/null", "-o", "out.ctm"])
    add("input_process_substitution", ["punct restore <(cat in.ctm) -o out.ctm"], {"in.ctm": GOOD_CTM}, shell=True,
        expect=OK)
    add("input_dev_stdin_pipe", R + ["/dev/stdin", "-o", "out.ctm"], stdin=GOOD_CTM, expect=OK)
    add("input_stdin_empty", R + ["-", "-o", "out.ctm"], stdin=b"")
    add("input_stdin_good", R + ["-", "-o", "out.ctm"], stdin=GOOD_CTM, expect=OK)
    add("input_missing", R + ["nothere.ctm", "-o", "out.ctm"])
    add("input_broken_symlink", R + ["link.ctm", "-o", "out.ctm"], {"link.ctm": symlink("link.ctm", "nowhere.ctm")})
    add("input_through_a_file", R + ["in.ctm/x.ctm", "-o", "out.ctm"], {"in.ctm": GOOD_CTM})
    add("input_unreadable", R + ["in.ctm", "-o", "out.ctm"], {"in.ctm": GOOD_CTM, "mode": chmod("in.ctm", 0)}, expect=ANY)
    add("input_fifo_with_writer", ["mkfifo f.ctm; (cat in.ctm > f.ctm &); punct restore f.ctm -o out.ctm"],
        {"in.ctm": GOOD_CTM}, shell=True, expect=OK)
    # options
    base = {"in.ctm": GOOD_CTM}
    for name, opts in {"threads_100000": ["--threads", "100000"], "threads_0": ["--threads", "0"],
                       "threads_negative": ["--threads", "-1"], "window_1e8": ["--window", "100000000"],
                       "window_1": ["--window", "1"], "window_word": ["--window", "abc"],
                       "batch_1e12": ["--batch-size", "1000000000000"], "bias_nan": ["--bias", "nan", "0", "0"],
                       "bias_inf": ["--bias", "inf", "0", "0"], "weights_nan": ["--weights", "nan"],
                       "input_format_unknown": ["--input-format", "nope"],
                       "output_format_unknown": ["--output-format", "nope"]}.items():
        add(f"restore_{name}", R + ["in.ctm", "-o", "out.ctm", *opts], base, short=name == "threads_100000")
    for name, files in {"dir": {"m": lambda d: (d / "m").mkdir()}, "empty": {"m": b""},
                        "garbage": {"m": os.urandom(4096)}, "text": {"m": b"not a model\n"},
                        "pickle_bomb": {"m": pickle_bomb()}}.items():
        add(f"model_{name}", R + ["in.ctm", "-o", "out.ctm", "--model", "m"], {**base, **files},
            check=absent("PWNED") if name == "pickle_bomb" else None)
    add("model_dev_zero", R + ["in.ctm", "-o", "out.ctm", "--model", "/dev/zero"], base)
    add("weights_from_deep_json", R + ["in.ctm", "-o", "out.ctm", "--weights-from", "w.json"],
        {**base, "w.json": deep_json(100_000)})
    add("weights_from_nan", R + ["in.ctm", "-o", "out.ctm", "--weights-from", "w.json"],
        {**base, "w.json": b'{"weights": [NaN]}'})
    add("segments_dev_zero", R + ["in.ctm", "-o", "out.ctm", "--segments", "/dev/zero"], base)
    add("segments_1e300", R + ["in.ctm", "-o", "out.ctm", "--segments", "segments"],
        {**base, "segments": b"talk talk 0 1e300\n"})
    # outputs
    add("output_is_input", R + ["in.ctm", "-o", "in.ctm"], base, short=True)
    add("output_is_hardlink_of_input", R + ["in.ctm", "-o", "h.ctm"], {**base, "h.ctm": hardlink("h.ctm", "in.ctm")})
    add("output_is_symlink_to_input", R + ["in.ctm", "-o", "s.ctm"], {**base, "s.ctm": symlink("s.ctm", "in.ctm")})
    add("output_in_proc", R + ["in.ctm", "-o", "/proc/no/such/out.ctm"], base)
    add("output_datadir_over_user_folder", R + ["in.ctm", "-o", "mine/", "--output-format", "datadir"],
        {**base, "mine": lambda d: ((d / "mine").mkdir(), (d / "mine" / "notes.txt").write_text("mine"))})
    add("output_unknown_extension", R + ["in.ctm", "-o", "out.xyz"], base)
    add("output_device_node", R + ["in.ctm", "-o", "nulldev", "--output-format", "ctm"],
        {**base, "nulldev": mknod_null("nulldev")}, expect=OK)
    add("output_read_only_folder", R + ["in.ctm", "-o", "ro/out.ctm"],
        {**base, "ro": lambda d: ((d / "ro").mkdir(), os.chmod(d / "ro", 0o555))}, expect=ANY)
    add("output_parent_is_file", R + ["in.ctm", "-o", "in.ctm/out.ctm"], base)
    add("output_is_nonempty_directory", R + ["in.ctm", "-o", "dir.ctm"],
        {**base, "dir.ctm": lambda d: _folder(d / "dir.ctm", {"keep.txt": b"mine\n"})},
        check=unchanged("dir.ctm/keep.txt", b"mine\n"))
    add("output_stale_temp_of_killed_run", R + ["in.ctm", "-o", "out.ctm"],
        {**base, "stale": stale_temp("out.ctm", root)}, expect=OK, short=True)
    for delay in (3.0, 6.0):
        add(f"restore_sigkill_after_{delay:g}s_then_rerun", R + ["in.ctm", "-o", "out.ctm"],
            {"in.ctm": big_ctm(60_000)}, expect=OK, kill_after=delay)
    # score
    S = ["punct", "score"]
    ref_hyp = {"ref.txt": REF_TXT, "hyp.txt": HYP_TXT}
    add("score_good", S + ["ref.txt", "hyp.txt"], ref_hyp, expect=OK, short=True)
    add("score_folder_names_differ", S + ["R", "H"], {"R": lambda d: _folder(d / "R", {"a.txt": REF_TXT, "b.txt": REF_TXT}),
                                                        "H": lambda d: _folder(d / "H", {"c.txt": HYP_TXT, "e.txt": HYP_TXT})},
        short=True)
    add("score_one_file_folders_differ", S + ["R", "H"], {"R": lambda d: _folder(d / "R", {"a.txt": REF_TXT}),
                                                            "H": lambda d: _folder(d / "H", {"b.txt": HYP_TXT})}, short=True)
    add("score_out_dir_user_folder", S + ["ref.txt", "hyp.txt", "--out-dir", "mine"],
        {**ref_hyp, "mine": lambda d: _folder(d / "mine", {"report.txt": b"my own notes\n"})},
        check=unchanged("mine/report.txt", b"my own notes\n"), short=True)
    add("score_out_dir_is_hyp", S + ["ref.txt", "H", "--out-dir", "H"],
        {**ref_hyp, "H": lambda d: _folder(d / "H", {"hyp.txt": HYP_TXT, ".punct-output": b"x\n"})})
    add("score_deep_json_hyp", S + ["ref.txt", "hyp.json"], {"ref.txt": REF_TXT, "hyp.json": deep_json(200_000)}, short=True)
    add("score_deep_object_hyp", S + ["ref.txt", "hyp.json"], {"ref.txt": REF_TXT, "hyp.json": b'{"a":' * 3000 + b"}" * 3000})
    add("score_binary_ref", S + ["ref.txt", "hyp.txt"], {"ref.txt": os.urandom(3000), "hyp.txt": HYP_TXT})
    add("score_dev_zero", S + ["/dev/zero", "hyp.txt"], ref_hyp, short=True)
    add("score_process_substitution", ["punct score --ref-format text <(cat ref.txt) hyp.txt"], ref_hyp, shell=True,
        expect=OK)
    for name, opts in {"bootstrap_0": ["--bootstrap", "0"], "bootstrap_negative": ["--bootstrap", "-5"],
                       "bootstrap_1e12": ["--bootstrap", "1000000000000"], "level_nan": ["--bootstrap", "10", "--level", "nan"],
                       "level_2": ["--bootstrap", "10", "--level", "2"], "block_words_0": ["--bootstrap", "10", "--block-words", "0"],
                       "seed_negative": ["--seed", "-1"]}.items():
        add(f"score_{name}", S + ["ref.txt", "hyp.txt", *opts], ref_hyp, short=name == "level_nan")
    add("score_empty_ref", S + ["ref.txt", "hyp.txt"], {"ref.txt": b"", "hyp.txt": HYP_TXT})
    add("score_ref_marks_only", S + ["ref.txt", "hyp.txt"], {"ref.txt": b". , ? !\n", "hyp.txt": HYP_TXT})
    add("score_ref_empty_dir", S + ["R", "hyp.txt"], {**ref_hyp, "R": lambda d: (d / "R").mkdir()})
    add("score_ctm_1e300", S + ["ref.txt", "hyp.ctm"], {"ref.txt": REF_TXT, "hyp.ctm": b"talk 1 1e300 0.3 so\n"})
    # compare
    C = ["punct", "compare"]
    three = {"ref.txt": REF_TXT, "a.txt": HYP_TXT, "b.txt": HYP_TXT}
    add("compare_good", C + ["ref.txt", "a.txt", "b.txt", "--resamples", "50", "--block-words", "3"], three, expect=OK)
    add("compare_deep_json", C + ["ref.txt", "a.txt", "b.json"], {**three, "b.json": deep_json(100_000)})
    add("compare_resamples_1e12", C + ["ref.txt", "a.txt", "b.txt", "--resamples", "1000000000000"], three)
    add("compare_resamples_0", C + ["ref.txt", "a.txt", "b.txt", "--resamples", "0"], three)
    add("compare_folders_differ", C + ["R", "A", "B"], {"R": lambda d: _folder(d / "R", {"x.txt": REF_TXT}),
                                                        "A": lambda d: _folder(d / "A", {"y.txt": HYP_TXT}),
                                                        "B": lambda d: _folder(d / "B", {"y.txt": HYP_TXT})})
    add("compare_dev_zero", C + ["ref.txt", "a.txt", "/dev/zero"], three)
    # align
    A = ["punct", "align"]
    tr = {"t.txt": b"hello world this is a test\n"}
    add("align_silence", A + ["a.wav", "t.txt", "-o", "out.ctm"], {**tr, "a.wav": wav("silence")})
    add("align_tone", A + ["a.wav", "t.txt", "-o", "out.ctm"], {**tr, "a.wav": wav("tone")})
    add("align_noise", A + ["a.wav", "t.txt", "-o", "out.ctm"], {**tr, "a.wav": wav("noise")})
    add("align_zero_samples", A + ["a.wav", "t.txt", "-o", "out.ctm"], {**tr, "a.wav": wav("empty")})
    add("align_garbage_audio", A + ["a.wav", "t.txt", "-o", "out.ctm"], {**tr, "a.wav": os.urandom(5000)})
    add("align_dev_zero_audio", A + ["/dev/zero", "t.txt", "-o", "out.ctm"], tr)
    add("align_empty_transcript", A + ["a.wav", "t.txt", "-o", "out.ctm"], {"t.txt": b"", "a.wav": wav("tone")})
    add("align_binary_transcript", A + ["a.wav", "t.txt", "-o", "out.ctm"], {"t.txt": os.urandom(2000), "a.wav": wav("tone")})
    add("align_output_is_transcript", A + ["a.wav", "t.txt", "-o", "t.txt"], {**tr, "a.wav": wav("tone")})
    add("align_output_unknown_extension", A + ["a.wav", "t.txt", "-o", "out.json"], {**tr, "a.wav": wav("tone")})
    # training and decoding entry points
    add("train_config_missing", ["bin.train", "--config", "nope.yaml", "--train", "d", "--valid", "d", "--exp", "e"])
    add("train_config_dev_zero", ["bin.train", "--config", "/dev/zero", "--train", "d", "--valid", "d", "--exp", "e"])
    add("train_config_garbage", ["bin.train", "--config", "c.yaml", "--train", "d", "--valid", "d", "--exp", "e"],
        {"c.yaml": b"model: [unclosed\n  - : :\n"})
    add("train_config_deep_yaml", ["bin.train", "--config", "c.yaml", "--train", "d", "--valid", "d", "--exp", "e"],
        {"c.yaml": b"a: " + b"[" * 20000 + b"]" * 20000 + b"\n"})
    add("train_max_epochs_negative", ["bin.train", "--config", "c.yaml", "--exp", "e", "--max-epochs", "-1"])
    add("train_data_is_file", ["bin.train", "--config", str(root / "conf" / "tbrnn.yaml"), "--train", "f", "--valid", "f",
                               "--exp", "e"], {"f": b"x\n"})
    dd = {"d": lambda d: _folder(d / "d", {"text": b"u1 hello world\n", "utt2spk": b"u1 s\n", "spk2utt": b"s u1\n"})}
    add("decode_model_dir", ["bin.decode", "--model", "d", "--data", "d", "--out", "o"], dd)
    add("decode_threads_100000", ["bin.decode", "--model", "m.pt", "--data", "d", "--out", "o", "--threads", "100000"], dd)
    add("decode_window_1e9", ["bin.decode", "--model", "m.pt", "--data", "d", "--out", "o", "--window", "1000000000"], dd)
    add("decode_data_missing", ["bin.decode", "--model", str(root / "models" / "default.pt"), "--data", "nope", "--out", "o"])
    add("decode_out_over_user_folder", ["bin.decode", "--model", str(root / "models" / "default.pt"), "--data", "d",
                                        "--out", "mine"],
        {**dd, "mine": lambda d: _folder(d / "mine", {"notes.txt": b"mine\n"})}, check=unchanged("mine/notes.txt", b"mine\n"))
    # run.sh's options
    for name, opts in {"stage_word": ["--stage", "abc"], "stage_99": ["--stage", "99"],
                       "stop_before_start": ["--stage", "5", "--stop-stage", "2"], "nj_0": ["--nj", "0"],
                       "nj_huge": ["--nj", "99999999999999999999"], "corpus_unknown": ["--corpus", "nope"],
                       "unknown_option": ["--bogus", "1"], "force_maybe": ["--force", "maybe"],
                       "option_without_value": ["--stage"], "equals_form": ["--stage=3"],
                       "train_nproc_0": ["--train-nproc", "0"], "config_dev_zero": ["--config", "/dev/zero"]}.items():
        # run.sh works from its own folder: every path is absolute and inside the case's folder, and
        # the corpus folder does not exist, so that options it lets through stop there, not in a stage
        add(f"run_sh_{name}", ["run.sh", *opts, "--data-root", "{dir}/data", "--exp-root", "{dir}/exp",
                               "--results", "{dir}/RESULTS.md", "--corpus-dir", "{dir}/no_corpus"])
    return out


def _folder(path: Path, files: dict[str, bytes]) -> None:
    path.mkdir()
    for n, c in files.items():
        (path / n).write_bytes(c)


# ----------------------------------------------------------------------------- running

def env_for(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)
    env.update(LC_ALL="C", PYTHONIOENCODING="UTF-8", OMP_NUM_THREADS="1", PUNCT_NO_EXT="1")
    return env


def python_of(root: Path) -> str:
    """The root's own environment (``.venv``), else this interpreter."""
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def command(case: Case, root: Path, d: Path) -> list[str]:
    """The command line of ``case`` run in folder ``d`` (``{dir}`` in it stands for ``d``)."""
    return [x.replace("{dir}", str(d)) for x in _command(case, root)]


def _command(case: Case, root: Path) -> list[str]:
    py = python_of(root)
    if case.shell:
        return ["bash", "-c", case.cmd[0].replace("punct ", f"{py} -m punct ", 1)]
    head, rest = case.cmd[0], case.cmd[1:]
    if head == "punct":
        return [py, "-m", "punct", *rest]
    if head.startswith("bin."):
        return [py, "-m", f"punct.{head}", *rest]
    if head == "run.sh":
        return ["bash", str(root / "run.sh"), *rest]
    raise ValueError(head)


def snapshot(d: Path) -> dict[str, tuple[str, str]]:
    """Every path under ``d`` (links not followed): its kind and, for a file, its SHA-256."""
    out = {}
    for p in sorted(d.rglob("*")):
        try:
            st = os.lstat(p)
        except OSError:
            continue
        rel = str(p.relative_to(d))
        if stat.S_ISREG(st.st_mode):
            try:
                out[rel] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
            except OSError:
                out[rel] = ("file", "unreadable")
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", "")
        elif stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p))
        else:
            out[rel] = ("special", oct(stat.S_IFMT(st.st_mode)))
    return out


def judge(case: Case, rc: int | None, stderr: str) -> list[str]:
    """What is wrong with one finished run (empty: nothing)."""
    problems = []
    if rc is None:
        return ["hang (timeout)"]
    if "Traceback (most recent call last)" in stderr:
        last = [x for x in stderr.splitlines() if x.strip()][-1:]
        problems.append(f"traceback: {last[0][:100] if last else ''}")
    if rc < 0 or rc >= 128 + 1 and rc != 130:
        problems.append(f"crash (signal {-rc if rc < 0 else rc - 128})")
    other = [x for x in stderr.splitlines() if x.strip() and not LOG_LINE.match(x)
             and not x.startswith((" ", "\t")) and "it/s]" not in x and "s/it]" not in x]
    run_sh = case.cmd[0] == "run.sh"
    if rc == 0:
        if case.expect == ERROR:
            problems.append("exit 0 on bad input (silent wrong result?)")
        if other and not problems:
            problems.append(f"stray stderr: {other[0][:100]}")
    elif not problems:
        if case.expect == OK:
            problems.append(f"refused good input: {(other or ['?'])[-1][:100]}")
        elif run_sh:
            if len(other) != 1:
                problems.append(f"{len(other)} stderr lines, expected 1")
        elif len(other) != 1 or not other[0].startswith("error:"):
            problems.append(f"not one error line: {' | '.join(o[:60] for o in other[:3])}")
    return problems


def run_case(case: Case, root: Path, base: Path) -> dict:
    d = base / re.sub(r"\W", "_", case.name)
    d.mkdir(parents=True)
    for name, content in case.files.items():
        if callable(content):
            content(d)
        else:
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            (d / name).write_bytes(content)
    before = snapshot(d)
    cmd = command(case, root, d)
    env = dict(env_for(root), PATH=f"{Path(python_of(root)).parent}:{os.environ.get('PATH', '')}")
    t0 = time.time()
    problems: list[str] = []
    if case.kill_after is not None:
        p = subprocess.Popen(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(case.kill_after)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    try:
        r = subprocess.run(cmd, cwd=d, env=env, input=case.stdin if case.stdin is not None else b"",
                           capture_output=True, timeout=case.timeout)
        rc, stderr = r.returncode, r.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, stderr = None, (e.stderr or b"").decode("utf-8", "replace")
    problems += judge(case, rc, stderr)
    after = snapshot(d)
    for rel, (kind, digest) in before.items():
        if TEMP_NAME.match(Path(rel).name):  # a killed run's leftover: to be removed, not kept
            continue
        if rel not in after:
            problems.append(f"input removed: {rel}")
        elif after[rel] != (kind, digest) and not (kind == "dir" and after[rel][0] == "dir"):
            problems.append(f"input changed: {rel}")
    leftovers = [rel for rel in after if TEMP_NAME.match(Path(rel).name)]
    if leftovers:
        problems.append(f"leftover temporary file: {leftovers[0]}")
    if case.check is not None and (msg := case.check(d)):
        problems.append(msg)
    for p in [d, *d.rglob("*")]:  # let the cleanup remove what a case made read-only
        if p.is_dir() and not p.is_symlink():
            os.chmod(p, 0o755)
    return {"name": case.name, "group": case.group, "rc": rc, "problems": problems, "seconds": time.time() - t0,
            "stderr": stderr}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose punct runs (default: this one)")
    ap.add_argument("--short", action="store_true", help="only the quick subset (the test suite's)")
    ap.add_argument("--only", default=None, help="only cases whose name matches this regular expression")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    ap.add_argument("--json", default=None, help="also write every result to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line for every case, not only failed ones")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    todo = [c for c in cases(root) if (not args.short or c.short) and (not args.only or re.search(args.only, c.name))]
    base = Path(tempfile.mkdtemp(prefix="punct-hostile-"))
    try:
        results = []
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for r in pool.map(lambda c: run_case(c, root, base), todo):  # told as they finish, in order
                results.append(r)
                if args.verbose or r["problems"]:
                    print(f"{'FAIL' if r['problems'] else 'ok  '} {r['name']:<40} rc={r['rc']} "
                          f"{'; '.join(r['problems'])}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    groups: dict[str, list[int]] = {}
    for r in results:
        g = groups.setdefault(r["group"], [0, 0])
        g[1 if r["problems"] else 0] += 1
    print(f"\n{'command':<12} {'cases':>6} {'clean':>6} {'failed':>7}")
    for g, (ok, bad) in sorted(groups.items()):
        print(f"{g:<12} {ok + bad:>6} {ok:>6} {bad:>7}")
    n_bad = sum(1 for r in results if r["problems"])
    print(f"{'total':<12} {len(results):>6} {len(results) - n_bad:>6} {n_bad:>7}   (punct of {root})")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return min(n_bad, 100)


if __name__ == "__main__":
    sys.exit(main())
