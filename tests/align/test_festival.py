"""punct.align.festival: Festival speaks a text into a WAV file and returns the words it
spoke with their times, the aligner tests' ground truth; a clear error without Festival."""
from __future__ import annotations

import pytest

from punct.align import festival
from punct.audio import audio_duration
from punct.errors import PunctError


@pytest.fixture
def needs_festival():
    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")


def test_the_spoken_words_have_increasing_times_inside_the_audio(needs_festival, tmp_path):
    wav = tmp_path / "s.wav"
    words = festival.synthesize("The cat sat on the mat.", wav)
    assert [w.text for w in words] == ["the", "cat", "sat", "on", "the", "mat"]
    assert all(w.start < w.end for w in words)
    assert all(a.end <= b.start + 1e-6 for a, b in zip(words, words[1:]))
    assert words[0].start > 0 and words[-1].end <= audio_duration(wav)


def test_quotes_and_backslashes_in_the_text_do_not_break_the_script(needs_festival, tmp_path):
    """The text goes into a Scheme string: an unescaped quote would end it early."""
    words = festival.synthesize('She said "stop" now.', tmp_path / "q.wav")
    assert [w.text for w in words] == ["she", "said", "stop", "now"]
    assert festival._scheme_string('a "b" \\c') == '"a \\"b\\" \\\\c"'


def test_without_festival_synthesize_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert not festival.available()
    with pytest.raises(PunctError, match="festival is not installed"):
        festival.synthesize("hello", tmp_path / "h.wav")
    assert not (tmp_path / "h.wav").exists()
