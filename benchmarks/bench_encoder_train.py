"""Training speed of a packaged encoder's tagger by how it is trained: bottom layers frozen,
or low-rank adapters (punct.models.adapters).

    python benchmarks/bench_encoder_train.py [--encoder all-mpnet-base-v2] [--freeze 0 6 9]
        [--variant adapter=lora,lora_rank=8 ...] [--batch 8] [--pieces 126] [--steps 3] [--threads 2]

For each ``--freeze`` value and each ``--variant`` (model arguments, comma-separated):
builds the transformer tagger (with a case head) on the pretrained encoder, and times
``--steps`` AdamW steps (after one untimed warm-up step) on random pieces of ``--batch``
rows of ``--pieces``; prints word pieces per second of the best step and the trained
parameters. What a step computes does not depend on the pieces' values, so random ones
measure the cost of real text.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encoder", default="all-mpnet-base-v2")
    p.add_argument("--freeze", type=int, nargs="+", default=[0, 6, 9], help="bottom layers frozen, one run each")
    p.add_argument("--variant", action="append", default=[],
                   help="model arguments of one more run, e.g. adapter=lora,lora_rank=8,lora_layers=6")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--pieces", type=int, default=126)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    import torch

    from punct.models import build_model
    from punct.models.encoders import load_tokenizer

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    vocab = load_tokenizer(args.encoder).vocab_size
    B, S = args.batch, args.pieces
    pieces = torch.randint(1000, vocab, (B, S))
    ones = torch.ones(B, S, dtype=torch.bool)
    word_last = torch.arange(S).repeat(B, 1)
    y, cases = torch.randint(0, 4, (B, S)), torch.randint(0, 4, (B, S))
    import yaml

    runs = [(f"freeze_layers={fl}", {"freeze_layers": fl}) for fl in args.freeze]
    for v in args.variant:
        runs.append((v, {k: yaml.safe_load(x) for k, x in (kv.split("=", 1) for kv in v.split(","))}))
    print(f"{'form':>40} {'trained':>10} {'pieces/s':>9}")
    for name, extra in runs:
        m = build_model("transformer_tagger", {"encoder": args.encoder, "case_head": True, **extra}, vocab)
        params = [q for q in m.parameters() if q.requires_grad]
        opt = torch.optim.AdamW(params, lr=1e-5)
        times = []
        for _ in range(args.steps + 1):
            t = time.perf_counter()
            opt.zero_grad()
            logits, case_logits = m(pieces=pieces, piece_mask=ones, word_last=word_last, mask=ones, return_case=True)
            (torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
             + 0.5 * torch.nn.functional.cross_entropy(case_logits.flatten(0, 1), cases.flatten())).backward()
            opt.step()
            times.append(time.perf_counter() - t)
        print(f"{name:>40} {sum(q.numel() for q in params):>10,} {B * S / min(times[1:]):>9.0f}", flush=True)


if __name__ == "__main__":
    main()
