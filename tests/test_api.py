"""The Python API (punct.api, re-exported by the package): one call for a string or timed
words, the model loaded once, the same marks as the command's path, a cheap import."""
from __future__ import annotations

import subprocess
import sys

import pytest

import punct
from punct import api
from punct.errors import PunctError
from punct.text.labels import LABEL_TO_MARK
from punct.engine.restorer import Restorer as Engine
from punct.text.words import Utterance, Word

CALL = ("good morning everyone and welcome to the third quarter earnings call my name is sarah "
        "and i will be your operator today how was the quarter it was a strong quarter thank you").split()
PAUSE_AFTER = {"call", "sarah", "today", "quarter", "you"}


def timed(words: list[str]) -> list[tuple[str, float, float]]:
    out, t = [], 0.0
    for w in words:
        out.append((w, round(t, 2), round(t + 0.25, 2)))
        t += 0.25 + (0.6 if w in PAUSE_AFTER else 0.03)
    return out


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(None)


def test_import_punct_loads_neither_torch_nor_numpy():
    code = "import sys, punct; print(sorted(m for m in ('torch', 'numpy', 'punct.api') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_restore_text_gives_the_engines_marks_on_one_line(engine):
    text = " ".join(CALL)
    got = punct.restore(text)
    (utt,) = engine.restore([Utterance("text", [Word(w) for w in CALL])])
    want = " ".join(w.text + LABEL_TO_MARK[w.label] for w in utt.words)
    assert got.lower() == want and got[0].isupper()  # the default model's case head spells it in true case
    assert punct.restore(text, case=False) == want
    assert "\n" not in got and got != text  # the model put marks in
    assert [t.strip(",.?").lower() for t in got.split()] == CALL


def test_restore_replaces_marks_already_there_and_keeps_spelling():
    plain = punct.restore("Good morning everyone and welcome to the call")
    marked = punct.restore("Good, morning. everyone and welcome to the call?")
    assert plain == marked and plain.startswith("Good")
    assert punct.restore("") == "" and punct.restore("  , . ") == ""


def test_capitalize_gives_sentence_case():
    out = punct.restore(" ".join(CALL), capitalize=True)
    assert out[0] == "G" and " I " in f" {out} "


def test_restore_words_keeps_words_and_times_and_uses_them(engine):
    words = timed(CALL)
    out = punct.restore_words(words, case=False)
    assert [(w.text, w.start, w.end) for w in out] == words
    assert all(isinstance(w, punct.RestoredWord) and w.mark == LABEL_TO_MARK[w.label] for w in out)
    (utt,) = engine.restore([Utterance("u", [Word(t, start=s, end=e) for t, s, e in words])])
    assert [w.label for w in out] == [w.label for w in utt.words]
    assert "".join(w.mark for w in out).count(".") + "".join(w.mark for w in out).count("?") >= 2
    assert str(out[-1]) == out[-1].text + out[-1].mark


def test_restore_words_takes_strings_word_objects_and_its_own_output():
    words = timed(CALL[:8])
    first = punct.restore_words(words)
    assert punct.restore_words(first) == first  # marks of the input are replaced, not kept
    assert [w.label for w in punct.restore_words([Word(t, start=s, end=e) for t, s, e in words])] == \
        [w.label for w in first]
    untimed = punct.restore_words(CALL[:8], case=False)
    assert [w.start for w in untimed] == [None] * 8 and [w.text for w in untimed] == CALL[:8]
    assert punct.restore_words([]) == []


@pytest.mark.parametrize("bad,msg", [
    ([("so", 1.0)], "expected \\(text,\\) or"),
    ([("so", 1.0, None)], "both times or neither"),
    ([("so", 2.0, 1.0)], "ends at 1.0 before"),
    (["two words"], "expected one word"),
    ([","], "marks only"),
    ([3], "got int"),
    ([("a", "x", "y")], "times must be numbers"),
    ([("a", 0.0, float("nan"))], "times must be finite"),
])
def test_restore_words_refuses_malformed_words(bad, msg):
    with pytest.raises(PunctError, match=msg):
        punct.restore_words(bad)


def test_the_default_model_is_loaded_once(monkeypatch):
    calls = []
    real = Engine.load.__func__

    def counting(cls, *a, **k):
        calls.append(a)
        return real(cls, *a, **k)

    api._loaded.cache_clear()
    monkeypatch.setattr(Engine, "load", classmethod(counting))
    punct.restore("so how are you")
    punct.restore_words(["so", "how", "are", "you"])
    punct.restore("fine thanks", capitalize=True)
    assert len(calls) == 1
    api._loaded.cache_clear()


def test_load_gives_a_reusable_restorer_and_an_ensemble(engine):
    r = punct.load()
    assert isinstance(r, punct.Restorer) and r.restore("so how are you") == punct.restore("so how are you")
    ens = punct.load([engine_path := punct.engine.restorer.DEFAULT_MODEL, engine_path])
    # two copies of one model: the mean of equal posteriors is each member's decision
    assert ens.restore(" ".join(CALL)) == punct.load(case=False).restore(" ".join(CALL))  # an ensemble predicts no case
    with pytest.raises(PunctError, match="model file not found"):
        punct.load("no/such/model.pt")


def test_punct_restore_is_the_module_and_the_function_whichever_comes_first():
    code = ("from punct.restore import restore_file\n"
            "import punct\n"
            "import punct.restore as rs\n"
            "assert rs.restore_file is restore_file and punct.restore is rs\n"
            "print(punct.restore('yes no'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().replace(",", "").replace(".", "").lower() == "yes no"
    assert out.stderr == ""  # a library logs nothing unless the application asks


def test_the_readme_s_restore_examples_print_what_they_say():
    """Each ``punct.restore(...)  # 'result'`` line of the README's Python section, run on the
    shipped default, gives the result its comment shows."""
    import ast
    import re
    from pathlib import Path

    import punct

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"^(punct\.restore\(.*\))\s+# ('.*')$", readme, flags=re.M)
    assert len(found) >= 2
    for call, shown in found:
        args = ast.parse(call, mode="eval").body
        text = ast.literal_eval(args.args[0])
        kw = {k.arg: ast.literal_eval(k.value) for k in args.keywords}
        assert punct.restore(text, **kw) == ast.literal_eval(shown), call
