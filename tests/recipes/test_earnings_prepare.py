"""recipes/earnings/prepare.py and the stage-4 pause features on a tiny fake corpus:
partly timed Earnings-22 calls keep their times and speakers."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from punct.datadir import load_utterances, validate_datadir

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
