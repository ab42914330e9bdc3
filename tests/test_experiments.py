"""punct.experiments (recipes/<corpus>/experiments.yaml) and punct.bin.experiments, the
lister run.sh's stages iterate over."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from punct.errors import PunctError
from punct.experiments import load, load_corpus

GOOD = """\
sets:
  train: [train, big]
  valid: dev
  test: [test]
paper_targets: test
experiments:
  a:
    config: conf/tbrnn.yaml
    train: train
    overrides: {max_epochs: 3, lr: 0.0002, model_args.dropout: 0.1, vocabulary: train+pretrained, tail_in_loss: false}
  b:
    config: conf/tlstm.yaml
    train: big
    valid: test
    warm_start: a
  e:
    ensemble: [a, b]
    weights: [2, 1.5]
    bias: tune
  p:
    stage: 7
    config: conf/che_pause.yaml
    train: train
    test: [test]
  j:
    joint: {lexical: a, acoustic: p}
    test: [test]
  h:
    hook: corpus_extra
    needs: [a]
"""


@pytest.fixture()
def recipes(tmp_path, repo_root):
    """A recipes folder with corpus c (experiments GOOD) beside a link to the repository's conf/."""
    (tmp_path / "conf").symlink_to(repo_root / "conf")
    (tmp_path / "recipes" / "c").mkdir(parents=True)
    (tmp_path / "recipes" / "c" / "experiments.yaml").write_text(GOOD)
    return tmp_path / "recipes"


def test_a_valid_file_resolves(recipes):
    r = load_corpus("c", recipes)
    assert r.corpus == "c" and r.sets.train == ("train", "big") and r.sets.valid == "dev" and r.paper_targets == "test"
    assert r.names == ("a", "b", "e", "p", "j", "h")
    a, b, e, p, j, h = r.experiments
    assert (a.kind, a.stage, a.valid) == ("train", 6, "dev")
    assert a.override_words() == ["max_epochs=3", "lr=0.0002", "model_args.dropout=0.1", "vocabulary=train+pretrained",
                                  "tail_in_loss=false"]
    assert (b.warm_start, b.valid) == ("a", "test")
    assert (e.kind, e.members, e.weights, e.bias) == ("ensemble", ("a", "b"), (2.0, 1.5), "tune")
    assert (p.stage, p.test) == (7, ("test",))
    assert (j.kind, j.stage, j.lexical, j.acoustic) == ("joint", 7, "a", "p")
    assert (h.kind, h.hook, h.needs) == ("hook", "corpus_extra", ("a",))
    # run.sh --models: a joint decision goes with its acoustic model
    assert [x.name for x in r.selected(["p"])] == ["p", "j"]
    with pytest.raises(PunctError, match=r"has no experiment 'zz' \(it has: a b e p j h\)"):
        r.selected(["a", "zz"])


@pytest.mark.parametrize("corpus", ["quick", "iwslt2011", "iwslt2011_text", "earnings", "ljspeech"])
def test_every_recipe_of_the_repository_loads(corpus):
    r = load_corpus(corpus)
    assert r is not None and r.sets.valid and r.sets.test


