"""punct.scoring.score: marks scored on hand-worked examples of identical words and of ASR
hypotheses aligned to the reference, per utterance or as one stream, dropped marks, non-speech
tokens, case; undefined metrics are None."""
import json

import pytest

from punct.results import _class, _get
from punct.errors import PunctError
from punct.scoring.score import score_labels, score_utterances
from punct.text.words import Utterance, Word


def test_hand_worked_identical_words():
    # slot:  0  1      2  3      4       5  6  7      8  9
    # ref:   O  COMMA  O  O      PERIOD  O  O  COMMA  O  QUESTION
    # hyp:   O  COMMA  O  COMMA  COMMA   O  O  O      O  QUESTION
    # slot 3 is an insertion (O->COMMA), slot 4 a substitution (PERIOD->COMMA),
    # slot 7 a deletion (COMMA->O); slots 1 and 9 are right.
    # COMMA:    tp 1 (slot 1), fp 2 (slots 3, 4), fn 1 (slot 7): P 1/3 = 33.33, R 1/2 = 50, F1 2/(2+2+1) = 40
    # PERIOD:   tp 0, fp 0, fn 1: P undefined, R 0, F1 0
    # QUESTION: tp 1: 100 100 100
    # overall:  tp 2, fp 2, fn 2: P 50, R 50, F1 50
    # SER = (S 1 + D 1 + I 1) / 4 reference marks = 75; Err = 3 wrong slots / 10 = 30
    # boundary: both marked at 1, 4, 9 (tp 3), fp slot 3, fn slot 7: 75 75 75
    ref = "O COMMA O O PERIOD O O COMMA O QUESTION".split()
    hyp = "O COMMA O COMMA COMMA O O O O QUESTION".split()
    r = score_labels(ref, hyp, words=[f"w{i}" for i in range(10)])
    c = r.per_class["COMMA"]
    assert (c.tp, c.fp, c.fn) == (1, 2, 1)
    assert c.precision == pytest.approx(100 / 3) and c.recall == 50.0 and c.f1 == pytest.approx(40.0)
    p = r.per_class["PERIOD"]
    assert p.precision is None and p.recall == 0.0 and p.f1 == 0.0
    assert r.per_class["QUESTION"].f1 == 100.0
    assert (r.overall.precision, r.overall.recall, r.overall.f1) == (50.0, 50.0, 50.0)
    assert (r.substitutions, r.deletions, r.insertions, r.ref_marks) == (1, 1, 1, 4)
    assert r.ser == 75.0 and r.err == 30.0
    assert (r.boundary.tp, r.boundary.fp, r.boundary.fn) == (3, 1, 1) and r.boundary.f1 == 75.0
    assert r.confusion["O"] == {"O": 5, "COMMA": 1, "PERIOD": 0, "QUESTION": 0}
    assert r.confusion["PERIOD"] == {"O": 0, "COMMA": 1, "PERIOD": 0, "QUESTION": 0}
    assert r.transfer is None and r.wer is None
    assert [(e.index, e.ref, e.hyp) for e in r.errors] == [(3, "O", "COMMA"), (4, "PERIOD", "COMMA"), (7, "COMMA", "O")]
    assert r.errors[2].context == "... w3 w4 w5 w6 w7 [COMMA->O] w8 w9"


def _utt(uid: str, spec: str) -> Utterance:
    words = []
    for tok in spec.split():
        text, _, lab = tok.partition("/")
        words.append(Word(text, lab or "O"))
    return Utterance(uid, words)


