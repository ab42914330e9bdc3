"""Fixtures of the aligner tests: the pocketsphinx dictionary and a small letter-to-sound
model (trained on a slice of the dictionary in seconds, instead of the full one in a
minute); the speech synthesized by Festival is tests/conftest.py's ``festival_speech``."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("pocketsphinx")


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
