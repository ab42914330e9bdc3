"""Speech recognition with pocketsphinx: hypothesis words with times and posteriors.

``Recognizer.decode(audio)`` decodes one whole utterance with the n-gram language
model of the wheel (pocketsphinx's voice activity segmenter is unreliable, so
audio is never cut by it), keeps the words (fillers, ``<s>`` ``</s>`` ``<sil>``
and variant tags removed) with their times and posterior probabilities, and
tokenizes them like the references (punct.text.textnorm: ``don't`` -> ``do`` ``n't``).
A word split into two tokens is cut where the clitic's phones start (a phone
pass over the hypothesis), or by letters when the phone pass is off.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from punct.align.aligner import SILENCES, _decoder, model_paths, run_passes
from punct.align.dictionary import strip_variant
from punct.align.lexicon import CLITIC_PHONES, clitic_split
from punct.audio import TARGET_RATE, to_pcm16
from punct.text.textnorm import tokenize_punctuated
from punct.text.words import Word

log = logging.getLogger(__name__)


@dataclass
class AsrConfig:
    """conf/asr.yaml. Empty paths mean the en-us model shipped inside the pocketsphinx wheel."""

    hmm: str = ""
    dict: str = ""
    lm: str = ""
    beam: float = 1e-48
    wbeam: float = 7e-29
    pbeam: float = 1e-48
    lw: float = 6.5
    maxhmmpf: int = 30000
    phones: bool = True


def is_filler(word: str) -> bool:
    """``<s>`` ``</s>`` ``<sil>`` ``[NOISE]`` ``++COUGH++`` are not words."""
    return word in SILENCES or word.startswith(("<", "[", "+"))


def split_word(word: str, start: float, end: float, conf: float, phone_names: list[str], phone_starts: list[float]) -> list[Word]:
    """Tokenize one recognized word (textnorm rules) and share its time among the tokens."""
    toks = [w.text for w in tokenize_punctuated(word)]
    if not toks:
        return []
    if len(toks) == 1:
        return [Word(toks[0], start=start, end=end, conf=conf)]
    if len(toks) == 2 and toks[1] in CLITIC_PHONES and phone_names:
        n = clitic_split(toks[1], phone_names)
        if 0 < n < len(phone_names):
            cut = phone_starts[-n]
            return [Word(toks[0], start=start, end=cut, conf=conf), Word(toks[1], start=cut, end=end, conf=conf)]
    total = sum(len(t) for t in toks)
    out, t = [], start
    for tok in toks:
        t2 = t + (end - start) * len(tok) / total
        out.append(Word(tok, start=round(t, 3), end=round(t2, 3), conf=conf))
        t = t2
    out[-1].end = end
    return out


class Recognizer:
    """Decodes utterances one after the other with one pocketsphinx decoder."""

    def __init__(self, cfg: AsrConfig | None = None):
        self.cfg = cfg or AsrConfig()
        hmm, dict_path, lm = model_paths(self.cfg.hmm, self.cfg.dict, self.cfg.lm)
        c = self.cfg
        self._dec = _decoder(hmm, dict_path, c.beam, c.wbeam, c.pbeam, lm=lm, bestpath=True, lw=c.lw,
                             maxhmmpf=c.maxhmmpf)
        self.frate = int(self._dec.config["frate"])

    def decode(self, audio: np.ndarray, utt: str = "utt", offset: float = 0.0) -> list[Word]:
        """Hypothesis tokens of 16 kHz ``audio`` with times (``offset`` + seconds) and posteriors."""
        if len(audio) < TARGET_RATE // 10:
            return []
        self._dec.activate_search()  # back to the language model after a phone pass
        segs = run_passes(self._dec, to_pcm16(audio), self.cfg.phones, self.frate)
        if segs is None:
            log.warning("utterance %s: the decoder found no hypothesis", utt)
            return []
        words: list[Word] = []
        for s in segs:
            if is_filler(s.word):
                continue
            names = [p.name for p in s.phones]
            starts = [p.start for p in s.phones]
            for w in split_word(strip_variant(s.word), s.start, s.end, s.prob, names, starts):
                w.start = round(float(w.start) + offset, 3)
                w.end = round(float(w.end) + offset, 3)
                w.conf = round(float(w.conf), 4)
                words.append(w)
        return words