def test_hand_worked_asr_hypothesis():
    # reference:  so, we grew revenue. did margins improve? yes, they did.
    # hypothesis: so, we grew. did margin improve. they did okay,
    # alignment:  M so, M we, M grew, D revenue, M did, S margins/margin, M improve,
    #             D yes, M they, M did, I okay  -> S 1 + D 2 + I 1 = 4 errors / 10 words: WER 40
    # transfer:   so, carried; revenue. moved onto "grew"; improve? carried; yes, moved onto
    #             "improve" which holds "?": merged (dropped); did. carried  -> 3 carried, 1 moved, 1 dropped
    # slots (hypothesis words) ref/hyp:
    #   so C/C  we O/O  grew P/P  did O/O  margin O/O  improve Q/P  they O/O  did P/O  okay O/C
    # COMMA:    tp 1, fp 1 (okay), fn 0: P 50, R 100, F1 2/(2+1) = 66.67
    # PERIOD:   tp 1 (grew), fp 1 (improve), fn 1 (did): 50 50 50
    # QUESTION: tp 0, fp 0, fn 1: P undefined, R 0, F1 0
    # overall:  tp 2, fp 2, fn 2: 50 50 50
    # SER = (S 1 improve + D 1 did + I 1 okay) / 4 reference marks on the slots = 75
    # Err = 3 wrong / 9 slots = 33.33; boundary: tp 3 (so, grew, improve), fp 1, fn 1: 75
    ref = [_utt("call1", "so/COMMA we grew revenue/PERIOD did margins improve/QUESTION yes/COMMA they did/PERIOD")]
    hyp = [_utt("call1", "so/COMMA we grew/PERIOD did margin improve/PERIOD they did okay/COMMA")]
    r = score_utterances(ref, hyp)
    t = r.transfer
    assert (t.substitutions, t.deletions, t.insertions, t.ref_words) == (1, 2, 1, 10)
    assert r.wer == 40.0
    assert (t.marks, t.carried, t.moved, t.dropped, t.on_deleted) == (5, 3, 1, 1, 2)
    assert r.per_class["COMMA"].f1 == pytest.approx(200 / 3)
    assert (r.per_class["PERIOD"].precision, r.per_class["PERIOD"].recall) == (50.0, 50.0)
    assert r.per_class["QUESTION"].precision is None and r.per_class["QUESTION"].f1 == 0.0
    assert (r.overall.precision, r.overall.recall, r.overall.f1) == (50.0, 50.0, 50.0)
    assert r.ser == 75.0
    assert r.err == pytest.approx(100 / 3)
    assert r.boundary.f1 == 75.0
    assert [(e.utt, e.index, e.ref, e.hyp) for e in r.errors] == [
        ("call1", 5, "QUESTION", "PERIOD"), ("call1", 7, "PERIOD", "O"), ("call1", 8, "O", "COMMA")]
    table = r.format_table()
    assert "WER 40.0" in table and "SER 75.0" in table
    assert "carried 3" in table and "on deleted words 2" in table


def test_utterance_ids_that_differ_make_one_stream():
    ref = [_utt("a", "hi/COMMA there/PERIOD"), _utt("b", "how are you/QUESTION")]
    hyp = [_utt("x", "hi/COMMA there how/PERIOD are you/QUESTION")]
    r = score_utterances(ref, hyp)
    # "there" lost its PERIOD in the hypothesis, "how" got one: one deletion and one insertion
    assert (r.deletions, r.insertions, r.substitutions) == (1, 1, 0)
    assert r.wer == 0.0
    assert [(e.utt, e.index) for e in r.errors] == [("x", 1), ("x", 2)]


def test_per_utterance_alignment_when_ids_match():
    ref = [_utt("b", "so/PERIOD"), _utt("a", "hello/COMMA world/PERIOD")]
    hyp = [_utt("a", "hello/COMMA world/PERIOD"), _utt("b", "so/QUESTION")]
    r = score_utterances(ref, hyp)
    assert r.slots == 3 and r.substitutions == 1 and r.errors[0].utt == "b"


