"""Punctuation scores of a hypothesis against a reference (the metrics: punct.scoring.score_report).

``score_labels(ref_labels, hyp_labels)`` scores two label streams over the same words;
``score_utterances(ref_utts, hyp_utts)`` scores utterances whose words may differ (ASR
output): the words are aligned by edit distance (punct.data.transfer) and the reference marks
carried onto the hypothesis words, so every hypothesis word is one slot (the mark after it)
with a reference label and a hypothesis label; for ASR output the report adds the word error
rate and what happened to the reference marks (punct.data.transfer.TransferStats).

Case is scored when both sides are cased (each holds a capital and a small letter, so
neither lower-case text nor an all-caps recognizer output is). Every word has a case class
(punct.text.labels.case_of); on the marks' alignment an aligned pair compares its two classes, a
deleted reference word counts as predicted LOWER, an inserted hypothesis word as reference
LOWER, and where clitic joining pairs one word with two the second takes LOWER.
Non-speech tokens (punct.text.words.is_nonspeech) are neither slots nor words of the WER.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from punct.errors import PunctError
from punct.text.labels import CASES, LABELS, LOWER, O, case_of, is_label, stronger
from punct.scoring.score_report import PRF, ScoreReport, SlotError
from punct.data.transfer import DEL, TransferStats, align, exact_word_errors, normalize_word, transfer_marks_lost
from punct.text.words import Utterance, Word, is_nonspeech

__all__ = ["CONTEXT_WORDS", "LOST_WORD", "PRF", "ScoreReport", "SlotError", "SlotStream", "aligned_slots", "is_cased",
           "score_labels", "score_streams", "score_utterances"]

log = logging.getLogger(__name__)

#: Words shown on each side of an error in the listing.
CONTEXT_WORDS = 4


class _Tally:
    """Accumulates slots into a confusion matrix and an error listing."""

    def __init__(self) -> None:
        self.confusion = {r: {h: 0 for h in LABELS} for r in LABELS}
        self.errors: list[SlotError] = []
        self.case: dict[str, dict[str, int]] | None = None
        self.mark_case = PRF()

    def add_case(self, st: "SlotStream") -> None:
        """Count the case classes and the mark+case events of a stream (punct.scoring.score_report defines them)."""
        if self.case is None:
            self.case = {r: {h: 0 for h in CASES} for r in CASES}
        mc = self.mark_case
        for r, h, rc, hc in zip(st.ref, st.hyp, st.case_ref, st.case_hyp):
            self.case[rc][hc] += 1
            right = r == h and rc == hc
            ref_event, hyp_event = r != O or rc != LOWER, h != O or hc != LOWER
            mc.tp += ref_event and right
            mc.fn += ref_event and not right
            mc.fp += hyp_event and not right
        for rc in st.case_deleted:
            self.case[rc][LOWER] += 1
            mc.fn += rc != LOWER

    def add(self, ref: Sequence[str], hyp: Sequence[str], words: Sequence[str] | None = None, utt: str | None = None,
            locs: Sequence[tuple[str, int]] | None = None) -> None:
        """Count slots; ``locs`` (utterance, index) per slot overrides ``utt`` and the position."""
        if len(ref) != len(hyp):
            raise PunctError(f"{len(ref)} reference labels but {len(hyp)} hypothesis labels"
                             + (f" in {utt!r}" if utt else ""))
        conf = self.confusion
        for k, (r, h) in enumerate(zip(ref, hyp)):
            try:
                conf[r][h] += 1
            except KeyError:
                bad = r if r not in conf else h
                raise PunctError(f"unknown label {bad!r} (expected one of {' '.join(LABELS)})") from None
            if r != h:
                u, i = locs[k] if locs is not None else (utt, k)
                self.errors.append(SlotError(u, i, r, h, _context(words, k, r, h)))

    def report(self, transfer: TransferStats | None = None) -> ScoreReport:
        return ScoreReport(confusion=self.confusion, errors=self.errors, transfer=transfer, case_confusion=self.case,
                           mark_case=self.mark_case if self.case is not None else None)


def _context(words: Sequence[str] | None, k: int, r: str, h: str) -> str:
    tag = f"[{r}->{h}]"
    if words is None:
        return tag
    lo, hi = max(0, k - CONTEXT_WORDS), min(len(words), k + 1 + CONTEXT_WORDS)
    left = ("... " if lo > 0 else "") + " ".join(words[lo : k + 1])
    right = " ".join(words[k + 1 : hi]) + (" ..." if hi < len(words) else "")
    return f"{left} {tag} {right}".rstrip()


def score_labels(ref_labels: Sequence[str], hyp_labels: Sequence[str], words: Sequence[str] | None = None) -> ScoreReport:
    """Score hypothesis labels against reference labels of the same words (equal lengths).

    ``words`` (optional) gives the error listing its context.
    """
    tally = _Tally()
    tally.add(list(ref_labels), list(hyp_labels), words)
    return tally.report()


def _check_labels(utts: Sequence[Utterance], side: str) -> None:
    for u in utts:
        for w in u.words:
            if not is_label(w.label):
                raise PunctError(f"{side} utterance {u.id!r}: unknown label {w.label!r}")


@dataclass
class SlotStream:
    """The slots of one aligned stretch of text: reference and hypothesis label per slot."""

    utt: str | None
    ref: list[str]
    hyp: list[str]
    words: list[str]
    #: (utterance, index) per slot when the stretch joins several utterances
    locs: list[tuple[str, int]] | None = None
    #: when case is scored: the case class of each slot's reference and hypothesis word, and
    #: the classes of the deleted reference words (punct.text.labels.CASES)
    case_ref: list[str] | None = None
    case_hyp: list[str] | None = None
    case_deleted: list[str] | None = None


#: the word of the slot of a dropped mark (``count_dropped``) in the error listing
LOST_WORD = "<lost>"


def _unpaired(ref_ids: Sequence[str], hyp_ids: Sequence[str]) -> str:
    """Why utterances that must pair by id (two folders, two data directories) do not."""
    if not hyp_ids:
        return "the hypothesis has no utterances"
    extra = sorted(set(hyp_ids) - set(ref_ids))
    if not extra:
        return "an utterance id is repeated: utterances pair by id"
    shared = len(set(hyp_ids) & set(ref_ids))
    return (f"hypothesis utterance (file) {extra[0]!r} has no reference one: {shared} of {len(set(hyp_ids))} "
            f"hypothesis ids match the reference's {len(set(ref_ids))} (first {ref_ids[0] if ref_ids else None!r}); "
            "two folders pair by file name")


def aligned_slots(ref_utts: Sequence[Utterance], hyp_utts: Sequence[Utterance],
                  normalize: Callable[[str], str] = normalize_word,
                  count_dropped: bool = False, progress: bool = False,
                  by_id: bool = False) -> tuple[list[SlotStream], TransferStats]:
    """The slots that score_utterances scores, stretch by stretch, and the transfer statistics.

    When every hypothesis utterance id is a reference one, utterances are aligned one
    by one (a stretch each; a reference utterance without a hypothesis one has its
    words deleted); otherwise all words of each side (in the given order) form one
    stream. The slots are the hypothesis words; their reference labels
    are the reference marks transferred onto them (punct.data.transfer.transfer_marks).
    A reference mark dropped in the transfer (no hypothesis word left to take it,
    or merged into a stronger mark) has no slot and is not scored; with
    ``count_dropped`` each one gets a slot of its own after the word it was merged
    into (hypothesis label O, word ``<lost>``), so it counts as a missed mark.
    ``progress``: a progress bar (tqdm, on stderr) over the reference words aligned.
    ``by_id`` (two folders, two data directories): the utterances must pair by id (file
    name); a PunctError instead of one stream when they do not.
    """
    _check_labels(ref_utts, "reference")
    _check_labels(hyp_utts, "hypothesis")
    ref_ids = [u.id for u in ref_utts]
    hyp_ids = [u.id for u in hyp_utts]

    def spoken(utts: Sequence[Utterance]) -> tuple[list[Word], list[tuple[str, int]]]:
        """The words of ``utts`` without non-speech tokens and each one's (utterance, index)."""
        kept = [(w, (u.id, k)) for u in utts for k, w in enumerate(u.words) if not is_nonspeech(w)]
        return [w for w, _ in kept], [loc for _, loc in kept]

    pairs: list[tuple[str | None, list[Word], list[Word], list[tuple[str, int]] | None]] = []
    if (hyp_ids and len(set(ref_ids)) == len(ref_ids) and len(set(hyp_ids)) == len(hyp_ids)
            and set(hyp_ids) <= set(ref_ids)):
        by_id = {u.id: u for u in hyp_utts}
        missing = len(ref_ids) - len(hyp_ids)
        if missing:
            log.info("%d of %d reference utterances have no hypothesis utterance: their words count as deleted",
                     missing, len(ref_ids))
        for u in ref_utts:
            hyp_words, locs = spoken([by_id.get(u.id, Utterance(u.id))])
            pairs.append((u.id, _marks_on_speech(u.words), hyp_words, locs))
    else:
        shared = set(hyp_ids) & set(ref_ids)
        if by_id:
            raise PunctError(_unpaired(ref_ids, hyp_ids))
        if shared and len(ref_ids) > 1 and len(hyp_ids) > 1:  # pairs by id, but not all of them: a mismatch
            extra = sorted(set(hyp_ids) - set(ref_ids))
            raise PunctError(f"hypothesis utterance {extra[0]!r} has no reference utterance ({len(extra)} such; "
                             f"{len(shared)} ids match): utterances, or a folder's files, pair by id or name"
                             if extra else "an utterance id is repeated: utterances pair by id")
        if len(ref_utts) > 1 and len(hyp_utts) > 1:
            log.warning("utterance ids differ (%d reference, %d hypothesis utterances): aligning all words as one "
                        "stream", len(ref_utts), len(hyp_utts))
        hyp_words, locs = spoken(hyp_utts)
        pairs = [(None, _marks_on_speech([w for u in ref_utts for w in u.words]), hyp_words, locs)]
    left_out = [sum(len(u.words) for u in utts) - sum(len(p[side]) for p in pairs)
                for side, utts in ((1, ref_utts), (2, hyp_utts))]
    if any(left_out):
        log.info("non-speech tokens ([noise], <sil>, ...) left out: %d of the reference, %d of the hypothesis",
                 *left_out)
    total = TransferStats()
    streams = []
    with_case = is_cased(w for p in pairs for w in p[1]) and is_cased(w for p in pairs for w in p[2])
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(len(p[1]) for p in pairs), unit=" words", desc="aligning", leave=False)
    for utt, ref_words, hyp_words, locs in pairs:
        al = align([w.text for w in ref_words], [w.text for w in hyp_words], normalize)
        projected, stats, lost = transfer_marks_lost(ref_words, hyp_words, normalize=normalize, alignment=al)
        stats.exact_errors = exact_word_errors([w.text for w in ref_words], [w.text for w in hyp_words])
        total = total + stats
        st = SlotStream(utt, [w.label for w in projected], [w.label for w in hyp_words],
                        [w.text for w in hyp_words], locs)
        if with_case:
            st.case_ref, st.case_deleted = _aligned_cases(al, ref_words, len(hyp_words))
            st.case_hyp = [case_of(w.written or w.text) for w in hyp_words]
        if count_dropped and lost:
            st = _with_lost(st, lost)
        streams.append(st)
        if bar is not None:
            bar.update(len(ref_words))
    if bar is not None:
        bar.close()
    return streams, total


