"""One feeder: ``punct decode`` and ``punct restore`` give the same labels, and the batch
size that decodes fastest.

    python benchmarks/bench_feeder.py --json exp/benchmarks/feeder.json

Agreement: ``punct.engine.decode.decode`` of a data directory against ``punct restore`` of
the same words (the data directory itself for ``test2011``; the Kaldi CTM files that the data
directory ``e21_kaldi_rev`` was made from), word by word, on the default runtime.
Speed: the same decode at several batch sizes on each runtime, one thread, in words per CPU
second of this process's decoding (robust to other jobs on the machine; without loading the
model and the words), and whether each batch size gives the labels of batch 1. ``--tiny`` runs a random model on a generated set (the test).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"
#: the sets compared: (name, data directory, what punct restore reads: the directory or a CTM folder)
SETS = {"test2011": ("data/iwslt2011/test2011", None),
        "e21_kaldi_rev": ("data/earnings/e21_kaldi_rev", "earnings21/output/rev/kaldi/ctm")}
BATCHES = (1, 4, 8, 16, 32, 64, 128)


def labels_of(utts) -> dict[str, list[str]]:
    return {u.id: [w.label for w in u.words] for u in utts}


def restored(model: str, source: Path, runtime: str) -> dict[str, list[str]]:
    """The labels ``punct restore`` gives ``source``: a data directory, or a folder of CTMs
    (one call each: ``punct restore FILE``)."""
    from punct.restore import restore_file

    with tempfile.TemporaryDirectory(prefix="bench-feeder-") as tmp:
        if source.is_dir() and not any(source.glob("*.ctm")):
            return labels_of(restore_file(source, Path(tmp) / "out", model=model, output_format_name="datadir",
                                          runtime=runtime))
        out = {}
        for f in sorted(source.glob("*.ctm")):
            (u,) = restore_file(f, Path(tmp) / f.name, model=model, runtime=runtime)
            out[f.stem] = [w.label for w in u.words]
        return out


def agreement(model: str, data: Path, source: Path, runtime: str) -> dict:
    from punct.engine.decode import decode

    dec = labels_of(decode(model, data, runtime=runtime, threads=1))
    res = restored(model, source, runtime)
    same = total = 0
    for k, labs in dec.items():
        other = res.get(k, [])
        total += len(labs)
        same += sum(a == b for a, b in zip(labs, other)) if len(other) == len(labs) else 0
    return {"words": total, "same": same, "utterances": len(dec),
            "missing": sorted(set(dec) ^ set(res))[:5], "identical": same == total and set(dec) == set(res)}


def speed(model: str, data: Path, runtime: str, batches) -> list[dict]:
    """Decode ``data`` at every batch size: words per CPU second, wall seconds, same labels as batch 1."""
    from punct.engine.decode import decode

    rows, first = [], None
    for b in batches:
        stats: dict = {}
        hyp = labels_of(decode(model, data, batch_size=b, runtime=runtime, threads=1, stats=stats))
        first = first or hyp
        cpu = stats["cpu_seconds"]  # the decoding alone: not the loading of the model and the words
        rows.append({"batch": b, "runtime": stats.get("runtime"), "words": stats["words"], "cpu_s": cpu,
                     "wall_s": stats["seconds"], "words_per_cpu_s": round(stats["words"] / max(cpu, 1e-9), 1),
                     "same_labels": hyp == first})
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def tiny_set(tmp: Path) -> tuple[str, Path]:
    """A random T-BRNN checkpoint and a 300-word data directory of its words (``--tiny``)."""
    import random

    from punct.data.datadir import write_datadir
    from punct.engine import checkpoint
    from punct.engine.vocab import Vocabulary
    from punct.text.labels import LABELS
    from punct.models import build_model, resolved_model_args
    from punct.text.words import Utterance, Word

    words = "so we grew revenue this quarter and margins held up well thanks to our teams".split()
    vocab = Vocabulary.build([words], min_count=1)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8})
    import torch

    torch.manual_seed(0)
    model = build_model("tbrnn", args, len(vocab))
    path = tmp / "tiny.pt"
    checkpoint.save(path, {"model": "tbrnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(), "train_config": {"slice_length": 20, "batch_size": 8}})
    rng = random.Random(1)
    data = tmp / "data"
    write_datadir(data, [Utterance(id=f"u{k}", words=[Word(rng.choice(words)) for _ in range(100)]) for k in range(3)])
    return str(path), data


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=str(ROOT / "models" / "default.pt"))
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--speed-set", default="test2011", choices=list(SETS), help="the set decoded at every batch size")
    p.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    p.add_argument("--runtimes", nargs="+", default=["torch", "onnx"], help="runtimes of the speed rows")
    p.add_argument("--json", default=None, help="write the result here (RESULTS.md reads exp/benchmarks/feeder.json)")
    p.add_argument("--tiny", action="store_true", help="a random model on a generated set (the test)")
    args = p.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)
    from punct.engine.runtime import onnx_available

    runtimes = [r for r in args.runtimes if r == "torch" or onnx_available()]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-feeder-") as tmp:
        if args.tiny:
            model, data = tiny_set(Path(tmp))
            sets = {"tiny": (data, data)}
            speed_data = data
        else:
            model = args.model
            sets = {s: (ROOT / SETS[s][0], SHARED / SETS[s][1] if SETS[s][1] else ROOT / SETS[s][0]) for s in args.sets}
            speed_data = ROOT / SETS[args.speed_set][0]
        result = {"model": os.path.relpath(model, ROOT) if not args.tiny else "tiny random tbrnn",
                  "agreement": [dict(set=s, **agreement(model, d, src, "auto")) for s, (d, src) in sets.items()],
                  "speed_set": "tiny" if args.tiny else args.speed_set,
                  "speed": [r for rt in runtimes for r in speed(model, speed_data, rt, args.batches)],
                  "threads": 1, "cores": os.cpu_count(), "load_before": round(load_before, 2),
                  "load_after": round(os.getloadavg()[0], 2),
                  "command": "python benchmarks/bench_feeder.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    text = json.dumps(result, indent=1)
    if args.json:
        from punct.fsutil import atomic_write

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(Path(args.json)) as f:
            f.write(text + "\n")
    print(text)
    return 0 if all(a["identical"] for a in result["agreement"]) else 1


if __name__ == "__main__":
    sys.exit(main())