@pytest.mark.parametrize(
    "ref,hyp,expect",
    [
        # no marks anywhere: P, R, F1, SER undefined; Err defined
        ("O O O", "O O O", dict(p=None, r=None, f1=None, ser=None, err=0.0)),
        # spurious marks without reference marks: precision 0, recall and F1 undefined
        ("O O O", "COMMA O O", dict(p=0.0, r=None, f1=None, ser=None, err=100 / 3)),
        # reference marks, none predicted: precision undefined, recall 0, F1 0
        ("O COMMA O", "O O O", dict(p=None, r=0.0, f1=0.0, ser=100.0, err=100 / 3)),
        # nothing at all
        ("", "", dict(p=None, r=None, f1=None, ser=None, err=None)),
    ],
)
def test_undefined_metrics_are_none(ref, hyp, expect):
    r = score_labels(ref.split(), hyp.split())
    assert r.overall.precision == expect["p"]
    assert r.overall.recall == expect["r"]
    assert r.overall.f1 == expect["f1"]
    assert r.ser == expect["ser"]
    assert r.err == (pytest.approx(expect["err"]) if expect["err"] is not None else None)
    d = json.loads(r.to_json())
    assert d["overall"]["f1"] == expect["f1"] and d["ser"] == expect["ser"]
    assert "-" in r.format_table().splitlines()[5]  # the overall row prints undefined values as '-'


def test_bad_input_is_a_punct_error():
    with pytest.raises(PunctError, match="3 reference labels but 2 hypothesis labels"):
        score_labels(["O", "O", "O"], ["O", "O"])
    with pytest.raises(PunctError, match="unknown label 'EXCLAIM'"):
        score_labels(["O"], ["EXCLAIM"])


def test_json_layout_is_what_results_reads(tmp_path):
    r = score_labels("O COMMA PERIOD QUESTION".split(), "O COMMA COMMA QUESTION".split())
    r.write_dir(tmp_path / "scoring")
    names = sorted(p.name for p in (tmp_path / "scoring").iterdir())
    assert names == ["confusion.txt", "errors.txt", "report.json", "report.txt"]
    d = json.loads((tmp_path / "scoring" / "report.json").read_text())
    assert _class(d, "COMMA")["precision"] == 50.0 and _class(d, "COMMA")["recall"] == 100.0
    assert _class(d, "PERIOD")["f1"] == 0.0
    assert _class(d, "OVERALL")["f1"] == pytest.approx(r.overall.f1)
    assert d["ser"] == pytest.approx(100 / 3) and d["err"] == 25.0
    assert _get(d, "boundary", "f1") == 100.0
    assert d["confusion"]["matrix"][2] == [0, 1, 0, 0]
    assert (tmp_path / "scoring" / "errors.txt").read_text() == "2\tPERIOD->COMMA\t[PERIOD->COMMA]\n"
    conf = (tmp_path / "scoring" / "confusion.txt").read_text().splitlines()
    assert conf[0].split() == ["ref", "\\", "hyp", "O", "COMMA", "PERIOD", "QUESTION"]
    assert conf[3].split() == ["PERIOD", "0", "1", "0", "0"]
    assert (tmp_path / "scoring" / "report.txt").read_text() == r.format_table()


def test_sentence_ends_whatever_their_type():
    # slot:  0       1         2      3       4
    # ref:   PERIOD  QUESTION  COMMA  O       PERIOD
    # hyp:   QUESTION PERIOD   PERIOD PERIOD  O
    # sentence ends: tp 2 (slots 0, 1: an end either way), fp 2 (slots 2, 3), fn 1 (slot 4): P 50, R 66.7, F1 57.1
    r = score_labels("PERIOD QUESTION COMMA O PERIOD".split(), "QUESTION PERIOD PERIOD PERIOD O".split())
    assert (r.sentence.tp, r.sentence.fp, r.sentence.fn) == (2, 2, 1)
    assert r.sentence.f1 == pytest.approx(400 / 7)
    assert r.to_dict()["sentence"]["f1"] == pytest.approx(400 / 7)
    assert "sentence" in r.format_table()


