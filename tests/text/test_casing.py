"""True case in punct restore from a model with a case head (a tiny random MPNet tagger whose
heads are made deterministic by their biases), the mixed spellings kept at training time, and
the sentence case of --capitalize."""
import pytest
import torch

from punct.text.labels import CASES, LABELS
from punct.text.words import Word


@pytest.fixture
def case_model(tmp_path, tiny_mpnet):
    """save(case, end=...) writes a checkpoint whose case head predicts `case` for every word and
    whose mark head predicts O (PERIOD, or QUESTION with end="QUESTION", at the end of the input)."""
    from punct.engine import checkpoint
    from punct.engine.inputs import PieceInputs
    from punct.models import build_model, resolved_model_args

    inputs = PieceInputs("all-mpnet-base-v2")
    args = resolved_model_args("transformer_tagger", {"encoder": "all-mpnet-base-v2", "max_length": 16, "overlap": 4,
                                                      "pretrained": False, "case_head": True, "dropout": 0.0})

    def save(case, end="PERIOD", mixed=None, marks=None, cases=None):
        torch.manual_seed(0)
        m = build_model("transformer_tagger", args, inputs.input_size)
        with torch.no_grad():
            for head, classes, want in ((m.out, LABELS, "O"), (m.case_out, CASES, case)):
                head.weight.zero_()
                head.bias.fill_(0.0)
                head.bias[classes.index(want)] = 5.0
            m.out.bias[LABELS.index(end)] = 1.0
            for lab, b in (marks or {}).items():
                m.out.bias[LABELS.index(lab)] = b
            for c, b in (cases or {}).items():
                m.case_out.bias[CASES.index(c)] = b
        path = tmp_path / f"{case}-{end}-{len(marks or {})}{len(cases or {})}.pt"
        checkpoint.save(path, {"model": "transformer_tagger", "model_args": args, "vocab": [],
                               "inputs": inputs.state(), "labels": list(LABELS), "state_dict": m.state_dict(),
                               "train_config": {"slice_length": 16, "batch_size": 4},
                               "mixed_spellings": mixed or {}})
        return path

    return save


def _restore(tmp_path, model, text, **kw):
    from punct.restore import restore_file

    src = tmp_path / "in.txt"
    src.write_text(text + "\n")
    out = tmp_path / "out.txt"
    restore_file(src, out, model=model, **kw)
    return out.read_text().split()


def test_lower_case_keeps_words_lower_but_sentence_starts_and_i(case_model, tmp_path):
    m = case_model("LOWER", marks={"PERIOD": 5.5})  # a sentence end after every word
    got = _restore(tmp_path, m, "i think so i'm sure")
    assert got == ["I.", "Think.", "So.", "I'm.", "Sure."]
    m = case_model("LOWER")
    assert _restore(tmp_path, m, "the cat sat i'll see i've i'd said") == \
        ["The", "cat", "sat", "I'll", "see", "I've", "I'd", "said."]


def test_cap_upper_and_mixed_classes(case_model, tmp_path):
    assert _restore(tmp_path, case_model("CAP"), "the cat sat in paris") == ["The", "Cat", "Sat", "In", "Paris."]
    assert _restore(tmp_path, case_model("UPPER", end="QUESTION"), "what is ibm i") == \
        ["WHAT", "IS", "IBM", "I?"]  # "i" is always "I", even predicted ALL CAPS
    m = case_model("MIXED", mixed={"iphone": "iPhone", "mcdonald": "McDonald"})
    # a mixed spelling seen in training, else a capital first letter
    assert _restore(tmp_path, m, "my iphone at mcdonald") == ["My", "iPhone", "At", "McDonald."]


def test_a_capital_that_only_guessed_a_sentence_start_goes_after_a_comma(case_model, tmp_path):
    # every word: COMMA 0.45, PERIOD and O 0.27; case CAP 0.57, LOWER 0.42. The head's CAP is
    # in part its guess that a sentence starts; with a comma decided, lower is likelier
    m = case_model("CAP", marks={"COMMA": 5.5, "PERIOD": 5.0}, cases={"LOWER": 4.7})
    assert _restore(tmp_path, m, "thanks this was helpful") == ["Thanks,", "this,", "was,", "helpful."]
    # a sure capital (a name) stays one
    m = case_model("CAP", marks={"COMMA": 5.5, "PERIOD": 5.0}, cases={"LOWER": 2.0})
    assert _restore(tmp_path, m, "thanks mark") == ["Thanks,", "Mark."]


def test_mid_sentence_case_divides_out_the_chance_of_a_sentence_start():
    from punct.text.casing import mid_sentence_case

    lower, cap, upper = (CASES.index(c) for c in ("LOWER", "CAP", "UPPER"))
    assert mid_sentence_case([0.4, 0.6, 0.0, 0.0], 0.0) == cap  # no sentence start possible: the argmax
    assert mid_sentence_case([0.4, 0.6, 0.0, 0.0], 0.45) == lower  # m = 0.73 lower, 0.27 capital
    assert mid_sentence_case([0.05, 0.95, 0.0, 0.0], 0.45) == cap  # a name
    assert mid_sentence_case([0.05, 0.35, 0.6, 0.0], 0.5) == upper  # ALL CAPS is not a sentence start's
    assert mid_sentence_case([0.0, 1.0, 0.0, 0.0], 1.0) == cap  # end clipped: no division by 0


