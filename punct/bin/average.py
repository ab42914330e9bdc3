"""Average the weights of several model files of one training run into one model file.

    python -m punct.bin.average --out exp/E/average.pt exp/E/epochs/7.pt exp/E/epochs/8.pt exp/E/epochs/9.pt
    punct average --out OUT.pt A.pt B.pt C.pt

Speech toolkits average the snapshots of a run's last or best epochs: the mean of models a few
epochs apart is often better, and steadier from one epoch to the next, than any one of them.
The files must be the same model (family, sizes, vocabulary and inputs); their floating-point
weights are averaged (punct.engine.averaging.average_state_dicts) and the rest of the first
file is kept: its config, vocabulary, case spellings and decision bias. The output records
the epochs averaged (``averaged_epochs``) and the files (``averaged_from``), is written
atomically and is loaded once to check that it decodes. A training run does the same by
itself with ``average_best: N`` in its config (the N best epochs).
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, require_inputs, run
from punct.errors import PunctError

log = logging.getLogger("punct.bin.average")

#: what must be equal in every file for their weights to be averaged
SAME_KEYS = ("model", "model_args", "vocab", "inputs", "labels")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.average", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("models", nargs="+", metavar="MODEL", help="model files of one run (best.pt, checkpoint.pt, epochs/E.pt)")
    p.add_argument("--out", required=True, help="the averaged model file (must not be one of the inputs)")
    add_common(p)
    return p


def _main(args: argparse.Namespace) -> int:
    from punct.engine import checkpoint as ckpt
    from punct.engine.averaging import average_state_dicts

    require_inputs(args.models, "model file")
    paths = [Path(m) for m in args.models]
    out = Path(args.out)
    if len(paths) < 2:
        raise PunctError("give at least two model files to average", paths[0])
    if any(out.resolve() == p.resolve() for p in paths):
        raise PunctError("the output is one of the inputs: write the average to a new file", out)
    cks = [ckpt.load(p, fill_stage1=False) for p in paths]
    first = cks[0]
    for p, ck in zip(paths[1:], cks[1:]):
        for key in SAME_KEYS:
            if ck.get(key) != first.get(key):
                raise PunctError(f"its {key} differs from that of {paths[0]}: only models of one run average", p)
        if set(ck["state_dict"]) != set(first["state_dict"]):
            raise PunctError(f"its weights are not those of {paths[0]} (other tensor names)", p)
    try:
        state = average_state_dicts([ck["state_dict"] for ck in cks])
    except RuntimeError as e:  # a tensor of another shape
        raise PunctError(f"the weights do not average ({str(e).splitlines()[0][:160]})", paths[1]) from None
    epochs = [ck.get("epoch") for ck in cks]
    payload = {k: v for k, v in first.items() if k not in ("optimizer", "optimizer_compact", "progress", "rng", "format")}
    payload.update(state_dict=state, averaged_from=[str(p) for p in paths],
                   averaged_epochs=epochs if all(e is not None for e in epochs) else None)
    for key in ("valid_ppl", "valid_f1"):  # the first file's scores are not the average's
        payload.pop(key, None)
    out.parent.mkdir(parents=True, exist_ok=True)
    ckpt.save(out, payload)
    ckpt.load_model(out)
    log.info("%s: the average of %d models%s", out, len(paths),
             f" (epochs {', '.join(map(str, epochs))})" if payload["averaged_epochs"] else "")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.average")


if __name__ == "__main__":
    sys.exit(main())