def test_dropped_marks_are_reported_and_scored_only_when_asked():
    """A mark whose word was deleted lands on the word before; when that word has a mark already
    (or there is none), the mark is dropped: not scored by default, a missed mark with count_dropped."""
    from punct.scoring.score import LOST_WORD, aligned_slots, score_utterances
    from punct.text.words import Utterance, Word

    ref = [Utterance("u", [Word("hello", "COMMA"), Word("so", "PERIOD"), Word("uh", "COMMA"), Word("we", "O"),
                           Word("grew", "QUESTION")])]
    hyp = [Utterance("u", [Word("so", "PERIOD"), Word("we", "O"), Word("grew", "QUESTION")])]
    plain = score_utterances(ref, hyp)
    assert plain.transfer.dropped == 2 and plain.ref_marks == 2  # hello's comma (no word before), uh's comma
    assert plain.overall.recall == 100.0
    strict = score_utterances(ref, hyp, count_dropped=True)
    assert strict.ref_marks == 4 and strict.per_class["COMMA"].fn == 2 and strict.overall.recall == 50.0
    assert strict.deletions == 2 and strict.ser == 50.0
    streams, _ = aligned_slots(ref, hyp, count_dropped=True)
    assert streams[0].words == [LOST_WORD, "so", LOST_WORD, "we", "grew"]
    assert streams[0].locs == [("u", 0), ("u", 0), ("u", 0), ("u", 1), ("u", 2)]
    assert [e.format().split("\t")[0] for e in strict.errors] == ["u 0", "u 0"]


def test_a_weaker_mark_is_the_one_dropped():
    from punct.scoring.score import score_utterances
    from punct.text.words import Utterance, Word

    # "yes," deleted word "no." -> the period replaces the comma on "yes"; the comma is the lost mark
    ref = [Utterance("u", [Word("well", "O"), Word("yes", "COMMA"), Word("no", "PERIOD")])]
    hyp = [Utterance("u", [Word("well", "O"), Word("yes", "PERIOD")])]
    strict = score_utterances(ref, hyp, count_dropped=True)
    assert strict.per_class["PERIOD"].tp == 1 and strict.per_class["COMMA"].fn == 1


def test_non_speech_tokens_are_neither_slots_nor_words():
    """A recognizer's [noise] or <sil> is not scored: no slot, no insertion in the word error rate
    (as Kaldi's scoring filters them), and a reference mark is not carried onto it; a mark after
    such a token in the reference goes to the word before it. The listing keeps the input's index."""
    from punct.scoring.score import aligned_slots, score_utterances
    from punct.text.words import Utterance, Word

    ref = [Utterance("u", [Word("so", "COMMA"), Word("we", "O"), Word("grew", "O"), Word("[laughter]", "PERIOD"),
                           Word("then", "O"), Word("<unk>", "PERIOD")])]
    hyp = [Utterance("u", [Word("so", "O"), Word("[noise]", "O"), Word("we", "O"), Word("grew", "PERIOD"),
                           Word("<sil>", "O"), Word("then", "O"), Word("<unk>", "O")])]
    r = score_utterances(ref, hyp)
    assert r.transfer.wer == 0.0 and r.slots == 5
    assert (r.overall.tp, r.overall.fn, r.overall.fp) == (1, 2, 0)
    streams, _ = aligned_slots(ref, hyp)
    assert streams[0].words == ["so", "we", "grew", "then", "<unk>"]
    assert streams[0].ref == ["COMMA", "O", "PERIOD", "O", "PERIOD"]
    assert [e.format().split("\t")[0] for e in r.errors] == ["u 0", "u 6"]
    # all words as one stream (utterance ids differ): the same slots
    one = score_utterances(ref, [Utterance("other", hyp[0].words)])
    assert one.slots == 5 and one.transfer.wer == 0.0


