"""Stages 2-5 of the recipe on a two-recording data directory of Festival speech, job by job:
split, align, merge, decode, merge (+ WER), pitch/energy features, merge, transfer."""
from __future__ import annotations

import json

import numpy as np
import pytest

from punct.bin import align, asr_decode, datadir_tools, prosody_feats, transfer
from punct.data.datadir import load_utterances, validate_datadir
from punct.data.tables import read_table

SENTENCES = {
    "utt-a": "The printer set the type by hand, one letter at a time.",
    "utt-b": "Nobody knew why the old clock had stopped. Did anyone care?",
}


@pytest.fixture(scope="module")
def datadir(tmp_path_factory):
    from punct.align import festival
    from punct.text.textnorm import normalize_written

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    root = tmp_path_factory.mktemp("stages")
    d = root / "data" / "set"
    d.mkdir(parents=True)
    rows = {"text": [], "labels": [], "wav.scp": [], "utt2spk": []}
    for utt, sent in sorted(SENTENCES.items()):
        festival.synthesize(sent, root / f"{utt}.wav")
        words = normalize_written(sent)
        rows["text"].append(f"{utt} {' '.join(w.text for w in words)}\n")
        rows["labels"].append(f"{utt} {' '.join(w.label for w in words)}\n")
        rows["wav.scp"].append(f"{utt} {root / (utt + '.wav')}\n")
        rows["utt2spk"].append(f"{utt} kal\n")
    for name, lines in rows.items():
        (d / name).write_text("".join(lines))
    (d / "spk2utt").write_text("kal utt-a utt-b\n")
    return root, d


def test_stages(datadir, caplog):
    root, d = datadir
    exp = root / "exp"
    assert datadir_tools.main(["split", "--nj", "2", str(d)]) == 0
    # stage 2
    for j in (1, 2):
        assert align.main(["--data", str(d / "split2" / str(j)), "--out-dir", str(exp / "align" / f"part.{j}")]) == 0
    assert align.main(["--merge", "2", "--data", str(d), "--out-dir", str(exp / "align")]) == 0
    utts = load_utterances(d)
    assert all(w.start is not None and w.end > w.start for u in utts for w in u.words)
    assert (exp / "align" / "textgrid" / "utt-b.TextGrid").is_file()
    ctm = (exp / "align" / "words.ctm").read_text().splitlines()
    assert len(ctm) == sum(len(u) for u in utts)
    report = json.loads((exp / "align" / "report.json").read_text())
    assert report["utterances"] == 2 and report["failed_utterances"] == 0
    # a finished part is skipped on a rerun
    before = (exp / "align" / "part.1" / "word_times").stat().st_mtime_ns
    assert align.main(["--data", str(d / "split2" / "1"), "--out-dir", str(exp / "align" / "part.1")]) == 0
    assert (exp / "align" / "part.1" / "word_times").stat().st_mtime_ns == before
    assert "is finished; skipping" in caplog.text

    # stage 3
    hyp = root / "data" / "set_hyp"
    for j in (1, 2):
        assert asr_decode.main(["--data", str(d / "split2" / str(j)), "--out-dir", str(exp / "asr" / f"part.{j}")]) == 0
    assert asr_decode.main(["--merge", "2", "--data", str(d), "--out-dir", str(exp / "asr"), "--hyp-dir", str(hyp)]) == 0
    validate_datadir(hyp, require_labels=False)
    assert not (hyp / "labels").exists()
    wer = json.loads((exp / "asr" / "scoring" / "wer.json").read_text())
    assert wer["punct_score"]["ref_words"] == sum(len(u) for u in utts)
    assert 0 <= wer["punct_score"]["wer"] < 60
    if wer["sclite"] is not None:  # sctk installed: the two scorers agree
        assert abs(wer["sclite"]["wer"] - wer["punct_score"]["wer"]) < 0.11

    # stage 4
    from punct.prosody.features import load_word_features, read_names

    for dd, name in ((d, "ref"), (hyp, "hyp")):
        assert datadir_tools.main(["split", "--nj", "2", str(dd)]) == 0
        for j in (1, 2):
            assert prosody_feats.main(["--data", str(dd / "split2" / str(j)),
                                       "--out-dir", str(exp / f"prosody_{name}" / f"part.{j}")]) == 0
        assert prosody_feats.main(["--merge", "2", "--data", str(dd), "--out-dir", str(exp / f"prosody_{name}")]) == 0
        feats = load_word_features(dd, ["prosody"])
        assert set(feats) == {k for k, _, _ in read_table(dd / "text")}
        assert all(np.isfinite(m).all() for m in feats.values())
        assert (dd / "prosody.done").is_file() and read_names(dd, "prosody")[0] == "pitch_mean"
    names = read_names(d, "prosody")
    allf = np.concatenate(list(load_word_features(d, ["prosody"]).values()))
    voiced = allf[:, names.index("unvoiced")] == 0
    # speaker z-scores: voiced words' mean pitch is centred near 0
    assert abs(allf[voiced, names.index("pitch_mean")].mean()) < 0.6

    # stage 5; a directory given as the report is refused before HYP/labels is written
    (exp / "a_dir").mkdir()
    assert transfer.main(["--ref", str(d), "--hyp", str(hyp), "--report", str(exp / "a_dir")]) == 1
    assert not (hyp / "labels").exists()
    assert transfer.main(["--ref", str(d), "--hyp", str(hyp), "--report", str(exp / "transfer.json")]) == 0
    validate_datadir(hyp, require_labels=True)
    stats = json.loads((exp / "transfer.json").read_text())
    assert stats["marks"] == sum(w.label != "O" for u in utts for w in u.words)
    hyp_labels = [lab for u in load_utterances(hyp) for lab in u.labels]
    assert hyp_labels.count("QUESTION") <= 1 and "PERIOD" in hyp_labels


def test_missing_wav_scp_entry_is_one_line(datadir, tmp_path, capsys):
    root, d = datadir
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "text").write_text((d / "text").read_text())
    (bad / "wav.scp").write_text((d / "wav.scp").read_text().splitlines()[0] + "\n")
    assert align.main(["--data", str(bad), "--out-dir", str(tmp_path / "out")]) == 1
    err = [l for l in capsys.readouterr().err.splitlines() if l.startswith("error:")]
    assert err == [f"error: {bad / 'wav.scp'}: utterance 'utt-b' has no wav.scp entry (1 missing)"]


def test_token_without_letters_in_text_names_the_line(datadir, tmp_path, capsys):
    root, d = datadir
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "wav.scp").write_text((d / "wav.scp").read_text())
    (bad / "text").write_text("utt-a the printer\nutt-b nobody %% knew\n")
    assert align.main(["--data", str(bad), "--out-dir", str(tmp_path / "out")]) == 1
    err = [l for l in capsys.readouterr().err.splitlines() if l.startswith("error:")]
    assert err == [f"error: {bad / 'text'}:2: transcript token '%%' (word 2) has no letters or digits"]
