"""Fixtures of the entry point tests: a data directory of silent recordings split into two
job parts, as ``punct.bin.datadir_tools split --nj 2`` leaves it (the stages' parts and merges)."""
from __future__ import annotations

import numpy as np
import pytest

#: the words of each utterance (and recording) of ``split_data``
SPLIT_TEXT = {"u1": "hello world", "u2": "good bye", "u3": "thanks"}


@pytest.fixture
def split_data(tmp_path):
    """DATA (three one-second recordings of silence, one utterance each) with DATA/split2/1 (u1,
    u2) and DATA/split2/2 (u3): text, wav.scp, utt2spk and spk2utt in each."""
    import soundfile as sf

    d = tmp_path / "data"
    for utt in SPLIT_TEXT:
        sf.write(tmp_path / f"{utt}.wav", np.zeros(16000, dtype=np.float32), 16000)
    parts = {d: list(SPLIT_TEXT), d / "split2" / "1": ["u1", "u2"], d / "split2" / "2": ["u3"]}
    for where, utts in parts.items():
        where.mkdir(parents=True, exist_ok=True)
        (where / "text").write_text("".join(f"{u} {SPLIT_TEXT[u]}\n" for u in utts))
        (where / "wav.scp").write_text("".join(f"{u} {tmp_path / (u + '.wav')}\n" for u in utts))
        (where / "utt2spk").write_text("".join(f"{u} {u}\n" for u in utts))
        (where / "spk2utt").write_text("".join(f"{u} {u}\n" for u in utts))
    return d
