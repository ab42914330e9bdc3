"""punct.experiments: recipes/<corpus>/experiments.yaml resolved, every recipe of the repository
loading, each bad input one line naming the file and key (the lister run.sh's stages iterate
over: tests/bin/test_experiments.py)."""
from __future__ import annotations

import pytest

from punct.errors import PunctError
from punct.experiments import load, load_corpus
from tests.experiment_files import GOOD


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
    (("warm_start: a", "warm_start: a\n    state: models/b.pt"), "experiments.b.state",
     "not an experiment's warm start"),  # (its best.pt goes with the machine; models/X.pt may: tests/bin)
    (("warm_start: a", "warm_start: models/../x.pt"), "experiments.b.warm_start", "or models/FILE.pt"),
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
