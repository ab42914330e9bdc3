"""Data directories cut into parts for parallel jobs (Kaldi's ``utils/split_data.sh``) and
into subsets (``utils/subset_data_dir.sh``), and the jobs' outputs merged back: the library
behind ``python -m punct.bin.datadir_tools split|subset|merge-tables``, whose help says how
parts are balanced and what a subset keeps, and behind the stages that run parallel jobs
(``punct.bin.align``, ``punct.bin.asr_decode``, ``punct.bin.prosody_feats``).
"""
from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from punct.audio import audio_duration
from punct.data.datadir import validate_datadir
from punct.errors import PunctError
from punct.fsutil import atomic_dir, atomic_write, check_replaceable, iter_lines, mark_done, write_json
from punct.data.datadir import UTT_FILES
from punct.text.labels import LABELS
from punct.data.tables import read_segments, read_table, read_wav_scp, spk2utt_from_utt2spk, write_table

log = logging.getLogger(__name__)

#: Tables keyed by utterance that a split cuts (feature scp files are found by suffix).
#: The data directory's own files (punct.data.datadir.UTT_FILES) and those other tools add.
UTT_TABLES = UTT_FILES + ("word_conf", "utt2dur")


def _weights(d: Path, utts: list[str], reco_of: dict[str, str], words: dict[str, int]) -> dict[str, float]:
    """Per utterance: duration in seconds when it can be known cheaply, else its word count."""
    if (d / "segments").is_file():
        segs = read_segments(d / "segments")
        return {u: max(segs[u].end - segs[u].start, 0.01) if segs[u].end > 0 else 1.0 for u in utts}
    if (d / "wav.scp").is_file():
        wav = read_wav_scp(d / "wav.scp")
        durs = {u: audio_duration(wav[reco_of[u]]) if reco_of[u] in wav else None for u in utts}
        if all(v is not None for v in durs.values()):
            return {u: float(v) for u, v in durs.items()}
    return {u: float(words.get(u, 0) + 1) for u in utts}


def split_datadir(data: str | Path, nj: int, by: str = "recording") -> list[Path]:
    """Write ``data/split<nj>/1..nj`` (see the module docstring); return the part directories."""
    d = Path(data)
    if nj < 1:
        raise PunctError(f"--nj must be at least 1, got {nj}")
    cutter = _Cutter(d)
    text = cutter.rows["text"]
    utts = list(text)
    words = {k: len(v) for k, v in text.items()}
    reco_of = {u: cutter.reco_of.get(u, u) for u in utts}
    utt2spk = {k: v[0] for k, v in cutter.rows.get("utt2spk", {}).items()}
    if by == "recording":
        unit_of = reco_of
    elif by == "speaker":
        unit_of = {u: utt2spk.get(u, u) for u in utts}
    else:
        raise PunctError(f"--by must be 'recording' or 'speaker', got {by!r}")
    units: dict[str, list[str]] = {}
    for u in utts:
        units.setdefault(unit_of[u], []).append(u)
    if nj > len(units):
        raise PunctError(f"cannot split {len(units)} {by}s into {nj} jobs; use --nj {len(units)} or fewer", d)
    w = _weights(d, utts, reco_of, words)
    load = [0.0] * nj
    parts: list[set[str]] = [set() for _ in range(nj)]
    for name, members in sorted(units.items(), key=lambda kv: (-sum(w[u] for u in kv[1]), kv[0].encode())):
        j = min(range(nj), key=lambda i: (load[i], i))
        parts[j].update(members)
        load[j] += sum(w[u] for u in members)
    top = d / f"split{nj}"
    out = []
    with atomic_dir(top, ours=lambda p: (p / ".done").is_file()) as tmp:  # an earlier split's
        for j, members in enumerate(parts, 1):
            pd = tmp / str(j)
            pd.mkdir()
            cutter.write(pd, members)
            out.append(top / str(j))
    mark_done(top)
    log.info("%s: %d utterances in %d %ss -> %d parts (loads %s)", d, len(utts), len(units), by, nj,
             ", ".join(f"{x:.1f}" for x in load))
    return out


