"""Forced alignment of audio to a transcript with pocketsphinx (English model of the wheel).

``ForcedAligner.align(audio, tokens)`` maps the transcript tokens onto dictionary
words (punct.align.lexicon, with the letter-to-sound fallback), aligns them with
``Decoder(bestpath=False)`` + ``set_align_text`` (word times and posteriors), runs
a second pass for phone times (``set_alignment``), and maps the result back onto
the tokens: every token gets a start, an end and a confidence, and its phones.

When pocketsphinx cannot align an utterance (the transcript does not fit the
audio) it is retried once with wider beams; if that fails too, the words get
times spread over the audio in proportion to their phone counts, confidence 0,
and ``Alignment.failed`` is set, so that a data directory keeps one key set.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from punct.align.dictionary import strip_variant
from punct.align.lexicon import Lexicon, Mapping, clitic_split
from punct.audio import TARGET_RATE, to_pcm16
from punct.errors import PunctError
from punct.text.words import Word

log = logging.getLogger(__name__)

SILENCES = frozenset({"<sil>", "<s>", "</s>", "sil", "SIL"})


@dataclass
class AlignConfig:
    """conf/align.yaml. Empty paths mean the en-us model shipped inside the pocketsphinx wheel."""

    hmm: str = ""
    dict: str = ""
    lts_model: str = ""
    beam: float = 1e-48
    wbeam: float = 7e-29
    pbeam: float = 1e-48
    retry_beam: float = 1e-80
    phones: bool = True
    # Words whose confidence from the first pass is below this are logged as doubtful.
    low_conf: float = 0.2


def model_paths(hmm: str = "", dict_path: str = "", lm: str = "") -> tuple[str, str, str]:
    """(acoustic model dir, dictionary, language model) with the wheel's en-us model as default."""
    import pocketsphinx

    base = Path(pocketsphinx.get_model_path("en-us"))
    return (hmm or str(base / "en-us"), dict_path or str(base / "cmudict-en-us.dict"), lm or str(base / "en-us.lm.bin"))


@dataclass
class PhoneSeg:
    """One phone of an alignment: its name and start and end in recording time (seconds)."""

    name: str
    start: float
    end: float


@dataclass
class Alignment:
    """One utterance aligned: tokens with times (recording time) and their phones."""

    utt: str
    words: list[Word]
    phones: list[list[PhoneSeg]]
    silences: list[tuple[float, float]] = field(default_factory=list)
    n_lts: int = 0
    lts_tokens: list[str] = field(default_factory=list)
    failed: bool = False
    #: why the alignment failed, in a few words (when ``failed``)
    reason: str = ""


@dataclass
class _Seg:
    word: str
    start: float
    end: float
    prob: float
    phones: list[PhoneSeg]


def _decoder(hmm: str, dict_path: str, beam: float, wbeam: float, pbeam: float, lm: str | None = None, **kw):
    """A pocketsphinx decoder whose own log goes nowhere: its ``ERROR: "fsg_search.c" ...``
    lines on a failed search would reach the user raw; the aligner says what failed instead."""
    import os

    from pocketsphinx import Decoder

    kw.setdefault("bestpath", False)
    return Decoder(hmm=hmm, dict=dict_path, lm=lm, samprate=TARGET_RATE, beam=beam, wbeam=wbeam, pbeam=pbeam,
                   loglevel="ERROR", logfn=os.devnull, **kw)


#: the shortest a phone lasts in pocketsphinx's models: 3 frames of 10 ms
MIN_PHONE_SECONDS = 0.03
#: peak amplitude (of full scale 1) below which audio is digital silence: under 2 steps of 16 bits
SILENCE_PEAK = 2 / 32768


def audio_problem(audio: np.ndarray, n_phones: int) -> str | None:
    """Why ``audio`` (16 kHz, full scale 1) cannot hold ``n_phones`` spoken phones, or None:
    digital silence, or too short for them (an aligner would place words anyway)."""
    duration = len(audio) / TARGET_RATE
    if len(audio) == 0 or float(np.max(np.abs(audio))) < SILENCE_PEAK:
        return f"the audio is silent ({duration:.2f} s of digital silence): no words to place"
    if duration < n_phones * MIN_PHONE_SECONDS:
        return (f"the audio ({duration:.2f} s) is too short for the transcript's {n_phones} phones "
                f"(at least {n_phones * MIN_PHONE_SECONDS:.2f} s)")
    return None