#: the least share of words holding a capital for a text to count as cased: sentence case has one
#: a sentence; a lower-case text with a few capitals of its own (mojibake such as IWSLT dev2012's
#: "schrÃ¶dinger", 8 words in 296K) is not cased
MIN_CAPITAL_SHARE = 1 / 200


def is_cased(words) -> bool:
    """True when ``words`` hold small letters and at least one word in 200 holds a capital:
    text whose case can be scored (neither lower case nor all capitals)."""
    n = upper = 0
    lower = False
    for w in words:
        s = w.written or w.text
        n += 1
        upper += s != s.lower()
        lower = lower or s != s.upper()
    return lower and upper > 0 and upper >= MIN_CAPITAL_SHARE * n


def _aligned_cases(al, ref_words: Sequence[Word], n_hyp: int) -> tuple[list[str], list[str]]:
    """(the case class of the reference word aligned to each hypothesis word, LOWER for an
    inserted one or the second of two words paired with one; the classes of the deleted
    reference words)."""
    out = [LOWER] * n_hyp
    seen_hyp: set[int] = set()
    used_ref: set[int] = set()
    deleted = []
    for o in al.ops:
        if o.op == DEL:
            deleted.append(case_of(ref_words[o.ref].written or ref_words[o.ref].text))
        elif o.ref is not None and o.hyp is not None and o.hyp not in seen_hyp:
            seen_hyp.add(o.hyp)
            if o.ref not in used_ref:
                w = ref_words[o.ref]
                out[o.hyp] = case_of(w.written or w.text)
            used_ref.add(o.ref)
    return out, deleted


