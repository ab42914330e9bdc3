"""punct.scoring.wer (through its entry point punct.bin.wer): hypothesis WER by punct.scoring.score
and by NIST sclite on a hand-counted example, the STM and CTM sclite reads, errors found first."""
from __future__ import annotations

import json
import shutil

import pytest

from punct.bin import wer
from punct.scoring.wer import write_stm

# reference: 10 words in call-a, 4 in call-b
REF = {"call-a": "so revenue grew ten percent and margins were flat too",
       "call-b": "thank you very much"}
# call-a: "grew" deleted, "ten" -> "tin", "uh" inserted: 1 sub, 1 del, 1 ins; call-b: exact
HYP = {"call-a": "so uh revenue tin percent and margins were flat too",
       "call-b": "thank you very much"}


def _datadir(path, texts, times):
    path.mkdir(parents=True)
    (path / "text").write_text("".join(f"{k} {v}\n" for k, v in sorted(texts.items())), encoding="utf-8")
    (path / "utt2spk").write_text("".join(f"{k} {k}\n" for k in sorted(texts)), encoding="utf-8")
    (path / "spk2utt").write_text("".join(f"{k} {k}\n" for k in sorted(texts)), encoding="utf-8")
    if times:
        rows = []
        for k, v in sorted(texts.items()):
            n = len(v.split())
            rows.append(k + " " + " ".join(f"{0.5 * i:.3f},{0.5 * i + 0.4:.3f}" for i in range(n)) + "\n")
        (path / "word_times").write_text("".join(rows), encoding="utf-8")
    return path


@pytest.fixture()
def dirs(tmp_path):
    return _datadir(tmp_path / "ref", REF, False), _datadir(tmp_path / "hyp", HYP, True), tmp_path / "out"


def test_hand_counted_wer(dirs):
    ref, hyp, out = dirs
    assert wer.main(["--ref", str(ref), "--hyp", str(hyp), "--out-dir", str(out)]) == 0
    result = json.loads((out / "wer.json").read_text(encoding="utf-8"))
    ps = result["punct_score"]
    assert (ps["ref_words"], ps["substitutions"], ps["deletions"], ps["insertions"]) == (14, 1, 1, 1)
    assert ps["wer"] == round(300 / 14, 2)
    assert result["utterances"] == 2
    # the CTM for sclite was rebuilt from word_times: every hypothesis word, in time order
    ctm = (out / "hyp.ctm").read_text(encoding="utf-8").split("\n")
    assert [line.split()[4] for line in ctm if line] == (HYP["call-a"] + " " + HYP["call-b"]).split()
    if shutil.which("sctk") is None:
        assert result["sclite"] is None
    else:  # the independent scorer agrees
        sc = result["sclite"]
        assert (sc["words"], sc["wer"]) == (14, 21.4)


def test_one_utterance(dirs):
    ref, hyp, out = dirs
    assert wer.main(["--ref", str(ref), "--hyp", str(hyp), "--out-dir", str(out), "--utt", "call-b"]) == 0
    result = json.loads((out / "wer.json").read_text(encoding="utf-8"))
    assert result["utterances"] == ["call-b"]
    assert (result["punct_score"]["ref_words"], result["punct_score"]["wer"]) == (4, 0.0)
    assert "call-a" not in (out / "ref.stm").read_text(encoding="utf-8")


def test_stm_spans_come_from_segments_an_open_end_reaching_the_recording_end(tmp_path):
    ref = _datadir(tmp_path / "ref", REF, False)
    (ref / "segments").write_text("call-a rec 2.5 9.0\ncall-b rec 9.0 -1\n", encoding="utf-8")
    write_stm(ref, tmp_path / "ref.stm")
    lines = [line.split()[:5] for line in (tmp_path / "ref.stm").read_text(encoding="utf-8").splitlines()[1:]]
    assert lines == [["rec", "1", "call-a", "2.500", "9.000"], ["rec", "1", "call-b", "9.000", "1000000.000"]]


def test_unknown_utterance_is_one_line_error(dirs, capsys):
    ref, hyp, out = dirs
    assert wer.main(["--ref", str(ref), "--hyp", str(hyp), "--out-dir", str(out), "--utt", "call-z"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "call-z" in err and "text" in err and "\n" not in err


def test_missing_reference(tmp_path, capsys):
    hyp = _datadir(tmp_path / "hyp", HYP, True)
    assert wer.main(["--ref", str(tmp_path / "nope"), "--hyp", str(hyp), "--out-dir", str(tmp_path / "o")]) == 1
    assert "nope" in capsys.readouterr().err


def test_recognizer_ctm_goes_to_sclite_sorted_and_unpunctuated(dirs):
    """A hypothesis directory's own CTM (lines out of time order, marks attached, confidences)
    reaches sclite in start-time order, without the marks, confidences kept."""
    ref, hyp, out = dirs
    (hyp / "ctm").write_text(
        "call-b 1 0.500 0.400 you 0.9\n"
        "call-b 1 0.000 0.400 Thank 0.8\n"
        "call-b 1 1.000 0.400 very\n"
        "call-b 1 1.500 0.400 much. 0.7\n"
        "call-a 1 0.000 0.400 so,\n", encoding="utf-8")
    assert wer.main(["--ref", str(ref), "--hyp", str(hyp), "--out-dir", str(out)]) == 0
    lines = (out / "hyp.ctm").read_text(encoding="utf-8").splitlines()
    assert lines == ["call-a 1 0.00 0.40 so",
                     "call-b 1 0.00 0.40 Thank 0.80",
                     "call-b 1 0.50 0.40 you 0.90",
                     "call-b 1 1.00 0.40 very",
                     "call-b 1 1.50 0.40 much 0.70"]


def test_hypothesis_errors_are_found_before_the_output_is_touched(tmp_path, capsys):
    ref = _datadir(tmp_path / "ref", REF, False)
    extra = _datadir(tmp_path / "extra", {**HYP, "call-c": "one more"}, True)
    untimed = _datadir(tmp_path / "untimed", HYP, False)
    for hyp, line in ((extra, f"error: {extra / 'text'}: utterance 'call-c' is not in the reference {ref / 'text'} (1 such)"),
                      (untimed, f"error: {untimed / 'text'}: word 1 ('so') of call-a has no times: sclite needs "
                                "word_times or the recognizer's ctm")):
        out = tmp_path / f"out_{hyp.name}"
        assert wer.main(["--ref", str(ref), "--hyp", str(hyp), "--out-dir", str(out)]) == 1
        assert capsys.readouterr().err.strip().splitlines() == [line]
        assert not out.exists()
