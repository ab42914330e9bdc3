"""punct.bin.experiments, the lister run.sh's stages iterate over: its records as local/records.sh
reads them, stage 6's hooks, the sets line, a warm start whose source is missing (the file it
lists: tests/test_experiments.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.experiment_files import GOOD


def _list(run_py, recipes, *args):
    return run_py("punct.bin.experiments", "list", "--corpus", "c", "--recipes", str(recipes), "-q", *args)


ROOT = Path(__file__).resolve().parents[2]


def _eval(out: str, fields: str) -> list[str]:
    """Each record of the lister read by local/records.sh, as run.sh reads it (no eval), then
    FIELDS echoed."""
    script = ('set -euo pipefail; . local/log.sh; . local/records.sh; read_records cat\n'
              'for rec in ${record_lines[@]+"${record_lines[@]}"}; do read_record "$record_header" "$rec"; '
              f'echo "{fields}"; done')
    r = subprocess.run(["bash", "-c", script], input=out, cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_the_stage_listing_is_what_run_sh_reads(run_py, recipes):
    r = _list(run_py, recipes, "--stage", "6", "--exp-tag", "t")
    assert r.returncode == 0, r.stderr
    assert _eval(r.stdout, "$name|$kind|$dir|$config|$train|$valid|${needs[*]}|${args[*]}") == [
        "a|train|exp/c/a_t|conf/tbrnn.yaml|data/c/train|data/c/dev||max_epochs=3 lr=0.0002 model_args.dropout=0.1 "
        "vocabulary=train+pretrained tail_in_loss=false",
        # a warm start and a member are the directory as named, without the tag (as before)
        "b|train|exp/c/b_t|conf/tlstm.yaml|data/c/big|data/c/test|exp/c/a/best.pt|init_from=exp/c/a/best.pt",
        "e|ensemble|exp/c/e_t|||data/c/dev|exp/c/a/best.pt exp/c/b/best.pt|a b",
    ]
    # stages 8 and 9: the models of stages 6 and 7 (a stage 7 model on its own test sets), the
    # joint decisions and the stage 7 hooks
    r = _list(run_py, recipes, "--stage", "8")
    assert _eval(r.stdout, "$name|${needs[*]}|${inputs[*]}|${args[*]}|${tests[*]}") == [
        "a|exp/c/a/best.pt||--model exp/c/a/best.pt|",
        "b|exp/c/b/best.pt||--model exp/c/b/best.pt|",
        "e|exp/c/a/best.pt exp/c/b/best.pt|data/c/dev/text data/c/dev/labels|--model exp/c/a/best.pt --model "
        "exp/c/b/best.pt --weights 2 1.5 --tune-bias-on data/c/dev --tuned-weights exp/c/e/tuned_weights.json|",
        "p|exp/c/p/best.pt||--model exp/c/p/best.pt|test",
        "j|exp/c/a/best.pt exp/c/p/best.pt|||test",
        "h|exp/c/a/best.pt|||",
    ]
    assert _eval(_list(run_py, recipes, "--stage", "9").stdout, "$name $kind $dir ${systems[*]}") == [
        "a train exp/c/a ", "b train exp/c/b ", "e ensemble exp/c/e ", "p train exp/c/p ",
        "j joint exp/c/joint_a_p exp/c/joint1_a_p exp/c/joint2_a_p", "h hook exp/c/h "]
    r = _list(run_py, recipes, "--stage", "7", "--data-root", "D", "--exp-root", "E")
    # every line sets every field, so that none is left over from the line before
    assert _eval(r.stdout, "$name|$kind|$dir|${needs[*]}|${tests[*]}|${systems[*]}|$hook") == [
        "p|train|E/c/p||test||",
        "j|joint|E/c/joint_a_p|E/c/a/best.pt E/c/p/best.pt|test|E/c/joint1_a_p E/c/joint2_a_p|",
        "h|hook|E/c/h|E/c/a/best.pt|||corpus_extra",
    ]
    # --models: stage 7 lists the acoustic model and its joint decision; stage 6 none of them
    assert _eval(_list(run_py, recipes, "--stage", "7", "--models", "p").stdout, "$name") == ["p", "j"]
    assert _eval(_list(run_py, recipes, "--stage", "6", "--models", "p,h").stdout, "$name") == []
    r = _list(run_py, recipes, "--stage", "6", "--models", "a zz")
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "--models: " in r.stderr and "has no experiment 'zz' (it has: a b e p j h)" in r.stderr


def test_a_stage_6_hook_runs_between_trainings_and_is_never_decoded(run_py, recipes):
    """A hook of stage 6 (a teacher's posteriors) is listed in stage 6 in file order, between
    the model it needs and the one that reads its output, and left out of stages 7-9."""
    text = GOOD.replace("  e:\n", "  t:\n    stage: 6\n    hook: corpus_teach\n    needs: [b]\n  e:\n", 1)
    (recipes / "c" / "experiments.yaml").write_text(text)
    r = _list(run_py, recipes, "--stage", "6")
    assert r.returncode == 0, r.stderr
    assert _eval(r.stdout, "$name|$kind|${needs[*]}|$hook") == [
        "a|train||", "b|train|exp/c/a/best.pt|", "t|hook|exp/c/b/best.pt|corpus_teach", "e|ensemble|exp/c/a/best.pt exp/c/b/best.pt|"]
    for stage in ("7", "8", "9"):
        assert "t" not in _eval(_list(run_py, recipes, "--stage", stage).stdout, "$name")
    (recipes / "c" / "experiments.yaml").write_text(GOOD.replace("  h:\n    hook", "  h:\n    stage: 8\n    hook"))
    r = _list(run_py, recipes, "--stage", "6")
    assert r.returncode == 1 and "experiments.h.stage" in r.stderr and "belongs to stage 7 or 6" in r.stderr


def test_the_sets_line_and_a_corpus_without_a_file(run_py, recipes):
    r = run_py("punct.bin.experiments", "sets", "--corpus", "c", "--recipes", str(recipes), "-q")
    assert _eval(r.stdout, "$train_sets|$valid_set|$test_sets|$reference_set|${names[*]}") == [
        "train big|dev|test||a b e p j h"]
    r = run_py("punct.bin.experiments", "sets", "--corpus", "nosuch", "--recipes", str(recipes), "-q")
    assert r.returncode == 1 and f"{Path(recipes) / 'nosuch' / 'experiments.yaml'}: no experiments file" in r.stderr


def test_a_missing_warm_start_can_leave_its_experiment_out(run_py, recipes):
    path = recipes / "c" / "experiments.yaml"
    path.write_text(GOOD.replace("warm_start: a", "warm_start: other/src\n    warm_start_missing: skip"))
    r = _list(run_py, recipes, "--stage", "6", "--exp-root", str(recipes.parent / "exp"))
    assert _eval(r.stdout, "$name") == ["a", "e"]
    assert "b left out: it trains on from" in r.stderr and "other/src/best.pt, which is not there yet" in r.stderr
    src = recipes.parent / "exp" / "other" / "src"
    src.mkdir(parents=True)
    (src / "best.pt").write_bytes(b"")
    r = _list(run_py, recipes, "--stage", "6", "--exp-root", str(recipes.parent / "exp"))
    assert _eval(r.stdout, "$name ${args[0]}") == [
        "a max_epochs=3", f"b init_from={src}/best.pt", "e a"]


def test_a_carried_run_trains_on_from_a_shipped_model(run_py, recipes):
    # its state file when there is one (punct.engine.start), else the model in models/
    path = recipes / "c" / "experiments.yaml"
    path.write_text(GOOD.replace("warm_start: a", "warm_start: models/default.pt\n    state: models/b/state.pt"))
    r = _list(run_py, recipes, "--stage", "6")
    assert r.returncode == 0, r.stderr
    assert _eval(r.stdout, "$name|${needs[*]}|${args[*]}")[1] == \
        "b|models/default.pt|--state models/b/state.pt init_from=models/default.pt"


def test_records_keep_spaces_empty_fields_and_shell_text_as_data():
    """A record's values reach run.sh as they were: spaces, an empty item, an empty field and
    text that eval would have run; a value holding a separator is refused."""
    from punct.bin.experiments import records

    out = "\n".join(records(("a", "b[]", "c", "d[]"), [{"a": "x y", "b": ["1 2", "", "$(touch pwned)"], "c": "", "d": []}]))
    assert _eval(out, "$a|${#b[@]}|${b[0]}|${b[1]}|${b[2]}|$c|${#d[@]}") == ["x y|3|1 2||$(touch pwned)||0"]
    assert not (ROOT / "pwned").exists()
    with pytest.raises(ValueError, match="holds a separator"):
        records(("a",), [{"a": "x\x1ey"}])
