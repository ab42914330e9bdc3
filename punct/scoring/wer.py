"""Word error rate of a hypothesis data directory against its reference, twice: with the
project's own edit-distance alignment (``punct.scoring.score``, the code that also transfers
punctuation and scores ASR output) and, as an independent cross-check, with NIST sclite
from Debian's sctk. ``score_wer`` is what ``punct.bin.wer`` and ``punct.bin.asr_decode``
run; the files it writes are described there.
"""
from __future__ import annotations

import logging
import re
import shutil
import subprocess
from pathlib import Path

from punct.audio import audio_duration
from punct.data.datadir import load_utterances
from punct.errors import PunctError
from punct.fsutil import atomic_write, write_json
from punct.io.ctm import read_datadir as read_ctm_datadir, write as write_ctm
from punct.scoring.score import score_utterances
from punct.data.tables import read_segments, read_table, read_wav_scp

log = logging.getLogger(__name__)

# the end time an STM segment is given when its audio has no known end (segments end -1, no
# wav.scp duration): sclite only needs it past every hypothesis word
OPEN_END = 1e6


def write_stm(ref_dir: Path, path: Path, only: set[str] | None = None) -> None:
    """NIST STM of the reference (the utterances in ONLY, or all): one segment per utterance, sorted."""
    text = read_table(ref_dir / "text")
    spk = {k: v[0] for k, v, _ in read_table(ref_dir / "utt2spk")} if (ref_dir / "utt2spk").is_file() else {}
    segs = read_segments(ref_dir / "segments") if (ref_dir / "segments").is_file() else None
    wav = read_wav_scp(ref_dir / "wav.scp") if (ref_dir / "wav.scp").is_file() else {}
    rows = []
    for utt, words, _ in text:
        if only is not None and utt not in only:
            continue
        if segs is not None:
            s = segs[utt]
            reco, start, end = s.recording, s.start, (s.end if s.end >= 0 else OPEN_END)  # -1: to the recording's end
        else:
            reco, start = utt, 0.0
            end = audio_duration(wav[utt]) if utt in wav else None
            end = OPEN_END if end is None else end
        rows.append(((reco.encode(), start), f"{reco} 1 {spk.get(utt, utt)} {start:.3f} {end:.3f} {' '.join(words)}\n"))
    rows.sort(key=lambda r: r[0])
    with atomic_write(path) as f:
        f.write(';; reference transcripts written by punct.scoring.wer\n')
        f.writelines(line for _, line in rows)


def run_sclite(stm: Path, ctm: Path, out: Path) -> dict | None:
    """``sctk sclite -r stm -h ctm``; the Sum/Avg line as numbers, or None when sctk is missing."""
    exe = shutil.which("sctk")
    if exe is None:
        log.warning("sctk (Debian package sctk) is not installed: no sclite scoring")
        return None
    cmd = [exe, "sclite", "-r", str(stm), "stm", "-h", str(ctm), "ctm", "-o", "sum", "stdout"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    with atomic_write(out) as f:
        f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    m = re.search(r"\|\s*Sum/Avg\s*\|\s*(\d+)\s+(\d+)\s*\|\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", r.stdout)
    if r.returncode != 0 or not m:
        log.warning("sclite failed (status %d); see %s", r.returncode, out)
        return None
    keys = ("sentences", "words", "corr", "sub", "del", "ins", "wer")
    vals = [int(m.group(1)), int(m.group(2))] + [float(m.group(i)) for i in range(3, 8)]
    return dict(zip(keys, vals))


def score_wer(ref_dir: Path, hyp_dir: Path, out: Path, only: set[str] | None = None) -> dict:
    """Word error rate of HYP against REF (the utterances in ONLY, or all) with punct.scoring.score and sclite; into OUT/."""
    ref = load_utterances(ref_dir, require_labels=False)
    hyp = load_utterances(hyp_dir, require_labels=False)
    if only is not None:
        missing = sorted(only - {u.id for u in ref})
        if missing:
            raise PunctError(f"utterance {missing[0]} is not in the reference", ref_dir / "text")
        ref = [u for u in ref if u.id in only]
        hyp = [u for u in hyp if u.id in only]
    # everything is checked before OUT is touched
    extra = sorted({u.id for u in hyp} - {u.id for u in ref})
    if extra:
        raise PunctError(f"utterance {extra[0]!r} is not in the reference {ref_dir / 'text'} ({len(extra)} such)",
                         hyp_dir / "text")
    own_ctm = (hyp_dir / "ctm").is_file() and only is None
    if not own_ctm:
        untimed = next(((u, i) for u in hyp for i, w in enumerate(u.words) if w.start is None or w.end is None), None)
        if untimed is not None:
            u, i = untimed
            raise PunctError(f"word {i + 1} ({u.words[i].text!r}) of {u.id} has no times: sclite needs word_times "
                             "or the recognizer's ctm", hyp_dir / ("word_times" if (hyp_dir / "word_times").is_file()
                                                                   else "text"))
    out.mkdir(parents=True, exist_ok=True)
    report = score_utterances(ref, hyp)
    st = report.transfer
    result = {"punct_score": None if st is None else {
        "ref_words": st.ref_words, "hyp_words": st.hyp_words, "substitutions": st.substitutions,
        "deletions": st.deletions, "insertions": st.insertions, "wer": None if st.wer is None else round(st.wer, 2),
        "exact_wer": None if st.exact_wer is None else round(st.exact_wer, 2)}}
    write_stm(ref_dir, out / "ref.stm", only)
    if own_ctm:
        # the recognizer's own CTM (its times and confidences, at absolute times through the
        # directory's segments), marks stripped and in the start-time order sclite wants
        write_ctm(read_ctm_datadir(hyp_dir), out / "hyp.ctm", marks=False, sort=True)
    else:  # a hypothesis data directory without its CTM: rebuild it from text and word_times
        write_ctm(hyp, out / "hyp.ctm", marks=False, sort=True)
    result["sclite"] = run_sclite(out / "ref.stm", out / "hyp.ctm", out / "sclite.txt")
    result["utterances"] = sorted(only) if only is not None else len(ref)
    write_json(out / "wer.json", result)
    ps, sc = result["punct_score"] or {}, result["sclite"] or {}
    log.info("WER of %s against %s: %s%% (punct.scoring.score: %s sub, %s del, %s ins over %s words); sclite: %s%%",
             hyp_dir, ref_dir, ps.get("wer"), ps.get("substitutions"), ps.get("deletions"), ps.get("insertions"),
             ps.get("ref_words"), sc.get("wer", "n/a"))
    return result
