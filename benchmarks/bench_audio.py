"""Accuracy of the forced aligner on synthesized speech, and speed of the audio stages.

    python benchmarks/bench_audio.py [--sentences 36] [--clips 60] [--nj 1 2] [--json out.json]
    python benchmarks/bench_audio.py --skip-speed      # alignment accuracy only (about a minute)

1. Alignment accuracy: Festival (Debian festival + festvox-kallpc16k) speaks the
   first ``--sentences`` clips' normalized text of LJ Speech (public domain) and
   reports the true start and end of every word it says (punct.align.festival);
   punct's aligner aligns Festival's word list to the audio. Printed: mean and
   median absolute boundary error over all word starts and ends, and the share of
   boundaries within 20 ms and 50 ms; also without the first word's start (the
   closure of a stop after silence is counted as silence by the aligner).
2. Speed: the first ``--clips`` clips of LJ Speech are prepared as a data
   directory in a temporary folder; stages 2, 3 and 4 run exactly as in the
   recipe (split, ``local/run_local.sh JOB=1:NJ`` jobs, merge) at each ``--nj``.
   Printed: wall-clock seconds and real-time factor (wall / audio duration) of
   alignment, decoding and pitch/energy features, and the load average of the
   machine before and after (other processes slow the numbers down: say so when
   quoting them).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def ljspeech_texts(corpus: Path, n: int) -> list[tuple[str, str]]:
    rows = []
    for line in (corpus / "ljspeech" / "metadata.csv").read_text(encoding="utf-8").splitlines():
        f = line.split("|")
        if len(f) == 3:
            rows.append((f[0], f[2]))
    return rows[:n]


def alignment_accuracy(corpus: Path, n: int) -> dict:
    import numpy as np

    from punct.align import festival
    from punct.align.aligner import ForcedAligner
    from punct.audio import read_audio

    if not festival.available():
        raise SystemExit("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    aligner = ForcedAligner()
    errs, inner, n_words, n_lts, failed, audio_s, align_s = [], [], 0, 0, 0, 0.0, 0.0
    with tempfile.TemporaryDirectory(prefix="bench-festival-") as tmp:
        for clip, text in ljspeech_texts(corpus, n):
            wav = Path(tmp) / f"{clip}.wav"
            truth = festival.synthesize(text, wav)
            x = read_audio(wav)
            t0 = time.time()
            al = aligner.align(x, [w.text for w in truth], clip)
            align_s += time.time() - t0
            audio_s += len(x) / 16000
            n_words += len(truth)
            n_lts += al.n_lts
            failed += al.failed
            e = [abs(a - b) for t, w in zip(truth, al.words) for a, b in ((t.start, w.start), (t.end, w.end))]
            errs += e
            inner += e[1:]
    e, i = np.array(errs), np.array(inner)
    return {"sentences": n, "words": n_words, "boundaries": int(e.size), "audio_seconds": round(audio_s, 1),
            "mean_ms": round(1000 * e.mean(), 1), "median_ms": round(1000 * float(np.median(e)), 1),
            "within_20ms": round(float((e <= 0.02).mean()), 3), "within_50ms": round(float((e <= 0.05).mean()), 3),
            "mean_ms_without_first_start": round(1000 * i.mean(), 1),
            "lts_words": n_lts, "failed": int(failed), "align_rtf": round(align_s / audio_s, 4)}


def _run(cmd: list[str], log: Path) -> float:
    t0 = time.time()
    with open(log, "a") as f:
        r = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)} (see {log})")
    return time.time() - t0


def stage_speed(corpus: Path, clips: int, nj: int, work: Path) -> dict:
    """Wall-clock seconds of stages 2, 3 and 4 (reference set) on ``clips`` clips with ``nj`` jobs."""
    data, exp, log = work / f"nj{nj}" / "data", work / f"nj{nj}" / "exp", work / f"nj{nj}.log"
    py = sys.executable
    _run([py, "recipes/ljspeech/prepare.py", "--corpus-dir", str(corpus), "--out-dir", str(data), "--splits", "lj:1",
          "--max-utts", str(clips)], log)
    d = data / "lj"
    runner = "local/run_local.sh"
    out = {"nj": nj, "clips": clips}
    _run([py, "-m", "punct.bin.align", "--prepare-lts", "--data", str(d)], log)
    t = _run([py, "-m", "punct.bin.datadir_tools", "split", "--nj", str(nj), str(d)], log)
    t += _run([runner, f"JOB=1:{nj}", str(exp / "align" / "log" / "align.JOB.log"), py, "-m", "punct.bin.align",
               "--config", "conf/align.yaml", "--data", f"{d}/split{nj}/JOB", "--out-dir", str(exp / "align" / "part.JOB")], log)
    t += _run([py, "-m", "punct.bin.align", "--merge", str(nj), "--data", str(d), "--out-dir", str(exp / "align")], log)
    out["align_s"] = t
    t = _run([runner, f"JOB=1:{nj}", str(exp / "asr" / "log" / "decode.JOB.log"), py, "-m", "punct.bin.asr_decode",
              "--config", "conf/asr.yaml", "--data", f"{d}/split{nj}/JOB", "--out-dir", str(exp / "asr" / "part.JOB")], log)
    t += _run([py, "-m", "punct.bin.asr_decode", "--merge", str(nj), "--data", str(d), "--out-dir", str(exp / "asr"),
               "--hyp-dir", str(data / "lj_hyp")], log)
    out["decode_s"] = t
    # split again, as the recipe does: the parts now get the word_times of stage 2
    t = _run([py, "-m", "punct.bin.datadir_tools", "split", "--nj", str(nj), str(d)], log)
    t += _run([runner, f"JOB=1:{nj}", str(exp / "prosody" / "log" / "prosody.JOB.log"), py, "-m",
              "punct.bin.prosody_feats", "--config", "conf/prosody.yaml", "--data", f"{d}/split{nj}/JOB",
              "--out-dir", str(exp / "prosody" / "part.JOB")], log)
    t += _run([py, "-m", "punct.bin.prosody_feats", "--config", "conf/prosody.yaml", "--merge", str(nj), "--data", str(d),
               "--out-dir", str(exp / "prosody")], log)
    out["features_s"] = t
    audio = json.loads((exp / "align" / "report.json").read_text())["audio_seconds"]
    wer = json.loads((exp / "asr" / "scoring" / "wer.json").read_text())
    out.update(audio_s=audio, wer_punct_score=wer["punct_score"]["wer"],
               wer_sclite=(wer["sclite"] or {}).get("wer"))
    for k in ("align", "decode", "features"):
        out[f"{k}_rtf"] = round(out[f"{k}_s"] / audio, 4)
        out[f"{k}_s"] = round(out[f"{k}_s"], 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus-dir", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--sentences", type=int, default=36, help="Festival sentences for the alignment accuracy")
    p.add_argument("--clips", type=int, default=60, help="LJ Speech clips for the speed measurements")
    p.add_argument("--nj", type=int, nargs="+", default=[1, 2], help="job counts to time")
    p.add_argument("--skip-speed", action="store_true", help="only the alignment accuracy")
    p.add_argument("--skip-accuracy", action="store_true", help="only the speed")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args(argv)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    import logging

    logging.basicConfig(level=logging.WARNING)
    corpus = Path(args.corpus_dir).resolve()
    results: dict = {"load_before": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    print(f"machine: {os.cpu_count()} CPUs, load average before: {results['load_before']}")
    if not args.skip_accuracy:
        acc = alignment_accuracy(corpus, args.sentences)
        results["alignment_accuracy"] = acc
        print(f"alignment vs Festival's word times: {acc['sentences']} sentences, {acc['words']} words, "
              f"{acc['boundaries']} boundaries: mean {acc['mean_ms']} ms, median {acc['median_ms']} ms, "
              f"within 20 ms {100 * acc['within_20ms']:.1f}%, within 50 ms {100 * acc['within_50ms']:.1f}%; "
              f"without the first word's start: mean {acc['mean_ms_without_first_start']} ms; "
              f"{acc['lts_words']} words by letter-to-sound, {acc['failed']} failed; "
              f"aligner alone {acc['align_rtf']} x real time")
    if not args.skip_speed:
        results["speed"] = []
        with tempfile.TemporaryDirectory(prefix="bench-audio-") as tmp:
            for nj in args.nj:
                s = stage_speed(corpus, args.clips, nj, Path(tmp))
                results["speed"].append(s)
                print(f"LJ Speech, {args.clips} clips ({s['audio_s']:.0f} s of audio), --nj {nj}: "
                      f"alignment {s['align_s']} s ({s['align_rtf']} x real time), "
                      f"decoding {s['decode_s']} s ({s['decode_rtf']} x RT; WER {s['wer_punct_score']}% punct.scoring.score, "
                      f"{s['wer_sclite']}% sclite), pitch/energy features {s['features_s']} s ({s['features_rtf']} x RT)")
    results["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average after: {results['load_after']} (wall-clock numbers include waiting for other processes)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