class _Cutter:
    """A data directory's tables, read once (``rows``: table -> key -> fields; ``text`` is
    required), and the part of it that a set of its utterances makes: every utterance-keyed
    table cut to them, ``wav.scp`` to their recordings, ``spk2utt``."""

    def __init__(self, d: Path):
        self.d = d
        self.tables = [t for t in UTT_TABLES if t == "text" or (d / t).is_file()] + sorted(
            p.name for p in d.glob("*.scp") if p.name != "wav.scp")
        self.rows = {t: {k: v for k, v, _ in read_table(d / t)} for t in self.tables}
        #: utterance -> recording, for the utterances that ``segments`` places (the others are their own)
        self.reco_of = {k: v[0] for k, v in self.rows.get("segments", {}).items()}
        self.wav = None
        if (d / "wav.scp").is_file():
            self.wav = read_wav_scp(d / "wav.scp")

    def write(self, out: Path, members: set[str]) -> None:
        for t in self.tables:
            write_table(out / t, {k: v for k, v in self.rows[t].items() if k in members})
        if self.wav is not None:
            recos = {self.reco_of.get(u, u) for u in members}
            missing = sorted(r for r in recos if r not in self.wav)
            if missing:
                raise PunctError(f"recording {missing[0]!r} has no wav.scp entry", self.d / "wav.scp")
            write_table(out / "wav.scp", {r: self.wav[r] for r in recos})
        if "utt2spk" in self.tables:
            write_table(out / "spk2utt",
                        spk2utt_from_utt2spk({k: v[0] for k, v in self.rows["utt2spk"].items() if k in members}))


def _keys(path: str | Path) -> set[str]:
    """The keys (first fields) of a table or utterance list."""
    keys = set()
    for _, line in iter_lines(path):
        if line.strip():
            keys.add(line.split()[0])
    if not keys:
        raise PunctError("no utterance ids in it", path)
    return keys


