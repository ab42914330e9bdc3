"""Alignment and decoding of whole data directories (one job's part, or all of it).

``align_datadir(data, out)`` force-aligns every utterance of ``data`` (``wav.scp``,
optional ``segments``, ``text``) and writes into ``out``:

``word_times``      ``<utt> start,end start,end ...`` one pair per word of ``text``
                    (seconds from the start of the recording, 3 decimals; the
                    format of punct.data.datadir)
``words.ctm``       ``<recording> 1 <start> <duration> <word> <posterior>``
``phones.ctm``      ``<recording> 1 <start> <duration> <PHONE>`` (``SIL`` for pauses)
``textgrid/<utt>.TextGrid``  tiers ``words`` and ``phones``
``report.json``     counts: utterances, words, audio seconds, processing seconds,
                    words that needed the letter-to-sound fallback, failed utterances

``decode_datadir(data, out)`` recognizes every utterance and writes ``text`` (the
hypothesis tokens, possibly none), ``word_times``, ``word_conf`` (posterior per
word), ``hyp.ctm`` and ``report.json``.
"""
from __future__ import annotations

import logging
import sys
import time
from collections import Counter
from pathlib import Path

from punct.align.aligner import AlignConfig, ForcedAligner
from punct.align.decoder import AsrConfig, Recognizer
from punct.align.output import write_phone_ctm, write_textgrid, write_word_ctm
from punct.audio import TARGET_RATE, RecordingCache, utterance_spans
from punct.errors import PunctError
from punct.fsutil import atomic_write, write_json
from punct.data.tables import read_table, read_wav_scp, write_table
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)


def _progress(items, desc: str):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is pinned
        return items
    return tqdm(items, desc=desc, disable=not sys.stderr.isatty(), leave=False)


class _Ticker:
    """Logs progress about once a minute (job logs have no progress bar)."""

    def __init__(self, what: str, total: int, every: float = 60.0):
        self.what, self.total, self.every = what, total, every
        self.t0 = self.last = time.time()
        self.n = 0

    def step(self, audio_s: float) -> None:
        self.n += 1
        now = time.time()
        if now - self.last >= self.every and self.n < self.total:
            self.last = now
            log.info("%s: %d of %d utterances, %.1f s of audio in %.1f s", self.what, self.n, self.total, audio_s,
                     now - self.t0)


def times_value(words: list[Word]) -> str:
    """The ``word_times`` field of timed words: ``start,end`` pairs with 3 decimals."""
    return " ".join(f"{w.start:.3f},{w.end:.3f}" for w in words)


def align_datadir(data: str | Path, out: str | Path, cfg: AlignConfig | None = None, textgrids: bool = True) -> dict:
    """Align ``data`` into ``out`` (see the module docstring); returns the report."""
    data, out = Path(data), Path(out)
    text = read_table(data / "text")
    spans = utterance_spans(data, [k for k, _, _ in text])
    cache = RecordingCache(read_wav_scp(data / "wav.scp"), where=data / "wav.scp")
    t0 = time.time()
    aligner = ForcedAligner(cfg)
    times: dict[str, str] = {}
    results = []
    lts = Counter()
    n_lts = failed = n_words = 0
    failed_utts: list[str] = []
    audio_s = 0.0
    out.mkdir(parents=True, exist_ok=True)
    ticker = _Ticker("aligned", len(text))
    for utt, words, lineno in _progress(text, "align"):
        seg = spans[utt]
        x, offset = cache.segment(seg)
        audio_s += len(x) / TARGET_RATE
        ticker.step(audio_s)
        al = aligner.align(x, words, utt, offset=offset, where=data / "text", line=lineno)
        times[utt] = times_value(al.words)
        results.append((al, seg.recording))
        n_words += len(words)
        n_lts += al.n_lts
        lts.update(al.lts_tokens)
        if al.failed:
            failed += 1
            failed_utts.append(utt)
        if textgrids:
            dur = len(cache.recording(seg.recording)) / TARGET_RATE
            write_textgrid(al, out / "textgrid" / f"{utt}.TextGrid", duration=dur)
    write_table(out / "word_times", times)
    write_word_ctm(results, out / "words.ctm")
    write_phone_ctm(results, out / "phones.ctm")
    report = {"utterances": len(text), "words": n_words, "audio_seconds": round(audio_s, 3),
              "seconds": round(time.time() - t0, 3), "lts_words": n_lts, "lts_distinct": dict(sorted(lts.items())),
              "failed_utterances": failed, "failed": failed_utts}
    write_json(out / "report.json", report)
    log.info("%s: aligned %d utterances, %d words (%.1f s of audio in %.1f s); %d words needed the letter-to-sound "
             "fallback; %d utterances failed", data, len(text), n_words, audio_s, report["seconds"], n_lts, failed)
    return report


def decode_datadir(data: str | Path, out: str | Path, cfg: AsrConfig | None = None) -> dict:
    """Decode every utterance of ``data`` into ``out`` (see the module docstring); returns the report."""
    from punct.io.ctm import write as write_ctm

    data, out = Path(data), Path(out)
    if (data / "text").is_file():
        utts = [k for k, _, _ in read_table(data / "text")]
    elif (data / "segments").is_file():
        utts = [k for k, _, _ in read_table(data / "segments")]
    else:
        utts = list(read_wav_scp(data / "wav.scp"))
    spans = utterance_spans(data, utts)
    cache = RecordingCache(read_wav_scp(data / "wav.scp"), where=data / "wav.scp")
    t0 = time.time()
    rec = Recognizer(cfg)
    text: dict[str, list[str]] = {}
    times: dict[str, str] = {}
    conf: dict[str, list[str]] = {}
    hyps: list[Utterance] = []
    audio_s = 0.0
    n_words = empty = 0
    out.mkdir(parents=True, exist_ok=True)
    ticker = _Ticker("decoded", len(utts))
    for utt in _progress(utts, "decode"):
        seg = spans[utt]
        x, offset = cache.segment(seg)
        audio_s += len(x) / TARGET_RATE
        ticker.step(audio_s)
        words = rec.decode(x, utt, offset=offset)
        if not words:
            empty += 1
        text[utt] = [w.text for w in words]
        times[utt] = times_value(words)
        conf[utt] = [f"{w.conf:.4f}" for w in words]
        n_words += len(words)
        if words:
            hyps.append(Utterance(id=utt, words=words, recording=seg.recording))
    if not utts:
        raise PunctError("no utterances to decode", data)
    write_table(out / "text", text)
    write_table(out / "word_times", times)
    write_table(out / "word_conf", conf)
    if hyps:
        write_ctm(hyps, out / "hyp.ctm", marks=False, sort=True)
    else:
        with atomic_write(out / "hyp.ctm"):
            pass
    report = {"utterances": len(utts), "words": n_words, "empty_hypotheses": empty, "audio_seconds": round(audio_s, 3),
              "seconds": round(time.time() - t0, 3)}
    write_json(out / "report.json", report)
    log.info("%s: decoded %d utterances (%.1f s of audio in %.1f s), %d words, %d empty hypotheses",
             data, len(utts), audio_s, report["seconds"], n_words, empty)
    return report