def run_passes(dec, pcm: bytes, phones: bool, frate: int) -> list[_Seg] | None:
    """Process ``pcm`` with the decoder's current search; then (optionally) a phone pass.

    Returns the segments (fillers included) with times in seconds from the start of
    ``pcm``, or None when the search found no result. The feature extraction is reset
    before each pass: pocketsphinx's noise removal otherwise carries its estimate over
    from the previous utterance, so that results would depend on which utterances a
    job decoded before (on the split into jobs).
    """
    dec.reinit_feat()
    dec.start_utt()
    dec.process_raw(pcm, full_utt=True)
    dec.end_utt()
    if dec.hyp() is None:
        return None
    # posteriors come through pocketsphinx's log tables: 1.0001 happens; clip to [0, 1]
    segs = [_Seg(s.word, s.start_frame / frate, (s.end_frame + 1) / frate, min(1.0, max(0.0, float(s.prob))), [])
            for s in dec.seg()]
    if not phones:
        return segs
    try:
        dec.set_alignment()
        dec.reinit_feat()
        dec.start_utt()
        dec.process_raw(pcm, full_utt=True)
        dec.end_utt()
        al = dec.get_alignment()
    except RuntimeError as e:  # the phone pass is a refinement: keep the word times
        log.warning("phone alignment pass failed (%s); word times only", e)
        return segs
    if al is None:
        return segs
    # Copy everything out while iterating: the iterators' items do not outlive them
    # (keeping a word of ``al.words()`` past its step crashes pocketsphinx 5.1.1).
    words = []
    for w in al.words():
        ph = [PhoneSeg(p.name, p.start / frate, (p.start + p.duration) / frate) for p in w]
        words.append((w.name, w.start / frate, (w.start + w.duration) / frate, ph))
    if [w[0] for w in words if w[0] not in SILENCES] != [s.word for s in segs if s.word not in SILENCES]:
        log.warning("phone pass words differ from the word pass; word times only")
        return segs
    it = iter(s for s in segs if s.word not in SILENCES)
    out = []
    for name, start, end, ph in words:
        if name in SILENCES:
            out.append(_Seg(name, start, end, 1.0, ph))
        else:
            s = next(it)
            # the phone pass refines the boundaries; keep the first pass posterior
            out.append(_Seg(s.word, start, end, s.prob, ph))
    return out


