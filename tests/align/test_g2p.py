"""punct.align.g2p: letter-to-sound rules learned from the dictionary."""
from __future__ import annotations

import random

import pytest

from punct.align import g2p
from punct.errors import PunctError


def test_alignment_of_dictionary_entries(dictionary):
    words = sorted(dictionary)[::20] + ["box", "make", "phone"]
    aligned = dict(g2p.align_dictionary([(w, dictionary[w][0]) for w in words], iterations=2))
    assert aligned["box"] == ["B", "AA", "K|S"]
    assert aligned["make"] == ["M", "EY", "K", "_"]
    assert aligned["phone"] in (["F", "_", "OW", "N", "_"], ["_", "F", "OW", "N", "_"])


def test_held_out_accuracy(dictionary, small_lts):
    entries = sorted((w, p[0]) for w, p in dictionary.items())
    random.Random(0).shuffle(entries)
    held_out = [(w, p) for w, p in entries[-400:] if w.isalpha()]
    acc, per = g2p.evaluate(small_lts, held_out)
    # trained on 12,000 words here; on the full dictionary it reaches about 62% / 9%
    assert acc > 0.35 and per < 0.2, (acc, per)


def test_pronounces_anything_with_letters(small_lts, tmp_path):
    assert small_lts.phones("Café") == small_lts.phones("cafe")
    assert small_lts.phones("h")  # never empty
    with pytest.raises(PunctError, match="no letters"):
        small_lts.phones("123")
    p = tmp_path / "lts.json"
    small_lts.save(p)
    assert g2p.LetterToSound.load(p).phones("blorptic") == small_lts.phones("blorptic")
    p.write_text("{not json")
    with pytest.raises(PunctError, match="not valid JSON"):
        g2p.LetterToSound.load(p)


def test_cache_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PUNCT_CACHE_DIR", str(tmp_path))
    assert g2p.default_cache_dir() == tmp_path
