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
import sys
from pathlib import Path
from typing import Sequence

from punct.bin.common import ArgumentParser, add_common, at_least, require_inputs, run
from punct.data.splits import merge_tables, split_datadir, subset_datadir

log = logging.getLogger("punct.bin.datadir_tools")


def overlap_datadirs(train: str | Path, heldout: Sequence[str | Path], n: int = 12, record: bool = False) -> dict:
    """``punct.overlap.heldout_overlap`` of each HELDOUT directory against TRAIN, keyed by the
    held-out directory's name; with ``record``, merged into TRAIN/stats.json's ``heldout_overlap``."""
    from punct.data.datadir import load_utterances
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


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.datadir_tools", description=__doc__.splitlines()[0])
    add_common(p)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split", help="split a data directory into DIR/splitN/1..N")
    s.add_argument("--nj", type=at_least(1, 100_000), required=True, help="number of parts")
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
    o.add_argument("--n", type=at_least(1, 1000), default=12, help="n-gram order (default 12)")
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
        from punct.data.datadir import validate_datadir

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