def _marks_on_speech(words: Sequence[Word]) -> list[Word]:
    """The reference ``words`` without non-speech tokens (``[laughter]``, ``<sil>``: no slot and
    no word for the word error rate, as Kaldi's scoring filters them); the mark after a dropped
    token goes to the word before it (the stronger of the two, as punct.data.transfer merges marks)."""
    out: list[Word] = []
    for w in words:
        if not is_nonspeech(w):
            out.append(w)
        elif w.label != O and out:
            out[-1] = replace(out[-1], label=stronger(out[-1].label, w.label))
    return out


def _with_lost(st: SlotStream, lost: Sequence[tuple[int, str]]) -> SlotStream:
    """``st`` with a slot (reference mark, hypothesis O, word ``<lost>``) after hypothesis word j
    for each lost mark (j, mark); j = -1 puts it first. Every slot keeps the (utterance, index) of
    its hypothesis word in the error listing; a lost mark takes that of the word it follows."""
    after: dict[int, list[str]] = {}
    for j, lab in lost:
        after.setdefault(j, []).append(lab)

    def loc(k: int) -> tuple[str, int]:
        return st.locs[k] if st.locs is not None else (st.utt, k)  # type: ignore[return-value]

    cased = st.case_ref is not None
    out = SlotStream(st.utt, [], [], [], [], [] if cased else None, [] if cased else None, st.case_deleted)
    for k in range(-1, len(st.ref)):
        if k >= 0:
            out.ref.append(st.ref[k])
            out.hyp.append(st.hyp[k])
            out.words.append(st.words[k])
            out.locs.append(loc(k))  # type: ignore[union-attr]
            if cased:
                out.case_ref.append(st.case_ref[k])  # type: ignore[union-attr,index]
                out.case_hyp.append(st.case_hyp[k])  # type: ignore[union-attr,index]
        for lab in after.get(k, []):
            out.ref.append(lab)
            out.hyp.append(O)
            out.words.append(LOST_WORD)
            if cased:
                out.case_ref.append(LOWER)  # type: ignore[union-attr]
                out.case_hyp.append(LOWER)  # type: ignore[union-attr]
            out.locs.append(loc(max(k, 0)) if st.ref else (st.utt, 0))  # type: ignore[union-attr,arg-type]
    return out


def score_streams(streams: Sequence[SlotStream], transfer: TransferStats | None = None) -> ScoreReport:
    """Score the slots of aligned_slots."""
    tally = _Tally()
    for st in streams:
        tally.add(st.ref, st.hyp, st.words, st.utt, st.locs)
        if st.case_ref is not None:
            tally.add_case(st)
    return tally.report(transfer)


def score_utterances(ref_utts: Sequence[Utterance], hyp_utts: Sequence[Utterance],
                     normalize: Callable[[str], str] = normalize_word, count_dropped: bool = False) -> ScoreReport:
    """Score hypothesis utterances against reference utterances, aligning their words (aligned_slots)."""
    streams, transfer = aligned_slots(ref_utts, hyp_utts, normalize, count_dropped)
    return score_streams(streams, transfer)