@pytest.mark.parametrize("edit, key, message", [
    (("experiments:", "extra: 1\nexperiments:"), "extra", "unknown key (expected one of: experiments, paper_targets, sets)"),
    (("    train: big\n", "    train: big\n    lr: 1\n"), "experiments.b.lr", "unknown key"),
    (("conf/tlstm.yaml", "conf/nosuch.yaml"), "experiments.b.config", "config file 'conf/nosuch.yaml' not found"),
    (("warm_start: a", "warm_start: zz"), "experiments.b.warm_start",
     "warm start 'zz' is not an experiment above this one in the file"),
    (("warm_start: a", "warm_start: b"), "experiments.b.warm_start", "warm start 'b' is this experiment itself (a cycle)"),
    (("warm_start: a", "warm_start: e"), "experiments.b.warm_start", "warm start 'e' is not an experiment above"),
    (("ensemble: [a, b]", "ensemble: [a, e]"), "experiments.e.ensemble", "member 'e' is this experiment itself"),
    (("ensemble: [a, b]", "ensemble: [a, j]"), "experiments.e.ensemble", "member 'j' is not an experiment above"),
    (("weights: [2, 1.5]", "weights: [2]"), "experiments.e.weights", "expected 2 numbers, found 1"),
    (("bias: tune", "bias: high"), "experiments.e.bias", "expected 'tune' or a list of numbers"),
    (("    stage: 7\n    config: conf/che", "    stage: 8\n    config: conf/che"), "experiments.p.stage",
     "a train entry belongs to stage 6 or 7, found 8"),
    (("    test: [test]\n  j:", "  j:"), "experiments.j", ""),  # (a stage 7 model without test sets is valid)
    (("max_epochs: 3,", "init_from: x,"), "experiments.a.overrides.init_from", "(a warm start is warm_start: NAME)"),
    (("vocabulary: train+pretrained", "vocabulary: 'a b'"), "experiments.a.overrides.vocabulary",
     "a scalar value without spaces"),
    (("paper_targets: test", "paper_targets: dev"), "paper_targets", "dev is not one of sets.test (test)"),
    (("  valid: dev\n", ""), "sets.valid", "missing"),
    (("  j:\n", "  a: {config: conf/tbrnn.yaml, train: train}\n  j:\n"), "experiments.a", "given twice"),
    (("joint: {lexical: a, acoustic: p}", "joint: {lexical: a}"), "experiments.j.joint.acoustic", "missing"),
    (("hook: corpus_extra", "hook: 'rm -rf'"), "experiments.h.hook", "expected the name of a shell function"),
    (("    config: conf/tbrnn.yaml\n    train: train\n", "    config: conf/tbrnn.yaml\n    train: train\n    test: [test]\n"),
     "experiments.a.test", "only a stage 7 entry names its own test sets"),
])
def test_each_bad_input_is_one_line_naming_the_file_and_key(recipes, edit, key, message):
    path = recipes / "c" / "experiments.yaml"
    old, new = edit
    assert old in GOOD
    path.write_text(GOOD.replace(old, new, 1))
    if not message:
        load(path, recipes.parent)
        return
    with pytest.raises(PunctError) as e:
        load(path, recipes.parent)
    text = str(e.value)
    assert text.startswith(f"{path}:") and f": {key}: " in text and message in text and "\n" not in text, text
    assert e.value.line is not None  # the line of the key (or of the entry holding it)


def test_invalid_yaml_names_its_line(recipes):
    path = recipes / "c" / "experiments.yaml"
    path.write_text("sets: [a\nexperiments: {}\n")
    with pytest.raises(PunctError, match=r"invalid YAML") as e:
        load(path, recipes.parent)
    assert e.value.path == str(path) and e.value.line is not None


def _list(run_py, recipes, *args):
    return run_py("punct.bin.experiments", "list", "--corpus", "c", "--recipes", str(recipes), "-q", *args)


ROOT = Path(__file__).resolve().parents[1]


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


def test_records_keep_spaces_empty_fields_and_shell_text_as_data():
    """A record's values reach run.sh as they were: spaces, an empty item, an empty field and
    text that eval would have run; a value holding a separator is refused."""
    from punct.bin.experiments import records

    out = "\n".join(records(("a", "b[]", "c", "d[]"), [{"a": "x y", "b": ["1 2", "", "$(touch pwned)"], "c": "", "d": []}]))
    assert _eval(out, "$a|${#b[@]}|${b[0]}|${b[1]}|${b[2]}|$c|${#d[@]}") == ["x y|3|1 2||$(touch pwned)||0"]
    assert not (ROOT / "pwned").exists()
    with pytest.raises(ValueError, match="holds a separator"):
        records(("a",), [{"a": "x\x1ey"}])
