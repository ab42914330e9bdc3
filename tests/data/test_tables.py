"""punct.data.tables: Kaldi table files read and written, every fault named by file and line."""
from __future__ import annotations

import math

import pytest

from punct.errors import PunctError
from punct.data.tables import (Segment, finite_number, iter_table, read_segments, read_table, spk2utt_from_utt2spk,
                          write_table)


def test_iter_table_gives_line_numbers_keys_and_the_rest(tmp_path):
    p = tmp_path / "t"
    p.write_text("a  x y \nb\nc z\n")
    assert list(iter_table(p)) == [(1, "a", "x y"), (2, "b", ""), (3, "c", "z")]


@pytest.mark.parametrize("content,sorted_keys,message", [
    ("a 1\n\nb 2\n", True, r"t:2: empty line"),
    ("a 1\na 2\n", True, r"t:2: duplicate key 'a'"),
    ("b 1\na 2\n", True, r"t:2: key 'a' out of order \(files must be sorted with LC_ALL=C\)"),
    ("b 1\na 2\nb 3\n", False, r"t:3: duplicate key 'b'"),
    # byte order, not the locale's: upper case sorts before lower case
    ("a 1\nB 2\n", True, r"t:2: key 'B' out of order"),
])
def test_iter_table_faults(tmp_path, content, sorted_keys, message):
    p = tmp_path / "t"
    p.write_text(content)
    with pytest.raises(PunctError, match=message):
        list(iter_table(p, sorted_keys=sorted_keys))


def test_an_unsorted_table_is_read_when_allowed(tmp_path):
    p = tmp_path / "t"
    p.write_text("b 1\na 2\n")
    assert [k for _, k, _ in iter_table(p, sorted_keys=False)] == ["b", "a"]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(PunctError, match="nope: file not found"):
        read_table(tmp_path / "nope")
    with pytest.raises(PunctError, match="is a directory, not a file"):
        read_table(tmp_path)


def test_read_table_min_fields(tmp_path):
    p = tmp_path / "t"
    p.write_text("a 1 2\nb\n")
    assert read_table(p, min_fields=2) == [("a", ["1", "2"], 1), ("b", [], 2)]
    with pytest.raises(PunctError, match=r"t:2: expected a key and at least 2 value\(s\), got 0"):
        read_table(p, min_fields=2, allow_empty_value=False)


def test_write_table_sorts_in_byte_order_and_reads_back(tmp_path):
    p = tmp_path / "t"
    write_table(p, {"b": ["x", "y"], "B": "z", "a": []})
    assert p.read_text() == "B z\na\nb x y\n"
    assert read_table(p) == [("B", ["z"], 1), ("a", [], 2), ("b", ["x", "y"], 3)]


@pytest.mark.parametrize("key", ["", "a b", "a\tb"])
def test_write_table_refuses_bad_keys_and_leaves_the_old_file(tmp_path, key):
    p = tmp_path / "t"
    p.write_text("old 1\n")
    with pytest.raises(PunctError, match="invalid key"):
        write_table(p, {"ok": "1", key: "2"})
    assert p.read_text() == "old 1\n"


def test_finite_number():
    assert finite_number("1.5", "start", "f", 3) == 1.5
    with pytest.raises(PunctError, match=r"f:3: start 'x' is not a number"):
        finite_number("x", "start", "f", 3)
    with pytest.raises(PunctError, match=r"f:3: start 'inf' is not a finite number"):
        finite_number("inf", "start", "f", 3)


def test_segments_open_end_and_any_order_when_allowed(tmp_path):
    p = tmp_path / "segments"
    p.write_text("u2 r 5 -1\nu1 r 0 5\n")
    segs = read_segments(p, sorted_keys=False)
    assert segs == {"u2": Segment("u2", "r", 5.0, -1.0), "u1": Segment("u1", "r", 0.0, 5.0)}
    assert segs["u2"].stop == math.inf and segs["u1"].stop == 5.0
    with pytest.raises(PunctError, match=r"segments:2: key 'u1' out of order"):
        read_segments(p)


def test_an_empty_segments_file_is_an_error(tmp_path):
    p = tmp_path / "segments"
    p.write_text("")
    with pytest.raises(PunctError, match="no segments in it"):
        read_segments(p)


def test_spk2utt_groups_utterances_in_byte_order():
    assert spk2utt_from_utt2spk({"u2": "s1", "U1": "s2", "u1": "s1"}) == {"s2": ["U1"], "s1": ["u1", "u2"]}