def test_utterances_that_pair_by_id_only_in_part_are_refused():
    from punct.errors import PunctError
    from punct.scoring.score import aligned_slots

    def utt(uid, *words):
        return Utterance(uid, [Word(w) for w in words])

    ref = [utt("a", "so", "we"), utt("b", "grew", "fast")]
    # a folder of calls against another with one call missing and one extra: not one stream
    with pytest.raises(PunctError, match=r"hypothesis utterance 'c' has no reference utterance \(1 such; 1 ids match\)"):
        aligned_slots(ref, [utt("a", "so", "we"), utt("c", "grew", "fast")])
    # no id in common: all words as one stream, as before; a subset of the ids: paired
    assert len(aligned_slots(ref, [utt("x", "so", "we"), utt("y", "grew", "fast")])[0]) == 1
    assert len(aligned_slots(ref, [utt("b", "grew", "fast")])[0]) == 2


def _cased(spec: str, uid: str = "u") -> Utterance:
    """``Apple Inc sells the iPhone in the US. I think so.`` as words with spellings and labels."""
    from punct.io.sentences import word_from_token

    return Utterance(uid, [word_from_token(t) for t in spec.split()])


CASE_REF = "Apple Inc sells the iPhone in the US. I think so."
#: "Inc" deleted, "The" and the inserted "Now" wrongly capitalized, "i" in lower case
CASE_HYP = "Apple sells the iPhone in The US. i think so. Now"


def test_case_scores_on_aligned_words():
    from punct.scoring.score import score_utterances

    rep = score_utterances([_cased(CASE_REF)], [_cased(CASE_HYP)])
    pc = rep.case_classes
    assert (pc["CAP"].tp, pc["CAP"].fp, pc["CAP"].fn) == (1, 2, 2)  # Apple; The, Now; Inc (deleted), I
    assert (pc["UPPER"].tp, pc["UPPER"].fp, pc["UPPER"].fn) == (1, 0, 0)
    assert (pc["MIXED"].tp, pc["MIXED"].fp, pc["MIXED"].fn) == (1, 0, 0)
    assert rep.case_overall.f1 == pytest.approx(60.0)
    assert rep.case_confusion["CAP"]["LOWER"] == 2 and rep.case_confusion["LOWER"]["CAP"] == 2
    # events: Apple, iPhone, US., so. right (4); The, Now false alarms; i and the deleted Inc missed
    mc = rep.mark_case
    assert (mc.tp, mc.fp, mc.fn) == (4, 2, 2) and mc.f1 == pytest.approx(200 * 4 / 12)
    d = rep.to_dict()
    assert d["case"]["classes"]["CAP"]["f1"] == pytest.approx(100 / 3) and d["mark_case"]["tp"] == 4
    text = rep.format_table()
    assert "case CAP" in text and "mark+case" in text and "case confusion" in text
    # a word right in mark but not in case is wrong in mark+case, and the marks' scores do not move
    worse = score_utterances([_cased(CASE_REF)], [_cased(CASE_HYP.replace("US.", "us."))])
    assert worse.mark_case.tp == 3 and worse.overall.tp == rep.overall.tp


def test_case_is_scored_only_when_both_sides_are_cased():
    from punct.scoring.score import score_utterances

    for hyp in (CASE_HYP.lower(), CASE_HYP.upper()):
        rep = score_utterances([_cased(CASE_REF)], [_cased(hyp)])
        assert rep.case_confusion is None and rep.mark_case is None
        assert rep.to_dict()["case"] is None and "case not scored" in rep.format_table()
    assert score_utterances([_cased(CASE_REF.lower())], [_cased(CASE_HYP)]).case_confusion is None
    # a lower-case reference with one stray capital in 400 words (mojibake: schrÃ¶dinger) is not cased
    stray = " ".join(["so it goes."] * 133) + " schrÃ¶dinger"
    assert score_utterances([_cased(stray)], [_cased(stray.capitalize())]).case_confusion is None
    assert score_utterances([_cased(stray.capitalize())], [_cased(stray)]).case_confusion is None
    # counting the dropped marks keeps the case counts
    from punct.scoring.score import aligned_slots, score_streams

    streams, tr = aligned_slots([_cased("A, b. c d.")], [_cased("A c d.")], count_dropped=True)
    rep = score_streams(streams, tr)
    assert rep.case_classes["CAP"].tp == 1 and rep.slots == 4
