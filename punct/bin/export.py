"""Export a trained model for shipping: weights, config and vocabulary only, optionally in float16.

    python -m punct.bin.export --model exp/earnings/ta_brnn_p/best.pt --out models/default.pt \
        [--half] [--max-mb 10] [--note "trained by ./run.sh --corpus earnings"]

The exported file is a punct checkpoint (punct.engine.checkpoint) without the
optimizer state or training progress; ``--half`` stores floating-point weights
as float16 (halving the size), which ``load_model`` turns back into float32 on
loading. The file is checked by loading it and decoding a sentence, and must be
at most ``--max-mb`` megabytes. It records its source, the training command
(the experiment's ``cmd``) and the note.

``--stage1-file F`` (a two-stage model whose stage one is the shipped file F, e.g.
models/accurate/tagger.pt) leaves stage one's weights out and names F and its sha256
instead: the file is written beside F and loads them from there (punct.engine.checkpoint),
so the pair ships stage one once.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, finite_float, require_inputs, run
from punct.errors import PunctError

log = logging.getLogger("punct.bin.export")

#: checkpoint keys that only training needs
TRAINING_ONLY = ("optimizer", "optimizer_compact", "progress", "rng")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.export", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--model", required=True, help="trained model (best.pt)")
    p.add_argument("--out", required=True, help="output file, e.g. models/default.pt")
    p.add_argument("--half", action="store_true", help="store floating-point weights as float16")
    p.add_argument("--max-mb", type=finite_float(0.0), default=0.0, help="fail if the file is larger than this (0: no limit)")
    p.add_argument("--stage1-file", default=None,
                   help="a two-stage model's stage one as shipped (beside --out): its weights are read from there")
    p.add_argument("--note", default="", help="a line stored in the file (e.g. how it was trained)")
    add_common(p)
    return p


def export(model_path: str | Path, out: str | Path, half: bool = False, max_mb: float = 0.0, note: str = "",
           stage1_file: str | Path | None = None) -> int:
    """Write the shipping copy of ``model_path`` to ``out``; return its size in bytes."""
    import os

    import torch

    from punct.engine import checkpoint as ckpt
    from punct.fsutil import atomic_path

    model_path, out = Path(model_path), Path(out)
    ck = ckpt.load(model_path)
    payload = {k: v for k, v in ck.items() if k not in TRAINING_ONLY and k != "format"}
    state = payload["state_dict"]
    if stage1_file is not None:  # compared with the stage-one file as trained, before any float16
        state, payload["stage1_file"] = _without_stage1(model_path, state, Path(stage1_file), out)
    if half:
        state = {k: (v.half() if torch.is_floating_point(v) else v) for k, v in state.items()}
    payload["state_dict"] = state
    cmd = model_path.parent / "cmd"
    payload["export"] = {
        "source": str(model_path),
        "train_command": cmd.read_text(encoding="utf-8").strip() if cmd.is_file() else None,
        "half": half,
        "note": note,
    }
    # write to a temporary name, check it, then rename into place
    with atomic_path(out) as tmp:
        ckpt.save(tmp, payload)
        size = os.path.getsize(tmp)
        if max_mb and size > max_mb * 1e6:
            raise PunctError(f"exported model is {size / 1e6:.1f} MB, over the limit of {max_mb:g} MB "
                             "(train a smaller model or use --half)", model_path)
        # the shipping path: punct restore on a timed sentence (a pause model gets its pauses)
        from punct.engine.restorer import Restorer
        from punct.text.words import Utterance, Word

        probe = "so what do we do now we go home".split()
        utt = Utterance("probe", [Word(w, start=0.3 * i, end=0.3 * i + 0.25) for i, w in enumerate(probe)])
        got = Restorer.load(tmp).restore([utt])[0]
        if [w.text for w in got.words] != probe or any(w.label is None for w in got.words):
            raise PunctError("exported model does not decode (internal error)", tmp)
    log.info("wrote %s (%.1f MB%s) from %s", out, size / 1e6, ", float16" if half else "", model_path)
    return size


def _without_stage1(model_path: Path, state: dict, stage1_file: Path, out: Path) -> tuple[dict, dict]:
    """``state`` less its ``stage1.*`` weights, and the reference to ``stage1_file`` that holds
    them: the same tensors, checked here, and a file in ``out``'s folder."""
    import torch

    from punct.engine import checkpoint as ckpt
    from punct.fsutil import file_sha256

    if stage1_file.resolve().parent != out.resolve().parent:
        raise PunctError(f"the stage-one file must be in the folder of --out ({out.parent})", stage1_file)
    st1 = ckpt.load(stage1_file)["state_dict"]
    mine = {k[len("stage1."):]: v for k, v in state.items() if k.startswith("stage1.")}
    if not mine:
        raise PunctError("not a two-stage model (no stage-one weights)", model_path)
    if set(mine) != set(st1) or any(not torch.equal(mine[k], st1[k]) for k in st1):
        raise PunctError(f"its stage one is not {stage1_file} (the weights differ)", model_path)
    ref = {"file": stage1_file.name, "sha256": file_sha256(stage1_file)}
    return {k: v for k, v in state.items() if not k.startswith("stage1.")}, ref


def _main(args: argparse.Namespace) -> int:
    require_inputs([args.model] + ([args.stage1_file] if args.stage1_file else []), "model file")
    export(args.model, args.out, half=args.half, max_mb=args.max_mb, note=args.note, stage1_file=args.stage1_file)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct.bin.export")


if __name__ == "__main__":
    sys.exit(main())
