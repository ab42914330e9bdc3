"""punct.data.splits: a data directory split into balanced parts of whole recordings or speakers,
the parts' tables and CTMs merged back, subsets by list, exclusion, count and words, and the
job reports added up."""
from __future__ import annotations

import pytest

from punct.bin.datadir_tools import main
from punct.data.datadir import validate_datadir
from punct.data.splits import merge_ctms, merge_tables, split_datadir, subset_datadir, sum_reports
from punct.data.tables import read_table
from punct.errors import PunctError
from tests.data.sample_dirs import make


def test_split_merge_round_trip(tmp_path):
    d = make(tmp_path / "data")
    parts = split_datadir(d, 3)
    assert [p.name for p in parts] == ["1", "2", "3"] and (d / "split3" / ".done").exists()
    seen = {}
    for p in parts:
        validate_datadir(p)
        recos = {v[0] for _, v, _ in read_table(p / "segments")}
        assert recos == {k for k, _, _ in read_table(p / "wav.scp")}  # whole recordings, their wav.scp lines
        for k, _, _ in read_table(p / "text"):
            assert k not in seen
            seen[k] = p.name
    sizes = sorted(len(read_table(p / "text")) for p in parts)
    assert sizes == [3, 6, 6]  # 5 recordings of equal length over 3 parts
    for name in ("text", "labels", "word_times", "segments", "utt2spk"):
        merge_tables([p / name for p in parts], tmp_path / name)
        assert (tmp_path / name).read_text() == (d / name).read_text()


