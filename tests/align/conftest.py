"""Fixtures of the aligner tests: the pocketsphinx dictionary, a small letter-to-sound
model (trained on a slice of the dictionary in seconds, instead of the full one
in a minute), and speech synthesized by Festival with its true word times."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("pocketsphinx")

#: Sentences spoken by Festival for the aligner tests (no digits: Festival reads those its own way).
SENTENCES = (
    "The printer set the type by hand, one letter at a time.",
    "She said it would rain before the evening, but the sky stayed clear.",
    "Nobody knew why the old clock in the tower had stopped.",
)


@pytest.fixture(scope="session")
def dictionary():
    from punct.align.aligner import model_paths
    from punct.align.dictionary import read_dictionary

    return read_dictionary(model_paths()[1])


@pytest.fixture(scope="session")
def small_lts(dictionary):
    from punct.align import g2p

    entries = sorted((w, p[0]) for w, p in dictionary.items())
    random.Random(0).shuffle(entries)
    return g2p.train(entries[:12000], iterations=2, em_sample=6000)


@pytest.fixture(scope="session")
def lexicon_factory(dictionary, small_lts):
    from punct.align.lexicon import Lexicon

    return lambda: Lexicon(dictionary, lambda: small_lts)


@pytest.fixture(scope="session")
def festival_speech(tmp_path_factory):
    """[(wav path, true words with times)] of SENTENCES; skipped when festival is missing."""
    from punct.align import festival

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    d = tmp_path_factory.mktemp("festival")
    out = []
    for i, s in enumerate(SENTENCES):
        wav = Path(d) / f"s{i}.wav"
        out.append((wav, festival.synthesize(s, wav)))
    return out
