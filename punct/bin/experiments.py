"""What run.sh's stages read of recipes/<corpus>/experiments.yaml (punct.experiments).

Usage: python -m punct.bin.experiments sets --corpus C
       python -m punct.bin.experiments list --corpus C --stage N [--models 'A B'] [--data-root data]
                                          [--exp-root exp] [--exp-tag T]

Both print records that local/records.sh reads without eval: a first line of field names,
then one line per record, its fields separated by the byte 0x1e and the items of a list field
(a name ending in "[]") by 0x1f.

``sets`` prints one record: train_sets, valid_set, test_sets, reference_set (empty: each set
is scored against itself) and names (every experiment). ``list`` prints one record per
experiment that stage N runs and --models selects, with every path resolved: name, kind
(train, ensemble, joint, hook), dir, config, train, valid, needs (the files that must exist
first: a warm start's or a member's best.pt), args (the trainer's overrides in stages 6 and 7,
the decoder's model options in stages 8 and 9), inputs (more files a decode is redone after),
tests (a stage 7 model's own test sets; empty: the sets run.sh decodes), and, for joint
decisions and hooks, lexical, acoustic, systems and hook. Stages 6 and 7 list their own
entries; stages 8 and 9 list what is decoded and scored: the models of both, the joint
decisions, and the hooks of stage 7 (a hook of stage 6 is run, not decoded).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from punct.bin.common import ArgumentParser, add_common, run


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct.bin.experiments", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("sets", "list"), help="the corpus's sets, or the experiments of a stage")
    p.add_argument("--corpus", required=True, help="a folder of recipes/")
    p.add_argument("--recipes", default=None, help="the recipes folder (default: the repository's)")
    p.add_argument("--stage", type=int, choices=(6, 7, 8, 9), help="the stage whose experiments to list")
    p.add_argument("--models", default="", help="only these experiments (names separated by spaces or commas)")
    p.add_argument("--data-root", default="data", help="where data directories are (default: data)")
    p.add_argument("--exp-root", default="exp", help="where experiment directories are (default: exp)")
    p.add_argument("--exp-tag", default="", help="suffix of experiment directories (run.sh --exp-tag)")
    add_common(p)
    return p


FIELD_SEP, ITEM_SEP = "\x1e", "\x1f"
SETS_FIELDS = ("train_sets", "valid_set", "test_sets", "reference_set", "names[]")
SPEC_FIELDS = ("name", "kind", "dir", "config", "train", "valid", "needs[]", "args[]", "inputs[]", "tests[]",
               "lexical", "acoustic", "systems[]", "hook")


def records(fields: tuple[str, ...], rows: list[dict]) -> list[str]:
    """The header and one line per row (see the module's help); a value never holds a separator."""
    lines = [FIELD_SEP.join(fields)]
    for row in rows:
        values = []
        for f in fields:
            v = row[f.removesuffix("[]")]
            items = v if isinstance(v, list) else [v]
            for x in items:
                if FIELD_SEP in x or ITEM_SEP in x or "\n" in x:
                    raise ValueError(f"{f}: {x!r} holds a separator")
            values.append(ITEM_SEP.join(items) if isinstance(v, list) else v)
        lines.append(FIELD_SEP.join(values))
    return lines


def stage_specs(recipe, stage: int, models: list[str], data_root: str, exp_root: str, exp_tag: str = "") -> list[dict]:
    """The records ``list`` prints, as dicts (see the module's help)."""
    data, exp = f"{data_root}/{recipe.corpus}", f"{exp_root}/{recipe.corpus}"
    tag = f"_{exp_tag}" if exp_tag else ""

    def best(name: str) -> str:  # a warm start's or member's model: the directory as named, no tag
        if name.startswith("models/"):  # a shipped model, as the repository holds it
            return name
        if "/" not in name and recipe.get(name).state:  # a run carried in git: its state file is its model
            return recipe.get(name).state
        return f"{exp_root}/{name}/best.pt" if "/" in name else f"{exp}/{name}/best.pt"

    specs = []
    for e in recipe.selected(models):
        if stage in (6, 7) and e.stage != stage:
            continue
        if stage in (8, 9) and e.kind == "hook" and e.stage == 6:  # a stage 6 hook is run, not decoded
            continue
        v: dict[str, str | list[str]] = {"name": e.name, "kind": e.kind, "dir": f"{exp}/{e.name}{tag}", "config": "",
                                         "train": "", "valid": "", "needs": [], "args": [], "inputs": [], "tests": [],
                                         "lexical": "", "acoustic": "", "systems": [], "hook": ""}
        if e.kind == "train":
            v.update(config=e.config or "", train=f"{data}/{e.train}", valid=f"{data}/{e.valid}",
                     tests=list(e.test))
            src = best(e.warm_start) if e.warm_start else ""
            if src and e.warm_start_missing == "skip" and not Path(src).is_file():
                print(f"{recipe.path}: {e.name} left out: it trains on from {src}, which is not there yet",
                      file=sys.stderr)
                continue
            if stage == e.stage:
                args = e.override_words()
                if src:
                    v["needs"] = [src]
                    args = [f"init_from={src}"] + args
                if e.state:
                    args = ["--state", e.state] + args
                v["args"] = args
            else:
                model = e.state or f"{v['dir']}/best.pt"  # a carried run decodes as it ships: its state file
                v.update(needs=[model], args=["--model", model])
        elif e.kind == "ensemble":
            members = [best(m) for m in e.members]
            v.update(needs=members, valid=f"{data}/{recipe.sets.valid}")
            if stage == 8:
                args = [x for m in members for x in ("--model", m)]
                for opt, value in (("weights", e.weights), ("bias", e.bias)):
                    if value == "tune":
                        args += [f"--tune-{opt}-on", f"{data}/{recipe.sets.valid}"]
                    elif value is not None:
                        args += [f"--{opt}"] + [str(int(x)) if x.is_integer() else repr(x) for x in value]
                if "tune" in (e.weights, e.bias):
                    args += ["--tuned-weights", f"{v['dir']}/tuned_weights.json"]
                    v["inputs"] = [f"{data}/{recipe.sets.valid}/text", f"{data}/{recipe.sets.valid}/labels"]
                v["args"] = args
            else:
                v["args"] = list(e.members)
        elif e.kind == "joint":
            pair = f"{e.lexical}_{e.acoustic}{tag}"
            v.update(dir=f"{exp}/joint_{pair}", needs=[f"{exp}/{e.lexical}{tag}/best.pt", f"{exp}/{e.acoustic}{tag}/best.pt"],
                     valid=f"{data}/{recipe.sets.valid}", train=f"{data}/{recipe.get(e.acoustic).train}",
                     tests=list(e.test))
            v.update(lexical=e.lexical, acoustic=e.acoustic, systems=[f"{exp}/joint1_{pair}", f"{exp}/joint2_{pair}"])
        else:
            v.update(hook=e.hook or "", needs=[recipe.get(n).state or f"{exp}/{n}{tag}/best.pt" for n in e.needs])
        specs.append(v)
    return specs


def _main(args: argparse.Namespace) -> int:
    from punct.errors import PunctError
    from punct.experiments import load_corpus, recipe_path

    recipes = Path(args.recipes) if args.recipes else None
    recipe = load_corpus(args.corpus, recipes)
    if recipe is None:
        raise PunctError("no experiments file (every corpus declares its sets and experiments there)",
                         recipe_path(args.corpus, recipes))
    models = args.models.replace(",", " ").split()
    recipe.selected(models)  # an unknown name is an error in every stage
    if args.what == "sets":
        s = recipe.sets
        row = dict(train_sets=" ".join(s.train), valid_set=s.valid, test_sets=" ".join(s.test),
                   reference_set=s.reference or "", names=list(recipe.names))
        print("\n".join(records(SETS_FIELDS, [row])))
        return 0
    if args.stage is None:
        raise PunctError("list needs --stage 6, 7, 8 or 9")
    specs = stage_specs(recipe, args.stage, models, args.data_root, args.exp_root, args.exp_tag)
    print("\n".join(records(SPEC_FIELDS, specs)))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, "punct.bin.experiments")


if __name__ == "__main__":
    raise SystemExit(main())