def _made_by_subset(path: Path) -> bool:
    """A directory an earlier ``subset`` wrote before atomic_dir marked its outputs."""
    try:
        return "selection" in json.loads((path / "stats.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False


def subset_datadir(data: str | Path, out: str | Path, utt_list: str | Path | None = None,
                   exclude: str | Path | None = None, first: int | None = None, last: int | None = None,
                   words: int | None = None) -> dict:
    """Write the chosen utterances of ``data`` into ``out`` (see the module docstring) and
    mark it done; returns what was kept (utterances, words, and the label counts when labelled)."""
    d, out = Path(data), Path(out)
    if out.resolve() == d.resolve():
        raise PunctError("the subset must go to another directory than its source", out)
    if first is not None and last is not None:
        raise PunctError("--first and --last exclude each other")
    for name, n in (("--first", first), ("--last", last), ("--words", words)):
        if n is not None and n < 1:
            raise PunctError(f"{name} must be at least 1, got {n}")
    check_replaceable(out, _made_by_subset)
    validate_datadir(d, require_labels=False)  # a bad line is told by its place in the source, not in the cut copy
    cutter = _Cutter(d)
    text = cutter.rows["text"]
    utts = list(text)
    if utt_list is not None:
        wanted = _keys(utt_list)
        unknown = sorted(wanted - set(utts))
        if unknown:
            raise PunctError(f"utterance {unknown[0]!r} is not in {d / 'text'} ({len(unknown)} such)", utt_list)
        utts = [u for u in utts if u in wanted]
    if exclude is not None:
        dropped = _keys(exclude)
        utts = [u for u in utts if u not in dropped]
    if first is not None:
        utts = utts[:first]
    elif last is not None:
        utts = utts[-last:]
    if words is not None:
        kept, total = [], 0
        for u in utts:
            if total >= words:
                break
            kept.append(u)
            total += len(text[u])
        utts = kept
    if not utts:
        raise PunctError("no utterance is left by these options", d)
    members = set(utts)
    labelled = "labels" in cutter.rows
    with atomic_dir(out, ours=_made_by_subset) as tmp:
        cutter.write(tmp, members)
        n = validate_datadir(tmp, require_labels=labelled)
        stats = {"utterances": len(utts), "words": n, "source": str(d),
                 "selection": {k: v for k, v in (("utt_list", utt_list and str(utt_list)),
                                                 ("exclude", exclude and str(exclude)), ("first", first),
                                                 ("last", last), ("words", words)) if v is not None}}
        if labelled:
            counts = Counter(lab for u in utts for lab in cutter.rows["labels"][u])
            vocab = Counter(w for u in utts for w in text[u])
            stats.update(labels={lab: counts.get(lab, 0) for lab in LABELS}, types=len(vocab),
                         types_min2=sum(1 for c in vocab.values() if c >= 2))
            write_json(tmp / "stats.json", stats, indent=2)
    mark_done(out)
    log.info("%s -> %s: %d of %d utterances, %d words", d, out, len(utts), len(text), n)
    return stats


def merge_tables(parts: Sequence[str | Path], out: str | Path) -> int:
    """Union of ``key value...`` tables with disjoint keys, written sorted; returns the number of keys."""
    rows: dict[str, list[str]] = {}
    for p in parts:
        for k, v, n in read_table(p):
            if k in rows:
                raise PunctError(f"key {k!r} is in more than one part", p, n)
            rows[k] = v
    write_table(out, rows)
    return len(rows)


def merge_ctms(parts: Sequence[str | Path], out: str | Path) -> int:
    """Concatenate CTMs, sorted by file, channel and start time (NIST order); returns the line count."""
    lines = []
    for p in parts:
        with open(p, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip() or line.startswith(";;"):
                    continue
                fields = line.split()
                try:
                    start = float(fields[2])
                except (IndexError, ValueError):
                    raise PunctError("expected 'file channel start duration word [conf]'", p, n) from None
                lines.append(((fields[0].encode(), fields[1].encode(), start), line if line.endswith("\n") else line + "\n"))
    lines.sort(key=lambda x: x[0])
    with atomic_write(out) as f:
        f.writelines(line for _, line in lines)
    return len(lines)


def sum_reports(reports: Iterable[dict]) -> dict:
    """Add up job reports: numbers are summed, lists concatenated, dicts of numbers summed per key."""
    total: dict = {}
    for r in reports:
        for k, v in r.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, list, dict)):
                total.setdefault(k, v)
            elif isinstance(v, list):
                total[k] = total.get(k, []) + v
            elif isinstance(v, dict):
                acc = total.setdefault(k, {})
                for kk, vv in v.items():
                    acc[kk] = acc.get(kk, 0) + vv
            else:
                total[k] = round(total.get(k, 0) + v, 6)
    return total


def read_reports(paths: Iterable[str | Path]) -> list[dict]:
    """The JSON job reports at PATHS; a missing or broken one is a PunctError naming it."""
    out = []
    for p in paths:
        try:
            out.append(json.loads(Path(p).read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise PunctError("job report not found (did the job finish?)", p) from None
        except json.JSONDecodeError as e:
            raise PunctError(f"job report is not valid JSON ({e.msg})", p, e.lineno) from None
    return out


def part_dirs(out: str | Path, nj: int) -> list[Path]:
    """``out/part.1 .. out/part.nj`` (the per-job output directories of a stage)."""
    return [Path(out) / f"part.{j}" for j in range(1, nj + 1)]


def move_tree_files(parts: Sequence[Path], sub: str, out: Path) -> int:
    """Move the files of ``part/sub/`` of every part into ``out/sub/`` (TextGrids)."""
    n = 0
    dest = out / sub
    dest.mkdir(parents=True, exist_ok=True)
    for p in parts:
        src = p / sub
        if not src.is_dir():
            continue
        for f in src.iterdir():
            shutil.move(str(f), dest / f.name)
            n += 1
    return n
