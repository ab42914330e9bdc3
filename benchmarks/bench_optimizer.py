"""Optimizer step time, torch's fused CPU kernel (what training uses) against its foreach
implementation (punct.engine.optim.make_optimizer ``fused``), for the parameters of real configs.

    python benchmarks/bench_optimizer.py [--case CONFIG:VOCAB[:OVERRIDE,...] ...] [--steps 10]
        [--train-steps 5] [--threads 1] [--json exp/benchmarks/optimizer_step.json]

Each case builds the model of CONFIG with a vocabulary of VOCAB words (the embedding
table is what grows: 27,266 training words of ``train_2m`` at min_count 2, or 401,017
with ``vocabulary: train+pretrained``), gives every parameter a random gradient, and
times ``--steps`` optimizer steps of each implementation, alternating them so that
both see the same load, after one untimed step each. It also times one whole training
step (forward, backward, clipping, step) of a random batch of the config's size with
each, which is what a training epoch is made of. The two implementations must end at
the same weights up to float rounding; the benchmark fails when they do not.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the recipe's runs (recipes/iwslt2011/experiments.yaml): DRNN-LWMA-pre as one of two data-parallel
#: ranks (16 of the 32 slices), bf16, with the training vocabulary and with GloVe's; T-BRNN-pre
#: with GloVe's vocabulary in batches of 32 50-word slices, on AdaGrad and on Adam
DEFAULT_CASES = ["conf/drnn_lwma_pre.yaml:27266:batch_size=16,precision=bf16",
                 "conf/drnn_lwma_pre.yaml:401017:batch_size=16,precision=bf16",
                 "conf/tbrnn_pre.yaml:401017:batch_size=32,slice_length=50,precision=bf16",
                 "conf/tbrnn_pre.yaml:401017:batch_size=32,slice_length=50,precision=bf16,optimizer=adam,lr=0.001"]


def measure(case: str, steps: int, train_steps: int) -> dict:
    import numpy as np
    import torch

    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.loss import loss_sum_of
    from punct.engine.optim import make_optimizer
    from punct.models import build_model, resolved_model_args

    conf, vocab, *rest = case.split(":")
    over = rest[0].split(",") if rest else []
    cfg = load_config(ROOT / conf, TrainConfig, over)
    args = resolved_model_args(cfg.model, cfg.model_args)
    torch.manual_seed(cfg.seed)
    start = build_model(cfg.model, args, int(vocab)).state_dict()
    models, opts = {}, {}
    for f in (False, True):
        m = build_model(cfg.model, args, int(vocab))
        m.load_state_dict(start)
        models[f], opts[f] = m, make_optimizer(cfg, m.parameters(), fused=f)
    params = {f: [p for p in m.parameters() if p.requires_grad] for f, m in models.items()}
    grads = [torch.randn_like(p) for p in params[True]]
    step_ms: dict[bool, list[float]] = {False: [], True: []}
    for k in range(steps + 1):
        for f in (False, True):
            for p, g in zip(params[f], grads):
                p.grad = g.clone()
            t0 = time.perf_counter()
            opts[f].step()
            if k:
                step_ms[f].append(1000 * (time.perf_counter() - t0))
    for a, b in zip(params[False], params[True]):
        if not torch.allclose(a, b, rtol=1e-4, atol=1e-6):
            raise SystemExit(f"bench_optimizer: {case}: the fused and foreach updates differ beyond rounding")
    # one whole training step of a random batch at the config's size
    rng = np.random.default_rng(0)
    B, T = cfg.batch_size, cfg.slice_length
    kw = {"ids": torch.from_numpy(rng.integers(3, int(vocab), size=(B, T))), "mask": torch.ones(B, T, dtype=torch.bool)}
    y = torch.from_numpy(rng.choice(4, size=(B, T), p=[0.855, 0.076, 0.064, 0.005]))
    train_ms: dict[bool, list[float]] = {False: [], True: []}
    for k in range(train_steps + 1):
        for f in (False, True):
            m = models[f]
            m.train()
            t0 = time.perf_counter()
            loss = loss_sum_of(m, kw, y, cfg.precision) / (B * T)
            opts[f].zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params[f], cfg.clip_norm)
            opts[f].step()
            if k:
                train_ms[f].append(1000 * (time.perf_counter() - t0))
    med = lambda xs: float(np.median(xs))  # noqa: E731
    return {"case": case, "model": cfg.model, "optimizer": cfg.optimizer, "vocab": int(vocab),
            "params": sum(p.numel() for p in params[True]), "batch": f"{B}x{T}", "precision": cfg.precision,
            "foreach_step_ms": med(step_ms[False]), "fused_step_ms": med(step_ms[True]),
            "step_speedup": med(step_ms[False]) / med(step_ms[True]),
            "foreach_train_step_ms": med(train_ms[False]), "fused_train_step_ms": med(train_ms[True]),
            "train_step_speedup": med(train_ms[False]) / med(train_ms[True])}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", action="append", default=None,
                   help=f"CONFIG:VOCAB[:KEY=VALUE,...] (repeatable; default: {' '.join(DEFAULT_CASES)})")
    p.add_argument("--steps", type=int, default=10, help="timed optimizer steps of each implementation")
    p.add_argument("--train-steps", type=int, default=5, help="timed whole training steps of each implementation")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: a data-parallel rank's share)")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    cases = args.case or DEFAULT_CASES
    load_before = os.getloadavg()[0]
    rows = []
    for case in cases:
        r = measure(case, args.steps, args.train_steps)
        rows.append(r)
        print(f"{r['case']:45s} {r['params']:>11,d} params  step {r['foreach_step_ms']:7.1f} -> {r['fused_step_ms']:6.1f} ms "
              f"(x{r['step_speedup']:.1f})  train step {r['foreach_train_step_ms']:7.1f} -> "
              f"{r['fused_train_step_ms']:7.1f} ms (x{r['train_step_speedup']:.2f})", flush=True)
    if args.json:
        from punct.fsutil import atomic_write

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        cmd = "python benchmarks/bench_optimizer.py " + " ".join(f"--case {c}" for c in cases) + \
            f" --steps {args.steps} --train-steps {args.train_steps} --threads {args.threads} --json {args.json}"
        with atomic_write(args.json) as f:
            json.dump({"rows": rows, "threads": args.threads, "cores": os.cpu_count(), "torch": torch.__version__,
                       "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
                       "command": cmd}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
