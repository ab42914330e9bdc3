"""punct.align.aligner on speech synthesized by Festival, whose true word times are known.

Bound (stated): mean absolute word boundary error under 35 ms and at least 85% of
boundaries within 50 ms (pocketsphinx's 10 ms frames; about 18 ms and 95% are
typical on these sentences, see benchmarks/bench_audio.py for a larger set).
"""
from __future__ import annotations

import numpy as np
import pytest

from punct.align.aligner import ForcedAligner
from punct.audio import read_audio
from punct.text.textnorm import normalize_written

MEAN_BOUND = 0.035
WITHIN_50MS = 0.85


@pytest.fixture(scope="module")
def aligner(lexicon_factory):
    return ForcedAligner(lexicon=lexicon_factory())


def boundary_errors(truth, words):
    assert [w.text for w in words] == [t.text for t in truth]
    return np.array([abs(a - b) for t, w in zip(truth, words) for a, b in ((t.start, w.start), (t.end, w.end))])


def test_boundaries_against_festival(aligner, festival_speech):
    errs = []
    for wav, truth in festival_speech:
        al = aligner.align(read_audio(wav), [t.text for t in truth], wav.stem)
        assert not al.failed and al.n_lts == 0
        assert all(0.0 <= w.conf <= 1.0 for w in al.words)
        assert all(p.start >= w.start - 1e-6 and p.end <= w.end + 1e-6 for w, ph in zip(al.words, al.phones) for p in ph)
        errs.append(boundary_errors(truth, al.words))
    e = np.concatenate(errs)
    assert e.mean() < MEAN_BOUND, f"mean boundary error {e.mean() * 1000:.1f} ms"
    assert (e <= 0.05).mean() >= WITHIN_50MS


def test_made_up_words_align_through_letter_to_sound(aligner, tmp_path):
    from punct.align import festival

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    truth = festival.synthesize("The blorptic printer set the zanthrofy type by hand.", tmp_path / "m.wav")
    al = aligner.align(read_audio(tmp_path / "m.wav"), [t.text for t in truth], "m")
    assert not al.failed
    assert al.n_lts == 2 and sorted(al.lts_tokens) == ["blorptic", "zanthrofy"]
    e = boundary_errors(truth, al.words)
    assert e.mean() < 0.05
    made_up = [i for i, t in enumerate(truth) if t.text in ("blorptic", "zanthrofy")]
    assert all(e[2 * i] < 0.08 and e[2 * i + 1] < 0.08 for i in made_up)


def test_contractions_are_cut_at_the_clitic(aligner, tmp_path):
    from punct.align import festival

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    festival.synthesize("I don't think it's ten thousand.", tmp_path / "c.wav")
    tokens = [w.text for w in normalize_written("I don't think it's 10,000.")]
    assert tokens == ["i", "do", "n't", "think", "it", "'s", "10,000"]
    al = aligner.align(read_audio(tmp_path / "c.wav"), tokens, "c")
    w = {t.text: t for t in al.words}
    assert w["do"].end == w["n't"].start and w["do"].start < w["do"].end < w["n't"].end
    assert [p.name for p in al.phones[2]][0] == "N"  # "N T", or "N" for the variant D OW N
    assert w["it"].end == w["'s"].start
    assert w["10,000"].end - w["10,000"].start > 0.4  # "ten thousand"


def test_impossible_alignment_falls_back_to_spread_times(aligner):
    x = np.zeros(8000, dtype=np.float32)  # half a second of silence for 30 words
    tokens = ("the quick brown fox jumps over the lazy dog " * 3 + "again and again").split()
    al = aligner.align(x, tokens, "x", offset=10.0)
    assert al.failed
    starts = [w.start for w in al.words]
    assert starts == sorted(starts) and al.words[0].start == 10.0 and abs(al.words[-1].end - 10.5) < 1e-6
    assert all(w.conf == 0.0 for w in al.words)
    assert aligner.align(x, [], "empty").words == []