def test_split_by_speaker_and_errors(tmp_path, capsys):
    d = make(tmp_path / "data")
    parts = split_datadir(d, 2, by="speaker")
    assert {tuple(sorted({v[0] for _, v, _ in read_table(p / "utt2spk")})) for p in parts} == {("spk0",), ("spk1",)}
    with pytest.raises(PunctError, match="cannot split 2 speakers into 3 jobs"):
        split_datadir(d, 3, by="speaker")
    assert main(["split", "--nj", "9", str(d)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and "cannot split 5 recordings into 9 jobs" in err[-1]


def test_merge_rejects_a_key_in_two_parts(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("u1 x\nu2 y\n")
    b.write_text("u2 z\n")
    with pytest.raises(PunctError, match="key 'u2' is in more than one part"):
        merge_tables([a, b], tmp_path / "out")


def test_merge_ctms_sorts_and_reports_add_up(tmp_path):
    a, b = tmp_path / "a.ctm", tmp_path / "b.ctm"
    a.write_text("r2 1 0.50 0.10 x 0.9\nr1 1 1.00 0.10 y\n")
    b.write_text("r1 1 0.20 0.10 z 0.5\n")
    assert merge_ctms([a, b], tmp_path / "m.ctm") == 3
    assert [l.split()[4] for l in (tmp_path / "m.ctm").read_text().splitlines()] == ["z", "y", "x"]
    assert sum_reports([{"words": 2, "failed": ["u1"], "lts": {"a": 1}, "tracker": "yinfft"},
                        {"words": 3, "failed": [], "lts": {"a": 1, "b": 2}, "tracker": "yinfft"}]) == \
        {"words": 5, "failed": ["u1"], "lts": {"a": 2, "b": 2}, "tracker": "yinfft"}


def test_subset_by_list_exclusion_count_and_words(tmp_path):
    import json

    d = make(tmp_path / "data")  # 15 utterances in 5 recordings: 5 of 5 words, 10 of 2
    keys = [k for k, _, _ in read_table(d / "text")]
    (tmp_path / "list").write_text(f"{keys[0]}\n{keys[3]} anything after the key\n{keys[4]}\n")
    stats = subset_datadir(d, tmp_path / "a", utt_list=tmp_path / "list")
    a = tmp_path / "a"
    assert [k for k, _, _ in read_table(a / "text")] == [keys[0], keys[3], keys[4]] and (a / ".done").exists()
    validate_datadir(a)
    for per_word in ("written", "word_speakers", "word_times"):  # every per-word file comes along
        assert [k for k, _, _ in read_table(a / per_word)] == [keys[0], keys[3], keys[4]], per_word
    assert {k for k, _, _ in read_table(a / "wav.scp")} == {v[0] for _, v, _ in read_table(a / "segments")}
    assert (a / "spk2utt").read_text().split()[1:] == [keys[0], keys[3], keys[4]]  # all of spk0
    assert stats == json.loads((a / "stats.json").read_text())
    assert stats["words"] == sum(len(v) for k, v, _ in read_table(d / "text") if k in (keys[0], keys[3], keys[4]))
    assert stats["labels"]["PERIOD"] == 3 and stats["selection"] == {"utt_list": str(tmp_path / "list")}
    # the complement, then its last 2; the leading utterances until 6 words (the last one whole)
    subset_datadir(d, tmp_path / "b", exclude=a / "text", last=2)
    rest = [k for k in keys if k not in (keys[0], keys[3], keys[4])]
    assert [k for k, _, _ in read_table(tmp_path / "b" / "text")] == rest[-2:]
    w = subset_datadir(d, tmp_path / "c", words=6)
    first = [len(v) for _, v, _ in read_table(d / "text")]
    n = next(i for i in range(1, len(first) + 1) if sum(first[:i]) >= 6)
    assert w["utterances"] == n and w["words"] == sum(first[:n]) >= 6 > sum(first[:n - 1])
    assert main(["subset", "--first", "2", str(d), str(tmp_path / "e")]) == 0
    assert len(read_table(tmp_path / "e" / "text")) == 2


def test_a_split_needs_a_job_and_a_known_unit(tmp_path):
    d = make(tmp_path / "data")
    with pytest.raises(PunctError, match="--nj must be at least 1, got 0"):
        split_datadir(d, 0)
    with pytest.raises(PunctError, match="--by must be 'recording' or 'speaker', got 'word'"):
        split_datadir(d, 2, by="word")


def test_job_reports_are_read_and_a_missing_or_broken_one_is_named(tmp_path):
    from punct.data.splits import part_dirs, read_reports

    parts = part_dirs(tmp_path / "exp", 2)
    assert parts == [tmp_path / "exp" / "part.1", tmp_path / "exp" / "part.2"]
    for p, n in zip(parts, (1, 2)):
        p.mkdir(parents=True)
        (p / "report.json").write_text(f'{{"words": {n}}}')
    assert sum_reports(read_reports(p / "report.json" for p in parts)) == {"words": 3}
    (parts[1] / "report.json").write_text('{"words":\n')
    with pytest.raises(PunctError, match=r"part.2/report.json:2: job report is not valid JSON"):
        read_reports(p / "report.json" for p in parts)
    (parts[1] / "report.json").unlink()
    with pytest.raises(PunctError, match=r"part.2/report.json: job report not found \(did the job finish\?\)"):
        read_reports(p / "report.json" for p in parts)


def test_the_parts_files_of_a_folder_move_into_one(tmp_path):
    from punct.data.splits import move_tree_files, part_dirs

    parts = part_dirs(tmp_path, 3)
    for p, names in zip(parts, (["u1.TextGrid", "u2.TextGrid"], ["u3.TextGrid"], [])):
        (p / "textgrid").mkdir(parents=True)
        for n in names:
            (p / "textgrid" / n).write_text(n)
    assert move_tree_files(parts + [tmp_path / "part.9"], "textgrid", tmp_path / "all") == 3
    assert sorted(f.name for f in (tmp_path / "all" / "textgrid").iterdir()) == ["u1.TextGrid", "u2.TextGrid",
                                                                                  "u3.TextGrid"]
    assert all(not list((p / "textgrid").iterdir()) for p in parts)


def test_a_ctm_line_without_a_start_time_is_named(tmp_path):
    (tmp_path / "a.ctm").write_text(";; a comment\nr1 1 0.5 0.1 x\nr1 1 soon 0.1 y\n")
    with pytest.raises(PunctError, match=r"a.ctm:3: expected 'file channel start duration word \[conf\]'"):
        merge_ctms([tmp_path / "a.ctm"], tmp_path / "m.ctm")
    assert not (tmp_path / "m.ctm").exists()