def test_all_caps_input_is_lowered_first_and_cased_input_kept(case_model, tmp_path):
    m = case_model("LOWER")
    assert _restore(tmp_path, m, "THE CAT SAT I THINK") == ["The", "cat", "sat", "I", "think."]
    # words with a capital keep the input's spelling; lower-case ones take the prediction
    assert _restore(tmp_path, case_model("UPPER"), "the Cat sat") == ["THE", "Cat", "SAT."]


def test_case_off_and_models_without_a_case_head(case_model, tmp_path):
    m = case_model("UPPER")
    assert _restore(tmp_path, m, "the cat sat i think", case=False) == ["the", "cat", "sat", "i", "think."]
    assert _restore(tmp_path, m, "the cat sat i think", case=False, capitalize_words=True) == \
        ["The", "cat", "sat", "I", "think."]
    from punct.bin.restore import main

    (tmp_path / "in2.txt").write_text("the cat sat\n")
    assert main([str(tmp_path / "in2.txt"), "--model", str(m), "-o", str(tmp_path / "o.txt")]) == 0
    assert (tmp_path / "o.txt").read_text().split() == ["THE", "CAT", "SAT."]
    assert main([str(tmp_path / "in2.txt"), "--model", str(m), "--no-case", "-o", str(tmp_path / "o.txt")]) == 0
    assert (tmp_path / "o.txt").read_text().split() == ["the", "cat", "sat."]
    assert main([str(tmp_path / "in2.txt"), "--model", str(m), "--capitalize", "-o", str(tmp_path / "o.txt")]) == 0
    assert (tmp_path / "o.txt").read_text().split() == ["THE", "CAT", "SAT."]  # a fallback: true case wins


def test_mixed_spellings_of_a_written_file(tmp_path):
    from punct.data.datadir import mixed_spellings

    assert mixed_spellings(tmp_path) == {}
    (tmp_path / "written").write_text("a iPhone McDonald the IPhone iPhone\n"
                                      "b McDonald iPod Mcdonald McDONALD McDONALD McDONALD IBM Paris\n")
    # most frequent mixed spelling of each word, seen at least twice; CAP and UPPER are no mixed spellings
    assert mixed_spellings(tmp_path) == {"iphone": "iPhone", "mcdonald": "McDONALD"}
    assert mixed_spellings(tmp_path, min_count=1) == {"iphone": "iPhone", "ipod": "iPod", "mcdonald": "McDONALD"}


def test_training_a_case_head_keeps_the_mixed_spellings(tmp_path, tiny_mpnet):
    from punct.data.datadir import write_datadir
    from punct.engine import checkpoint
    from punct.engine.config import TrainConfig
    from punct.engine.train import train
    from punct.text.words import Utterance, Word

    spelled = "the iPhone sat on the mat in Paris . I sat on the iPhone , the IPhone sat ?".split()
    words = []
    for t in spelled:
        if t in ".,?":
            words[-1].label = {".": "PERIOD", ",": "COMMA", "?": "QUESTION"}[t]
        else:
            words.append(Word(t.lower(), written=t if t != t.lower() else None))
    for name in ("train", "dev"):
        write_datadir(tmp_path / name, [Utterance("u1", words)])
    assert "iPhone" in (tmp_path / "train" / "written").read_text()
    cfg = TrainConfig(model="transformer_tagger", model_args={"encoder": "all-mpnet-base-v2", "max_length": 16,
                                                              "overlap": 4, "pretrained": False, "case_head": True},
                      max_epochs=1, slice_length=8, batch_size=2, threads=1)
    train(cfg, tmp_path / "train", tmp_path / "dev", tmp_path / "exp")
    ck = checkpoint.load(tmp_path / "exp" / "best.pt")
    assert ck["mixed_spellings"] == {"iphone": "iPhone"}  # IPhone once: not kept
    assert ck["case_lexicon"] == {}  # no word seen 5 times inside a sentence


def test_the_case_lexicon_holds_words_spelled_one_way_inside_sentences():
    from punct.data.datadir import case_lexicon_of
    from punct.text.words import Utterance

    def utt(text):  # "Word." ends a sentence; the written form where it is not the text
        ws = []
        for t in text.split():
            lab = "PERIOD" if t.endswith(".") else "O"
            t = t.rstrip(".")
            ws.append(Word(t.lower(), lab, written=t if t != t.lower() else None))
        return Utterance("u", ws)

    utts = [utt("so the CEO met Paris and the iPhone. The end")] * 5 + [utt("we saw paris")]
    # "The" only starts sentences; Paris 5 of 6 inside sentences (83%); "so" is first in the utterance
    assert case_lexicon_of(utts) == {"ceo": "UPPER", "iphone": "MIXED"}
    assert case_lexicon_of(utts, min_share=0.8) == {"ceo": "UPPER", "iphone": "MIXED", "paris": "CAP"}
    assert case_lexicon_of(utts[:4]) == {}  # seen 4 times: fewer than 5


