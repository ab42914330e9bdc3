"""Writers of alignment results: word CTM, phone CTM, TextGrid with ``words`` and ``phones`` tiers.

Word CTMs go through punct.io.ctm (the project's CTM format: ``file channel start
duration word confidence``, sorted as NIST sclite wants). A phone CTM has the
same columns with the phone instead of the word and no confidence; ``SIL``
marks a silence inside the utterance. punct.io.textgrid writes words and
sentence tiers only, so the two-tier TextGrid is written here with praatio:
a ``words`` tier of the transcript tokens and a ``phones`` tier (ARPAbet,
no stress), empty intervals where nothing is said.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from punct.align.aligner import Alignment
from punct.errors import PunctError
from punct.fsutil import atomic_path, atomic_write
from punct.text.words import Utterance


def alignment_utterance(al: Alignment, recording: str | None = None) -> Utterance:
    """The aligned words of AL as an Utterance of RECORDING (default: the utterance's own id)."""
    return Utterance(id=al.utt, words=list(al.words), recording=recording or al.utt)


def write_word_ctm(alignments: Iterable[tuple[Alignment, str]], path: str | Path) -> None:
    """Word CTM of (alignment, recording id) pairs; confidence = the aligner's posterior."""
    from punct.io.ctm import write

    utts = [alignment_utterance(a, r) for a, r in alignments]
    if not any(u.words for u in utts):
        with atomic_write(path):
            pass
        return
    write([u for u in utts if u.words], path, marks=False)


def phone_ctm_lines(al: Alignment, recording: str) -> list[tuple[tuple, str]]:
    """((recording, start) sort key, CTM line) for every phone and silence of AL."""
    rows = []
    for ph in al.phones:
        for p in ph:
            rows.append(((recording.encode(), p.start), f"{recording} 1 {p.start:.3f} {max(p.end - p.start, 0):.3f} {p.name}\n"))
    for s, e in al.silences:
        rows.append(((recording.encode(), s), f"{recording} 1 {s:.3f} {max(e - s, 0):.3f} SIL\n"))
    return rows


def write_phone_ctm(alignments: Iterable[tuple[Alignment, str]], path: str | Path) -> None:
    """Write the phones and silences of every (alignment, recording) to one CTM, in time order, atomically."""
    rows = []
    for al, reco in alignments:
        rows += phone_ctm_lines(al, reco)
    rows.sort(key=lambda r: r[0])
    with atomic_write(path) as f:
        for _, line in rows:
            f.write(line)


def _tier_entries(items: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Sorted, non-overlapping, non-empty intervals (an overlap is trimmed)."""
    out: list[tuple[float, float, str]] = []
    for s, e, lab in sorted(items):
        if out and s < out[-1][1]:
            s = out[-1][1]
        if e - s >= 0.001:
            out.append((round(s, 3), round(e, 3), lab))
    return out


def write_textgrid(al: Alignment, path: str | Path, duration: float | None = None) -> None:
    """A TextGrid with a ``words`` and a ``phones`` interval tier (times in recording seconds)."""
    from praatio import textgrid as ptg

    path = Path(path)
    words = _tier_entries([(w.start, w.end, w.text) for w in al.words if w.start is not None and w.end is not None])
    phones = _tier_entries([(p.start, p.end, p.name) for ph in al.phones for p in ph])
    xmax = max([duration or 0.0] + [e for _, e, _ in words] + [e for _, e, _ in phones] + [0.001])
    tg = ptg.Textgrid()
    tg.addTier(ptg.IntervalTier("words", words, 0.0, xmax))
    tg.addTier(ptg.IntervalTier("phones", phones, 0.0, xmax))
    try:
        with atomic_path(path) as tmp:
            tg.save(tmp, format="long_textgrid", includeBlankSpaces=True, minimumIntervalLength=None, reportingMode="error")
    except Exception as e:
        raise PunctError(f"cannot write TextGrid: {e}", path) from None
