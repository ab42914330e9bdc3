"""Live punctuation (``punct restore --live``, punct.engine.live): F1 against lookahead, and the
latency of a mark after its word arrives.

    python benchmarks/bench_live.py [--model M.pt] [--lookaheads 0 2 5 10 20]
        [--sets e21_kaldi_rev test2011] [--latency-words 3000] [--json exp/benchmarks/live.json] [--tiny]

F1. Each set's streams (as ``punct restore`` makes them: a call, a talk) are fed a word at a
time, all streams in step, and every mark is decided as the filter decides it (LiveStream);
the windows of all streams that decide a word in a step run in one batch. The labels are
scored against the reference as ``punct score REF HYP`` scores them (edit-distance alignment
for ASR words). "offline" is ``Restorer.restore`` on the whole input, what ``punct restore``
gives. Sets: ``e21_kaldi_rev`` (the 33 Earnings-21 calls through the commercial Kaldi system,
reference ``e21_ref``; data/earnings, ``./run.sh --corpus earnings --stage 1``) and ``test2011``
(IWSLT 2011, reference words; data/iwslt2011).

Latency. One call (``--latency-words`` of the first Earnings-21 CTM) fed a word at a time to one
LiveStream on one thread, as the filter runs: the CPU time from a word's arrival to the marks it
makes final (mean, 95th percentile, most), the words each mark waits (mean), and the seconds of
speech between its word's end and the end of the word that made it final (mean). Each lookahead's
labels there are compared with the batched run's (the batch changes no mark).

``--tiny``: a random tiny model on a synthetic stream; a check that the benchmark runs (the tests
run it), not a measurement.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETS = {"e21_kaldi_rev": ("data/earnings/e21_kaldi_rev", "data/earnings/e21_ref"),
        "test2011": ("data/iwslt2011/test2011", "data/iwslt2011/test2011")}


def live_labels(restorer, streams, lookahead: int, flush_after: float | None, batch: bool = True, context: int = 2):
    """Feed ``streams`` (lists of Words) a word a time, in step; returns (decided words per stream,
    delays in words, seconds of speech waited per decided word)."""
    from punct.engine.live import LiveStream, decide

    lives = [LiveStream(restorer, lookahead, flush_after, case=False, name=f"s{i}", context=context) for i, _ in enumerate(streams)]
    got: list[list] = [[] for _ in streams]
    waited: list[float] = []
    longest = max((len(s) for s in streams), default=0)
    for k in range(longest + 1):
        active = []
        for i, (s, live) in enumerate(zip(streams, lives)):
            if k < len(s):
                live.push([s[k]])
                active.append(i)
            elif k == len(s):
                live.close()
                active.append(i)
        if batch:
            decide(restorer, [lives[i] for i in active])
        else:
            for i in active:
                decide(restorer, [lives[i]])
        for i in active:
            newest = streams[i][min(k, len(streams[i]) - 1)]
            for w in lives[i].take():
                got[i].append(w)
                if newest.end is not None and w.end is not None:
                    waited.append(max(0.0, newest.end - w.end))
    delays = [d for live in lives for d in live.delays]
    return got, delays, waited


def labelled(utts, streams, decided):
    """Copies of ``utts`` whose words carry the decided labels (streams are stream_words of them)."""
    by_id = {}
    for s, d in zip(streams, decided):
        assert len(s) == len(d), (len(s), len(d))
        for w, x in zip(s, d):
            by_id[id(w)] = x.label
    out = []
    for u in utts:
        out.append(dataclasses.replace(u, words=[dataclasses.replace(w, label=by_id.get(id(w), "O")) for w in u.words]))
    return out


def score(ref, hyp, by_id: bool = True) -> dict:
    from punct.scoring.score import aligned_slots, score_streams

    streams, transfer = aligned_slots(ref, hyp, by_id=by_id)
    rep = score_streams(streams, transfer)
    d = {"f1": rep.overall.f1, "ser": rep.ser}
    for lab, prf in rep.per_class.items():
        d[lab] = prf.f1
    return d


def run_set(restorer, name, hyp_dir, ref_dir, lookaheads, flush_after, ref=None, context: int = 2,
            max_words: int = 0) -> dict:
    """The F1 rows of one set (module docstring); ``ref``: reference utterances instead of ``ref_dir``'s;
    ``max_words``: only the first words of each utterance (0: all), offline and live alike."""
    from punct.engine.restorer import stream_words
    from punct.io import read_input

    hyp = read_input(hyp_dir)
    ref = read_input(ref_dir) if ref is None else ref
    for u in hyp:
        if max_words:
            del u.words[max_words:]
        for w in u.words:
            w.label = "O"
    n = sum(len(u) for u in hyp)
    t0 = time.process_time()
    off = restorer.restore(hyp)
    row = {"set": name, "hyp": str(hyp_dir), "ref": str(ref_dir), "words": n, "streams": 0, "context": context,
           "max_words": max_words,
           "offline": score(ref, off), "offline_cpu_s": round(time.process_time() - t0, 2), "live": []}
    streams = stream_words(hyp)
    row["streams"] = len(streams)
    for n_ahead in lookaheads:
        t0 = time.process_time()
        got, delays, waited = live_labels(restorer, streams, n_ahead, flush_after, context=context)
        r = score(ref, labelled(hyp, streams, got))
        r.update(lookahead=n_ahead, cpu_s=round(time.process_time() - t0, 1),
                 mean_delay_words=round(sum(delays) / max(len(delays), 1), 2),
                 mean_wait_s=round(sum(waited) / len(waited), 2) if waited else None)
        r["below_offline"] = round(row["offline"]["f1"] - r["f1"], 1) if r["f1"] is not None else None
        row["live"].append(r)
        print(f"{name}: lookahead {n_ahead:>2}: F1 {r['f1']} (offline {row['offline']['f1']}), "
              f"{r['mean_delay_words']} words, {r['cpu_s']} CPU s", flush=True)
    return row


def latency(restorer, words, lookaheads, flush_after, context: int = 2) -> list[dict]:
    """Per lookahead: CPU ms from a word's arrival to the marks it makes final, one stream."""
    from punct.engine.live import LiveStream

    rows = []
    for n_ahead in lookaheads:
        live = LiveStream(restorer, n_ahead, flush_after, case=False, context=context)
        times, decided, waited = [], [], []
        for w in words:
            t0 = time.process_time()
            live.push([w])
            out = live.step()
            times.append(time.process_time() - t0)
            decided += out
            waited += [max(0.0, w.end - x.end) for x in out if w.end is not None and x.end is not None]
        live.close()
        decided += live.step()
        batched, _, _ = live_labels(restorer, [words], n_ahead, flush_after, batch=True, context=context)
        same = sum(a.label == b.label for a, b in zip(decided, batched[0]))
        ms = sorted(1000 * t for t in times)
        rows.append({"lookahead": n_ahead, "words": len(words), "mean_ms": round(sum(ms) / len(ms), 2),
                     "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2), "max_ms": round(ms[-1], 2),
                     "mean_delay_words": round(sum(live.delays) / max(len(live.delays), 1), 2),
                     "mean_wait_s": round(sum(waited) / len(waited), 2) if waited else None,
                     "same_as_batched": same, "decided": len(decided)})
        print(f"latency: lookahead {n_ahead:>2}: {rows[-1]['mean_ms']} ms a word (p95 {rows[-1]['p95_ms']}), "
              f"{same}/{len(decided)} labels as batched", flush=True)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=None, help="model file (default: the shipped default)")
    p.add_argument("--lookaheads", type=int, nargs="+", default=[0, 2, 5, 10, 20])
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--flush-after", type=float, default=1.0)
    p.add_argument("--context", type=int, default=2, help="sentences of left context (punct.engine.live)")
    p.add_argument("--max-words", type=int, nargs="+", default=[0],
                   help="first words of each utterance scored, one per set or one for all (0: all)")
    p.add_argument("--latency-words", type=int, default=3000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=None)
    p.add_argument("--tiny", action="store_true")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    from punct.engine.restorer import Restorer
    from punct.io import read_input

    load_before = os.getloadavg()
    tmp = tempfile.TemporaryDirectory(prefix="bench-live-")
    if args.tiny:
        from benchmarks.bench_restore import make_ctm, make_random_model

        words = [f"w{i}" for i in range(50)]
        model = Path(tmp.name) / "tiny.pt"
        make_random_model(model, words, 0)
        ctm = Path(tmp.name) / "tiny.ctm"
        make_ctm(ctm, words, 300, 0)
        os.environ.setdefault("PUNCT_CACHE", tmp.name)
        restorer = Restorer.load(model, threads=args.threads, workers=1)
        restorer.batch_size = 64
        utts = read_input(ctm)
        ref = restorer.restore(read_input(ctm))  # the reference: the model's own offline marks
        sets = [run_set(restorer, "tiny", ctm, ctm, args.lookaheads, args.flush_after, ref=ref, context=args.context)]
        lat_words = utts[0].words
    else:
        restorer = Restorer.load(args.model, threads=args.threads, workers=1)
        restorer.batch_size = 64
        sets = []
        caps = args.max_words * len(args.sets) if len(args.max_words) == 1 else args.max_words
        if len(caps) != len(args.sets):
            raise SystemExit("error: --max-words: one number, or one per set")
        for name, cap in zip(args.sets, caps):
            hyp, ref = (ROOT / x for x in SETS[name])
            if not hyp.is_dir() or not ref.is_dir():
                raise SystemExit(f"error: {hyp} or {ref} missing: run stage 1 of its corpus first")
            sets.append(run_set(restorer, name, hyp, ref, args.lookaheads, args.flush_after, context=args.context,
                                max_words=cap))
        lat_words = read_input(ROOT / SETS["e21_kaldi_rev"][0])[0].words[: args.latency_words] \
            if (ROOT / SETS["e21_kaldi_rev"][0]).is_dir() else []
    restorer.batch_size = 1
    lat = latency(restorer, lat_words, args.lookaheads, args.flush_after, args.context) if lat_words else []
    out = {"command": "python benchmarks/bench_live.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "model": str(args.model or "models/default.pt"), "runtime": restorer.runtime, "threads": args.threads,
           "flush_after": args.flush_after, "context": args.context, "sets": sets, "latency": lat, "tiny": args.tiny,
           "cores": os.cpu_count(), "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
