"""Split a data directory into parts for parallel jobs, take a subset of it, merge the
jobs' outputs, validate.

    python -m punct.bin.datadir_tools split --nj 4 data/ljspeech/train      # -> data/ljspeech/train/split4/{1..4}
    python -m punct.bin.datadir_tools subset --words 150000 data/iwslt2011/dev2012 data/iwslt2011/dev2012_a
    python -m punct.bin.datadir_tools subset --exclude data/iwslt2011/dev2012_a/text data/iwslt2011/dev2012 OUT
    python -m punct.bin.datadir_tools overlap [--record] data/iwslt2011/iwslt_148k data/iwslt2011/test2011 ...
    python -m punct.bin.datadir_tools merge-tables --out DIR/word_times PART/word_times...
    python -m punct.bin.datadir_tools validate [--no-labels] DIR

``split`` keeps every recording (or, with ``--by speaker``, every speaker) in one
part and balances the parts by audio duration (``segments`` spans, else the
audio file headers, else the number of words): the largest units first, each to
the part with least so far. Every utterance-keyed table of the directory
(``text labels utt2spk segments word_times word_conf`` and feature ``*.scp``)
is cut to the part's utterances, ``wav.scp`` to its recordings, and ``spk2utt``
is made from ``utt2spk``. Parts are written under a temporary name and
renamed into place, then ``splitN/.done`` is written.

``subset`` (Kaldi's ``utils/subset_data_dir.sh``) writes the chosen utterances
into a new directory, cut the same way: those of ``--utt-list`` (the keys of any
table), less those of ``--exclude``, then the first or last N of them (``--first``,
``--last``, in key order, which is the order of every table), then the leading ones
until ``--words`` words are reached. A labelled directory gets a ``stats.json`` of
its own (words, label counts, vocabulary, and where it came from).

``overlap`` measures how much of each held-out directory's text a training directory
holds (``punct.overlap``: the share of the held-out set's distinct 12-word n-grams found
in the training text, and the utterances more than half of whose n-grams are there, a test
talk copied into the training text), prints one line per held-out set, and with
``--record`` adds the figures to the training directory's ``stats.json`` under
``heldout_overlap``, where the RESULTS data table reads them, as prepare.py records its
own training sets'.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
from pathlib import Path
from typing import Iterable, Sequence

from punct.bin.common import ArgumentParser, add_common, require_inputs, run

log = logging.getLogger("punct.bin.datadir_tools")

#: Tables keyed by utterance that a split cuts (feature scp files are found by suffix).
UTT_TABLES = ("text", "labels", "utt2spk", "segments", "word_times", "word_conf", "utt2dur")


# ---------------------------------------------------------------- library


def _weights(d: Path, utts: list[str], reco_of: dict[str, str], words: dict[str, int]) -> dict[str, float]:
    """Per utterance: duration in seconds when it can be known cheaply, else its word count."""
    from punct.audio import audio_duration
    from punct.tables import read_segments, read_wav_scp

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
    from punct.errors import PunctError
    from punct.fsutil import atomic_dir, mark_done

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
        from punct.tables import read_table

        self.d = d
        self.tables = [t for t in UTT_TABLES if t == "text" or (d / t).is_file()] + sorted(
            p.name for p in d.glob("*.scp") if p.name != "wav.scp")
        self.rows = {t: {k: v for k, v, _ in read_table(d / t)} for t in self.tables}
        #: utterance -> recording, for the utterances that ``segments`` places (the others are their own)
        self.reco_of = {k: v[0] for k, v in self.rows.get("segments", {}).items()}
        self.wav = None
        if (d / "wav.scp").is_file():
            from punct.tables import read_wav_scp

            self.wav = read_wav_scp(d / "wav.scp")

    def write(self, out: Path, members: set[str]) -> None:
        from punct.errors import PunctError
        from punct.tables import spk2utt_from_utt2spk, write_table

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
    from punct.errors import PunctError
    from punct.fsutil import iter_lines

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
    from collections import Counter

    from punct.datadir import validate_datadir
    from punct.errors import PunctError
    from punct.fsutil import atomic_dir, check_replaceable, mark_done, write_json

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
            from punct.labels import LABELS

            stats.update(labels={lab: counts.get(lab, 0) for lab in LABELS}, types=len(vocab),
                         types_min2=sum(1 for c in vocab.values() if c >= 2))
            write_json(tmp / "stats.json", stats, indent=2)
    mark_done(out)
    log.info("%s -> %s: %d of %d utterances, %d words", d, out, len(utts), len(text), n)
    return stats


def overlap_datadirs(train: str | Path, heldout: Sequence[str | Path], n: int = 12, record: bool = False) -> dict:
    """``punct.overlap.heldout_overlap`` of each HELDOUT directory against TRAIN, keyed by the
    held-out directory's name; with ``record``, merged into TRAIN/stats.json's ``heldout_overlap``."""
    from punct.datadir import load_utterances
    from punct.errors import PunctError
    from punct.fsutil import write_json
    from punct.overlap import heldout_overlap

    train = Path(train)
    names = [Path(h).name for h in heldout]
    if len(set(names)) != len(names):
        raise PunctError("two held-out directories have the same name; their figures would share a key")
    stats_path = train / "stats.json"
    stats = None
    if record:  # a stats.json that cannot take the figures fails before the long part
        if not stats_path.is_file():
            raise PunctError("no stats.json to record the overlap in", stats_path)
        try:
            stats = json.loads(stats_path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise PunctError(f"not valid JSON: {e}", stats_path) from None
        if not isinstance(stats, dict):
            raise PunctError("not a JSON object", stats_path)
    held = {name: load_utterances(h, require_labels=False) for name, h in zip(names, heldout)}  # the words alone
    train_utts = load_utterances(train, require_labels=False)
    out = {}
    for name, utts in held.items():
        ov = heldout_overlap(utts, train_utts, n=n)
        out[name] = ov
        print(f"{name}: {ov['shared']} of its {ov['ngrams']} distinct {ov['n']}-grams ({ov['shared_pct']:.2f}%) are in "
              f"{train}; {ov['utterances_seen']} of its {ov['utterances']} utterances have more than half of theirs there")
    if stats is not None:
        old = stats.get("heldout_overlap") if isinstance(stats.get("heldout_overlap"), dict) else {}
        stats["heldout_overlap"] = {**old, **out}
        write_json(stats_path, stats, indent=2)
        log.info("recorded in %s", stats_path)
    return out


def merge_tables(parts: Sequence[str | Path], out: str | Path) -> int:
    """Union of ``key value...`` tables with disjoint keys, written sorted; returns the number of keys."""
    from punct.errors import PunctError
    from punct.tables import read_table, write_table

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
    from punct.errors import PunctError
    from punct.fsutil import atomic_write

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
    from punct.errors import PunctError

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


# ---------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.datadir_tools", description=__doc__.splitlines()[0])
    add_common(p)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split", help="split a data directory into DIR/splitN/1..N")
    s.add_argument("--nj", type=int, required=True, help="number of parts")
    s.add_argument("--by", choices=("recording", "speaker"), default="recording",
                   help="keep each recording (default) or each speaker in one part")
    s.add_argument("data", help="data directory")
    add_common(s)
    u = sub.add_parser("subset", help="write some utterances of a data directory into a new one")
    u.add_argument("--utt-list", help="keep these utterances (the first field of each line: any table will do)")
    u.add_argument("--exclude", help="leave out these utterances (the same format)")
    g = u.add_mutually_exclusive_group()
    g.add_argument("--first", type=int, help="the first N utterances (in key order)")
    g.add_argument("--last", type=int, help="the last N utterances")
    u.add_argument("--words", type=int, help="the leading utterances until N words are reached (the last whole)")
    u.add_argument("data", help="data directory")
    u.add_argument("out", help="the new data directory")
    add_common(u)
    o = sub.add_parser("overlap", help="how much of held-out sets' text a training set holds (12-gram overlap)")
    o.add_argument("--n", type=int, default=12, help="n-gram order (default 12)")
    o.add_argument("--record", action="store_true", help="add the figures to TRAIN/stats.json (heldout_overlap)")
    o.add_argument("train", help="the training data directory")
    o.add_argument("heldout", nargs="+", help="held-out data directories")
    add_common(o)
    m = sub.add_parser("merge-tables", help="merge key-value tables with disjoint keys")
    m.add_argument("--out", required=True, help="the merged table")
    m.add_argument("parts", nargs="+", help="the tables to merge")
    add_common(m)
    v = sub.add_parser("validate", help="check a data directory")
    v.add_argument("--no-labels", action="store_true", help="labels are not required")
    v.add_argument("data", help="data directory")
    add_common(v)
    return p


def _main(args: argparse.Namespace) -> int:
    if args.cmd == "split":
        require_inputs([args.data], "data directory")
        require_inputs([Path(args.data) / "text"])
        split_datadir(args.data, args.nj, args.by)
    elif args.cmd == "subset":
        require_inputs([args.data], "data directory")
        require_inputs([Path(args.data) / "text"] + [p for p in (args.utt_list, args.exclude) if p])
        subset_datadir(args.data, args.out, args.utt_list, args.exclude, args.first, args.last, args.words)
    elif args.cmd == "overlap":
        from punct.errors import PunctError

        if args.n < 1:
            raise PunctError(f"--n must be at least 1, got {args.n}")
        dirs = [args.train, *args.heldout]
        require_inputs(dirs, "data directory")
        require_inputs([Path(d) / "text" for d in dirs])
        overlap_datadirs(args.train, args.heldout, args.n, args.record)
    elif args.cmd == "merge-tables":
        require_inputs(args.parts)
        n = merge_tables(args.parts, args.out)
        log.info("%d parts -> %s (%d keys)", len(args.parts), args.out, n)
    elif args.cmd == "validate":
        from punct.datadir import validate_datadir

        require_inputs([args.data], "data directory")
        n = validate_datadir(args.data, require_labels=not args.no_labels)
        missing = [f for f in ("utt2spk", "spk2utt") if not (Path(args.data) / f).is_file()]
        if missing:  # punct reads text without them; Kaldi's own tools do not
            log.warning("%s: no %s: punct does without, Kaldi's tools (utils/validate_data_dir.sh) do not",
                        args.data, " or ".join(missing))
        log.info("%s: valid, %d words", args.data, n)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.datadir_tools")


if __name__ == "__main__":
    sys.exit(main())
