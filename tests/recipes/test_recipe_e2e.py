"""The whole default recipe, stages 1-11, on a tiny corpus built here (CPU, about a minute).

The tiny corpus has the layout of ../shared/data: IWSLT2011 benchmark files, a few
TED talk files and two LJ Speech clips synthesized with espeak-ng. The recipe
must prepare, align, decode, extract features, transfer, train, decode, score
and write RESULTS.md, all under a temporary directory; a second run must skip
everything that is finished.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SENTENCES = [
    ("so what do we do now", "QUESTION"),
    ("we go home and we sleep", "PERIOD"),
    ("well , i think that this is a good idea", "PERIOD"),
    ("and then , after that , we talk about it", "PERIOD"),
    ("why is it so hard", "QUESTION"),
    ("you know , it 's not easy", "PERIOD"),
]


def _stream(rng: random.Random, n_sent: int) -> list[tuple[str, str]]:
    out = []
    for _ in range(n_sent):
        text, end = rng.choice(SENTENCES)
        toks = text.split()
        for i, t in enumerate(toks):
            if t == ",":
                continue
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            lab = "COMMA" if nxt == "," else (end if nxt is None else "O")
            out.append((t, lab))
    return out


def _talk(rng: random.Random, n_sent: int) -> str:
    lines = []
    for _ in range(n_sent):
        text, end = rng.choice(SENTENCES)
        s = text.replace(" ,", ",").replace(" 's", "'s")
        s = s[0].upper() + s[1:] + ("?" if end == "QUESTION" else ".")
        lines.append(s)
    return "\n".join(lines) + "\n"


def make_corpus(root: Path) -> None:
    rng = random.Random(3)
    iw = root / "iwslt2011"
    iw.mkdir(parents=True)
    for name, n in (("test2011", 40), ("dev2012", 60)):
        (iw / name).write_text("".join(f"{w}\t{lab}\n" for w, lab in _stream(rng, n)))
    talks = root / "ted" / "talks"
    talks.mkdir(parents=True)
    for i in range(6):
        (talks / f"talk_{i}.md").write_text(_talk(rng, 80))
    lj = root / "ljspeech"
    (lj / "wavs").mkdir(parents=True)
    clips = [("LJ001-0001", "Printing, in the only sense with which we are at present concerned, differs from most arts."),
             ("LJ001-0002", "In being comparatively modern.")]
    import soundfile as sf

    rows = []
    for cid, text in clips:
        wav = root / f"{cid}.wav"
        subprocess.run(["espeak-ng", "-s", "150", "-w", str(wav), text], check=True, capture_output=True)
        data, sr = sf.read(wav)
        sf.write(lj / "wavs" / f"{cid}.flac", data, sr)
        wav.unlink()
        rows.append(f"{cid}|{text}|{text}\n")
    (lj / "metadata.csv").write_text("".join(rows))


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (local/setup_env.sh installs it)")
def test_quick_recipe_end_to_end(tmp_path, tiny_earnings21):
    corpus = tmp_path / "corpus"
    make_corpus(corpus)
    tiny_earnings21(corpus)
    env = dict(os.environ, quick_train_words="3000", quick_dev_words="500", quick_lj_clips="2", OMP_NUM_THREADS="1")
    args = ["bash", "run.sh", "--corpus-dir", str(corpus), "--data-root", str(tmp_path / "data"), "--train-overrides", "max_epochs=2",
            "--exp-root", str(tmp_path / "exp"), "--results", str(tmp_path / "RESULTS.md"), "--nj", "2"]
    r = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    exp = tmp_path / "exp" / "quick"
    report = json.loads((exp / "tbrnn" / "decode_test2011" / "scoring" / "report.json").read_text())
    assert report["overall"]["f1"] is not None and 0 <= report["overall"]["f1"] <= 100
    for name in ("report.txt", "confusion.txt", "errors.txt"):
        assert (exp / "tbrnn" / "decode_test2011" / "scoring" / name).is_file()
    results = (tmp_path / "RESULTS.md").read_text()
    assert "tbrnn" in results and "test2011" in results
    # the ensemble of tbrnn and tlstm decoded with both members and has its row
    stats = json.loads((exp / "tbrnn_tlstm" / "decode_test2011" / "decode_stats.json").read_text())
    assert stats["members"] == [str(exp / "tbrnn" / "best.pt"), str(exp / "tlstm" / "best.pt")]
    assert stats["tuned_weights"]["on"].endswith("dev2012") and stats["weights"] == stats["tuned_weights"]["weights"]
    # tuned once for every test set, kept for punct restore --weights-from; the bias after the weights
    tuned = json.loads((exp / "tbrnn_tlstm" / "tuned_weights.json").read_text())
    assert tuned["weights"] == stats["weights"] and set(tuned["bias"]) == {"COMMA", "PERIOD", "QUESTION"}
    assert stats.get("bias") == (tuned["bias"] if any(tuned["bias"].values()) else None)
    assert (exp / "tbrnn_tlstm" / "decode_test2011" / "scoring" / "report.json").is_file()
    assert "| tbrnn_tlstm [" in results
    data = tmp_path / "data" / "quick"
    # the audio stages ran: alignment times, a decoded hypothesis with transferred labels, features
    assert (data / "lj" / "word_times").is_file()
    assert (data / "lj_hyp" / "labels").is_file()
    assert (data / "lj" / "pause.scp").is_file()
    # the score table is printed, then the showcase: the shipped default beside the previous
    # one (read from git history, when this clone has it) and the engines
    assert "overall" in r.stdout
    table = (exp / "showcase" / "table.txt").read_text()
    assert table in r.stdout
    rows = [line.split() for line in table.splitlines()[1:]]
    systems = [line[:26].strip() for line in table.splitlines()[1:]]
    has_old = subprocess.run(["git", "cat-file", "-e", "061dda3:models/default.pt"], cwd=ROOT).returncode == 0
    ours = ["punct default", "punct previous (061dda3)"] if has_old else ["punct default"]
    assert systems == ours * 3 + [f"{e} (own marks)" for e in ("amazon", "google", "microsoft", "speechmatics")]
    if has_old:  # each input's two rows come from different models
        assert (exp / "showcase" / "baseline_061dda3.pt").stat().st_size > 1_000_000
    n_values = 6 + ("case F1" in table.splitlines()[0])  # WER ... SER, and case F1 when scored
    assert rows[0][-n_values] == "0.0"  # the tiny Kaldi CTM has the reference's words: WER 0
    assert "case F1" in table.splitlines()[0]  # the engines write case: punct score scores it
    # a rerun has nothing left to do
    r2 = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert "is finished; skipping" in r2.stderr
