"""recipes/earnings/prepare.py and the stage-4 pause features on a tiny fake corpus:
partly timed Earnings-22 calls keep their times and speakers."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from punct.data.datadir import load_utterances, validate_datadir

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "recipes" / "earnings" / "prepare.py"
E22_HEAD = "token|speaker|ts|endTs|punctuation|prepunctuation|case|tags|oldTs|oldEndTs|ali_comment\n"


def e22_call(rows) -> str:
    """rows: (token, speaker, start or None, end or None, punctuation)."""
    out = [E22_HEAD]
    for tok, spk, s, e, p in rows:
        ts = "" if s is None else f"{s}"
        te = "" if e is None else f"{e}"
        out.append(f"{tok}|{spk}|{ts}|{te}|{p}||LC|[]|||{'del' if s is None else ''}\n")
    return "".join(out)


@pytest.fixture
def corpus(tmp_path, tiny_earnings21) -> Path:
    d = tmp_path / "corpus"
    e22 = d / "earnings22" / "transcripts" / "force_aligned_nlp_references"
    e22.mkdir(parents=True)
    call = [("Good", "0", None, None, ""), ("morning", "0", None, None, ","), ("everyone", "0", 1.0, 1.4, "."),
            ("Thanks", "1", 2.1, 2.4, ","), ("we", "1", 2.45, 2.6, ""), ("grew", "1", 2.6, 2.9, "."),
            ("Questions", "0", 4.0, 4.5, "?")]
    for i in range(3):
        (e22 / f"call{i}.aligned.nlp").write_text(e22_call(call))
    tiny_earnings21(d)
    rev = d / "earnings21" / "output" / "rev" / "kaldi" / "ctm" / "111.ctm"
    rev.write_text(rev.read_text().replace("\n", "\n111 A 0.50 0.20 <unk> 0.40\n", 1))  # an unknown word
    return d


def test_partly_timed_calls_keep_times_and_speakers(corpus, tmp_path):
    out = tmp_path / "data"
    r = subprocess.run([sys.executable, str(SCRIPT), "--corpus-dir", str(corpus), "--out-dir", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # 3 calls, every 8th to dev: none, so the last call is the dev set
    assert [u.id for u in load_utterances(out / "e22_dev")] == ["call2.aligned"]
    train = load_utterances(out / "e22_train")
    assert len(train) == 2
    u = train[0]
    assert u.texts[:3] == ["good", "morning", "everyone"]
    assert [(w.start, w.end) for w in u.words[:4]] == [(None, None), (None, None), (1.0, 1.4), (2.1, 2.4)]
    assert [w.speaker for w in u.words] == ["0", "0", "0", "1", "1", "1", "0"]
    assert (out / "e22_train" / "word_times").read_text().split("\n")[0].split()[1:4] == ["-", "-", "1.000,1.400"]
    validate_datadir(out / "e22_train")
    # the Kaldi CTMs: fully timed, no speakers; the references: neither
    assert (out / "e21_kaldi_rev" / "word_times").is_file() and not (out / "e21_kaldi_rev" / "word_speakers").exists()
    # their words as the recognizer wrote them, as punct restore reads the CTM
    assert [u.texts for u in load_utterances(out / "e21_kaldi_rev", require_labels=False)] == [["good", "<unk>", "morning"]]
    assert not (out / "e21_ref" / "word_times").exists() and not (out / "e21_amazon" / "word_speakers").exists()

    # stage 4 on the partly timed set: untimed words and speaker changes are flagged, nothing is NaN
    r = subprocess.run([sys.executable, "-m", "punct.bin.pause_feats", "--data", str(out / "e22_train")],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    from punct.prosody.features import read_features
    from punct.prosody.pause import PAUSE_FEATURES

    feats, names = read_features(out / "e22_train", "pause")
    m = feats[u.id]
    col = {n: i for i, n in enumerate(names)}
    assert names == list(PAUSE_FEATURES) and np.isfinite(m).all()
    assert m[:, col["untimed"]].tolist() == [1, 1, 0, 0, 0, 0, 0]
    assert m[:, col["pause_after_unknown"]].tolist() == [1, 1, 0, 0, 0, 0, 0]  # 'morning' itself is untimed
    assert m[2, col["pause_after"]] == pytest.approx(0.7)  # everyone (ends 1.4) -> thanks (starts 2.1)
    assert m[:, col["speaker_change_after"]].tolist() == [0, 0, 1, 0, 0, 1, 0]  # the last word: an edge, not a change


def test_ted_sets_and_the_distillation_set(corpus, tmp_path):
    """With --ted-dir: ted (ASR spelling, clitics joined), ted_e22, and 'distill', every
    --distill-every-th talk and the Earnings-22 training calls, with the case spelling."""
    from punct.data.datadir import Utterance, Word, write_datadir

    ted_in = tmp_path / "ted_in"
    write_datadir(ted_in, [Utterance(id=f"talk{i}", words=[Word(text="hello", label="COMMA"), Word(text="we", label="O"),
                                                           Word(text="'re", label="O"), Word(text="Paris", label="PERIOD")])
                           for i in range(7)])
    out = tmp_path / "data"
    args = [sys.executable, str(SCRIPT), "--corpus-dir", str(corpus), "--out-dir", str(out), "--ted-dir", str(ted_in),
            "--distill-every", "3"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert load_utterances(out / "ted")[0].texts == ["hello", "we're", "paris"]
    assert len(load_utterances(out / "ted_e22")) == 9
    distill = {u.id: u for u in load_utterances(out / "distill")}  # Kaldi order: sorted by id
    assert sorted(distill) == ["call0.aligned", "call1.aligned", "talk0", "talk3", "talk6"]
    assert distill["talk3"].words[-1].written == "Paris" and distill["call0.aligned"].words[0].written == "Good"
    assert distill["call0.aligned"].words[2].start is None  # a text set: the calls' times stay in e22_train
    validate_datadir(out / "distill")
    r = subprocess.run(args[:-1] + ["0"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--distill-every must be at least 1, got 0" in r.stderr
