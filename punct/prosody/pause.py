"""Per-word pause features from word times (no audio needed).

For every word, in the order of PAUSE_FEATURES:

``pause_before``  seconds from the previous word's end to this word's start,
                  0 when they overlap, at most ``cap`` (PAUSE_CAP); ``cap`` at
                  the start of a recording (nothing before: like a long silence)
``pause_after``   the same towards the next word's start
``duration``      end - start, in [0, ``duration_cap``]
``edge_before``   1 for the first word of a recording (no previous word)
``edge_after``    1 for the last word of a recording
``segment_before`` 1 when the previous word is in another utterance (segment)
                  of the recording, or there is none
``segment_after`` the same towards the next word
``speaker_change_before`` 1 when the previous word has another speaker
``speaker_change_after``  the same towards the next word
``untimed``       1 when the word has no start or no end (then duration is 0)
``pause_before_unknown``  1 when this or the previous word is untimed (then
                  ``pause_before`` is 0); not at a recording edge
``pause_after_unknown``   the same towards the next word
``duration_per_letter``   ``duration`` over the word's letters and digits (at least 1): the
                  lengthening of a phrase's last word, which ``duration`` mixes with the
                  length of the word itself; 0 when untimed

Nothing is ever NaN. A *recording* is the chain of utterances that share
``Utterance.recording`` and ``channel`` (Kaldi segments of one recording,
ordered by their first word's start), so pauses are measured across segment
boundaries; an utterance without ``recording`` is a recording of its own.
Times are seconds from the start of the recording (punct.text.words.Word).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from punct.text.words import Utterance, Word

PAUSE_FEATURES: tuple[str, ...] = (
    "pause_before",
    "pause_after",
    "duration",
    "edge_before",
    "edge_after",
    "segment_before",
    "segment_after",
    "speaker_change_before",
    "speaker_change_after",
    "untimed",
    "pause_before_unknown",
    "pause_after_unknown",
    "duration_per_letter",
)

#: Longest pause, in seconds: longer ones (and recording edges) are this. In
#: Earnings-22 the median pause after a word is 0.45 s before a period and 0 s
#: elsewhere (../shared/data/README.md); 2 s is well past every class's typical pause.
PAUSE_CAP = 2.0
#: Longest word duration, in seconds: longer ones are alignment failures more often than words.
DURATION_CAP = 2.0

_IDX = {n: i for i, n in enumerate(PAUSE_FEATURES)}


def recordings(utts: Sequence[Utterance]) -> list[list[Utterance]]:
    """Utterances grouped into recordings (see the module docstring), in order of first appearance."""
    groups: dict[object, list[Utterance]] = {}
    for i, u in enumerate(utts):
        key = ("rec", u.recording, u.channel) if u.recording is not None else ("utt", i)
        groups.setdefault(key, []).append(u)
    out = []
    for members in groups.values():
        def first_start(u: Utterance) -> float:
            for w in u.words:
                if w.start is not None:
                    return w.start
            return float("inf")

        out.append(sorted(members, key=first_start))  # stable: untimed utterances keep their order at the end
    return out


def pause_features(utts: Sequence[Utterance], cap: float = PAUSE_CAP, duration_cap: float = DURATION_CAP) -> dict[str, np.ndarray]:
    """{utterance id: float32 [n_words, len(PAUSE_FEATURES)]} for every utterance of ``utts``."""
    if cap <= 0 or duration_cap <= 0:
        raise ValueError("cap and duration_cap must be positive")
    out: dict[str, np.ndarray] = {}
    for rec in recordings(utts):
        chain: list[tuple[Word, int, str | None]] = []  # word, utterance index in rec, speaker
        for ui, u in enumerate(rec):
            for w in u.words:
                chain.append((w, ui, w.speaker if w.speaker is not None else u.speaker))
        feats = _chain_features(chain, cap, duration_cap)
        pos = 0
        for u in rec:
            if u.id in out:
                raise ValueError(f"duplicate utterance id {u.id!r}")
            out[u.id] = feats[pos : pos + len(u.words)].copy()
            pos += len(u.words)
    return out


def _chain_features(chain: list[tuple[Word, int, str | None]], cap: float, duration_cap: float) -> np.ndarray:
    """float32 [n, len(PAUSE_FEATURES)] of one recording's words (module docstring), computed
    on arrays: a call of an hour has 10,000 words, and restore computes them on every run."""
    n = len(chain)
    feats = np.zeros((n, len(PAUSE_FEATURES)), dtype=np.float32)
    if n == 0:
        return feats
    nan = float("nan")
    start = np.array([nan if w.start is None else w.start for w, _, _ in chain], dtype=np.float64)
    end = np.array([nan if w.end is None else w.end for w, _, _ in chain], dtype=np.float64)
    timed = ~(np.isnan(start) | np.isnan(end))
    start[~timed] = end[~timed] = 0.0  # a word with one time only is untimed: neither is read
    utt = np.array([ui for _, ui, _ in chain])
    codes: dict = {}
    spk = np.array([codes.setdefault(s, len(codes)) for _, _, s in chain])
    feats[:, _IDX["duration"]] = np.where(timed, np.minimum(np.maximum(end - start, 0.0), duration_cap), 0.0)
    feats[:, _IDX["untimed"]] = ~timed
    letters = np.array([max(1, sum(c.isalnum() for c in w.text)) for w, _, _ in chain], dtype=np.float64)
    feats[:, _IDX["duration_per_letter"]] = feats[:, _IDX["duration"]] / letters
    # pair k: word k (before) and word k + 1 (after)
    gap = np.minimum(np.maximum(start[1:] - end[:-1], 0.0), cap)
    both = timed[1:] & timed[:-1]
    seg = (utt[1:] != utt[:-1]).astype(np.float32)
    chg = (spk[1:] != spk[:-1]).astype(np.float32)
    for side, rows in (("before", slice(1, None)), ("after", slice(None, -1))):
        feats[rows, _IDX["pause_" + side]] = np.where(both, gap, 0.0)
        feats[rows, _IDX["pause_" + side + "_unknown"]] = ~both
        feats[rows, _IDX["segment_" + side]] = seg
        feats[rows, _IDX["speaker_change_" + side]] = chg
    for side, i in (("before", 0), ("after", n - 1)):
        feats[i, _IDX["pause_" + side]] = cap
        feats[i, _IDX["edge_" + side]] = 1.0
        feats[i, _IDX["segment_" + side]] = 1.0
        feats[i, _IDX["speaker_change_" + side]] = 0.0
        feats[i, _IDX["pause_" + side + "_unknown"]] = 0.0
    return feats