class ForcedAligner:
    """Aligns utterances one after the other with one pocketsphinx decoder (load once, reuse)."""

    def __init__(self, cfg: AlignConfig | None = None, lexicon: Lexicon | None = None):
        self.cfg = cfg or AlignConfig()
        self.hmm, self.dict_path, _ = model_paths(self.cfg.hmm, self.cfg.dict)
        self.lexicon = lexicon or Lexicon.from_file(self.dict_path, self.cfg.lts_model or None)
        self._dec = _decoder(self.hmm, self.dict_path, self.cfg.beam, self.cfg.wbeam, self.cfg.pbeam)
        self._wide = None
        self.frate = int(self._dec.config["frate"])

    def _add_words(self, added: dict[str, list[str]]) -> None:
        for dec in (self._dec, self._wide):
            if dec is None:
                continue
            for w, ph in added.items():
                if dec.lookup_word(w) is None:
                    try:
                        dec.add_word(w, " ".join(ph), True)
                    except RuntimeError:
                        raise PunctError(f"cannot add {w!r} /{' '.join(ph)}/ to the aligner's dictionary") from None

    def _wide_decoder(self, added: dict[str, list[str]]):
        if self._wide is None:
            b = self.cfg.retry_beam
            self._wide = _decoder(self.hmm, self.dict_path, b, b, b)
            self._add_words(dict(self.lexicon.extra))
        return self._wide

    def align(self, audio: np.ndarray, tokens: Sequence[str], utt: str = "utt", offset: float = 0.0,
              where: str | Path | None = None, line: int | None = None) -> Alignment:
        """Align ``tokens`` (punct.text.textnorm words) to 16 kHz ``audio``; times are ``offset`` + seconds."""
        mapping = self.lexicon.map_tokens(tokens, where, line)
        if not tokens:
            return Alignment(utt, [], [])
        self._add_words(mapping.added)
        text = " ".join(mapping.words)
        duration = len(audio) / TARGET_RATE
        problem = audio_problem(audio, sum(len(self.lexicon.pron(w) or [w]) for w in mapping.words))
        if problem is not None:
            log.warning("utterance %s: %s; times spread over the audio by phone counts", utt, problem)
            return self._fallback(utt, tokens, mapping, duration, offset, problem)
        pcm = to_pcm16(audio)
        segs = None
        for attempt in range(2):
            dec = self._dec if attempt == 0 else self._wide_decoder(mapping.added)
            try:
                dec.set_align_text(text)
            except RuntimeError as e:
                raise PunctError(f"utterance {utt!r}: pocketsphinx cannot set up the alignment ({e})", where, line) from None
            segs = run_passes(dec, pcm, self.cfg.phones, self.frate)
            if segs is not None:
                break
            log.info("utterance %s: alignment failed; retrying with wider beams", utt)
        if segs is None:
            log.warning("utterance %s: alignment failed (does the transcript match the audio?); "
                        "times spread over the audio by phone counts", utt)
            return self._fallback(utt, tokens, mapping, duration, offset,
                                  "pocketsphinx found no alignment (does the transcript match the audio?)")
        return self._to_tokens(utt, tokens, mapping, segs, offset)

    def _to_tokens(self, utt: str, tokens: Sequence[str], mapping: Mapping, segs: list[_Seg], offset: float) -> Alignment:
        spoken = [s for s in segs if s.word not in SILENCES and not s.word.startswith(("[", "+"))]
        got = [strip_variant(s.word) for s in spoken]
        if got != mapping.words:
            raise PunctError(f"utterance {utt!r}: aligner returned {len(got)} words for {len(mapping.words)} "
                             f"({' '.join(got[:8])} ...)")
        words: list[Word] = [Word(t) for t in tokens]
        phones: list[list[PhoneSeg]] = [[] for _ in tokens]
        k = 0

        def shifted(ps: list[PhoneSeg]) -> list[PhoneSeg]:
            return [PhoneSeg(p.name, round(p.start + offset, 3), round(p.end + offset, 3)) for p in ps]

        for unit in mapping.units:
            segs_u = spoken[k:k + len(unit.words)]
            k += len(unit.words)
            conf = float(min(s.prob for s in segs_u))
            first = unit.tokens[0]
            if unit.clitic is None:
                words[first].start, words[first].end = segs_u[0].start, segs_u[-1].end
                words[first].conf = conf
                phones[first] = shifted([p for s in segs_u for p in s.phones])
            else:
                last = segs_u[-1]
                ph = last.phones
                n = clitic_split(unit.clitic, [p.name for p in ph]) if ph else 0
                if n and n < len(ph):
                    cut = ph[-n].start
                else:  # no phones: cut by letters
                    head_len = len(tokens[first])
                    cut = last.start + (last.end - last.start) * head_len / max(1, head_len + len(unit.clitic))
                    n = 0
                head, tail = (ph[:-n], ph[-n:]) if n else (ph, [])
                second = unit.tokens[1]
                words[first].start, words[first].end = segs_u[0].start, cut
                words[second].start, words[second].end = cut, last.end
                words[first].conf = words[second].conf = conf
                phones[first] = shifted([p for s in segs_u[:-1] for p in s.phones] + head)
                phones[second] = shifted(tail)
        for w in words:
            w.start = round(float(w.start) + offset, 3)
            w.end = round(float(w.end) + offset, 3)
            w.conf = round(float(w.conf), 4)
        low = [w.text for w in words if w.conf < self.cfg.low_conf]
        if low:
            log.debug("utterance %s: %d words with confidence below %.2f: %s", utt, len(low), self.cfg.low_conf,
                      " ".join(low[:10]))
        sil = [(round(s.start + offset, 3), round(s.end + offset, 3)) for s in segs if s.word in SILENCES]
        return Alignment(utt, words, phones, sil, mapping.n_lts, mapping.lts_tokens)

    def _fallback(self, utt: str, tokens: Sequence[str], mapping: Mapping, duration: float, offset: float,
                  reason: str = "") -> Alignment:
        counts = []
        for unit in mapping.units:
            n = sum(len(self.lexicon.pron(w) or [w]) for w in unit.words)
            counts += [n] if len(unit.tokens) == 1 else [max(1, n - 1), 1]
        total = float(sum(counts)) or 1.0
        words = []
        t = 0.0
        for tok, c in zip(tokens, counts):
            start, t = t, t + duration * c / total
            words.append(Word(tok, start=round(start + offset, 3), end=round(t + offset, 3), conf=0.0))
        return Alignment(utt, words, [[] for _ in tokens], [], mapping.n_lts, mapping.lts_tokens, failed=True,
                         reason=reason)