def test_a_lexicon_word_takes_its_class_whatever_the_head_says(case_model, tmp_path):
    import punct
    from punct.engine import checkpoint

    m = case_model("LOWER")
    ck = checkpoint.load(m)
    ck["case_lexicon"] = {"ceo": "UPPER", "paris": "CAP"}
    checkpoint.save(m, ck)
    assert punct.restore("the ceo sat in paris", model=m) == "The CEO sat in Paris."
    assert punct.restore("the ceo sat in paris", model=m, case=False) == "the ceo sat in paris."


def test_a_word_id_model_with_a_case_head(tmp_path):
    """T-BRNN's case head (word ids, a word split into tokens takes the class of its first)."""
    from punct.engine import checkpoint
    from punct.engine.vocab import Vocabulary
    from punct.models import build_model, resolved_model_args
    from punct.restore import restore_file

    vocab = Vocabulary.build([["do", "n't", "stop", "me", "now"]], min_count=1)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8, "case_head": True})
    torch.manual_seed(0)
    m = build_model("tbrnn", args, len(vocab))
    with torch.no_grad():
        m.case_out.weight.zero_()
        m.case_out.bias.copy_(torch.tensor([0.0, 0.0, 5.0, 0.0]))  # UPPER
    path = tmp_path / "t.pt"
    checkpoint.save(path, {"model": "tbrnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": m.state_dict(), "train_config": {"slice_length": 8, "batch_size": 4}})
    (tmp_path / "in.txt").write_text("don't stop me now\n")
    hyp = restore_file(tmp_path / "in.txt", tmp_path / "out.txt", model=path)
    assert [w.written for w in hyp[0].words] == ["DON'T", "STOP", "ME", "NOW"]


def test_the_python_api_gives_true_case_unless_asked_not_to(case_model):
    import punct

    m = case_model("UPPER")
    assert punct.restore("the cat sat", model=m) == "THE CAT SAT."
    assert punct.restore("the cat sat", model=m, case=False) == "the cat sat."
    assert punct.load(m, case=False, capitalize=True).restore("the cat sat") == "The cat sat."
    assert punct.load(m, capitalize=True).restore("the cat sat") == "THE CAT SAT."  # true case has the capitals
    assert [w.text for w in punct.load(m).restore_words([("ibm", 0.0, 0.3), ("rose", 0.4, 0.7)])] == ["IBM", "ROSE"]


def test_capitalize_gives_sentence_case_to_lower_case_words_only():
    from punct.text.casing import capitalize

    def w(text, label="O", written=None):
        return Word(text, label, written=written)

    one = [w("so"), w("i", "COMMA"), w("think", "PERIOD"), w("iphone", written="iPhone"), w("sales", "QUESTION"),
           w("good", written="GOOD"), w("i'm", "PERIOD"), w("'cause"), w("2020", "PERIOD")]
    two = [w("and", "COMMA"), w("i'll", "O"), w("go", "O")]
    assert capitalize([one, two]) == 5
    assert [x.written or x.text for x in one + two] == [
        "So", "I", "think", "iPhone", "sales", "GOOD", "I'm", "'cause", "2020", "And", "I'll", "go"]
    assert [x.text for x in one][:2] == ["so", "i"]  # what models and scorers read stays lower case
    assert capitalize([one, two]) == 0  # a second pass changes nothing


def test_capitalize_the_pronoun_written_with_a_curly_apostrophe():
    """i\u2019m and i\u2019ll, as typed text writes them, are the pronoun I too (they stayed lower case)."""
    from punct.text.casing import capitalize

    words = [Word("so"), Word("i\u2019m"), Word("here", "COMMA"), Word("i\u2019ll"), Word("go", "PERIOD")]
    assert capitalize([words]) == 3
    assert [x.written or x.text for x in words] == ["So", "I\u2019m", "here", "I\u2019ll", "go"]


def test_capitalize_lowers_an_all_caps_input_first():
    from punct.text.casing import all_caps, capitalize

    def w(text, label="O"):
        return Word(text.lower(), label, written=text)

    one = [w("LADIES"), w("AND"), w("GENTLEMEN", "COMMA"), w("I'M"), w("GRAIL'S"), w("CEO", "PERIOD"), w("Q3")]
    two = [w("2020", "PERIOD"), w("I")]
    assert all_caps([one, two])
    assert capitalize([one, two]) == 6  # Q3 (a sentence start) and I come back as they were
    assert [x.written for x in one + two] == ["Ladies", "and", "gentlemen", "I'm", "grail's", "ceo", "Q3", "2020", "I"]
    assert capitalize([one, two]) == 0
    # one lower-case letter anywhere: the capitals are the input's own and stay
    mixed = [[w("GOOD"), w("morning", "PERIOD"), w("NASA")]]
    assert not all_caps(mixed) and capitalize(mixed) == 0
    assert not all_caps([[w("2020"), w("42")]]) and not all_caps([[]])
