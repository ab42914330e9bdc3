"""Speed and agreement of punct's pitch trackers on LJ Speech (real read speech, one speaker).

    python benchmarks/bench_pitch.py [--clips 30] [--trackers yinfft yin praat pyin] [--json out.json]

Reads the first ``--clips`` clips of ``../shared/data/ljspeech`` at 16 kHz (punct.audio) and
tracks each with every tracker on punct's 10 ms grid (punct.prosody.pitch, conf/prosody.yaml
settings). Printed per tracker: speed as a real-time factor (tracking seconds / audio seconds;
pyin's first call, numba's compilation, is timed apart and left out), the share of frames it
calls voiced; per pair of trackers: frame-level voicing agreement and Cohen's kappa, and on
the frames both call voiced the median absolute F0 difference in semitones and the share of
gross differences (over 3 semitones: octave and other jumps). One thread each.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from punct.audio import read_audio  # noqa: E402
from punct.prosody.pitch import ALL_TRACKERS, PitchConfig, get_tracker  # noqa: E402

RATE, HOP = 16000, 160


def pitch_config() -> PitchConfig:
    """conf/prosody.yaml's ``pitch:`` settings."""
    import yaml

    cfg = yaml.safe_load((ROOT / "conf" / "prosody.yaml").read_text())["pitch"]
    cfg.pop("tracker", None)
    return PitchConfig(**cfg)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--clips", type=int, default=30)
    p.add_argument("--trackers", nargs="+", default=list(ALL_TRACKERS), choices=ALL_TRACKERS)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    wavs = sorted((a.corpus / "ljspeech" / "wavs").glob("*.flac"))[: a.clips]
    if not wavs:
        p.error(f"no LJ Speech clips under {a.corpus / 'ljspeech' / 'wavs'}")
    audio = [read_audio(w, RATE) for w in wavs]
    seconds = sum(len(x) for x in audio) / RATE
    cfg = pitch_config()
    tracks: dict[str, list] = {}
    result: dict = {"clips": len(audio), "audio_seconds": round(seconds, 1), "load_before": os.getloadavg()[0],
                    "trackers": {}, "pairs": {}}
    for name in a.trackers:
        tr = get_tracker(name, cfg)
        warm = 0.0
        if name == "pyin":  # numba compiles on the first call: timed apart
            t0 = time.perf_counter()
            tr.track(audio[0][:RATE], RATE, HOP)
            warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        tracks[name] = [tr.track(x, RATE, HOP) for x in audio]
        took = time.perf_counter() - t0
        voiced = np.concatenate([t.voiced for t in tracks[name]])
        result["trackers"][name] = {"seconds": round(took, 2), "x_real_time": round(took / seconds, 4),
                                    "first_call_seconds": round(warm, 1), "voiced_share": round(float(voiced.mean()), 3)}
        print(name, result["trackers"][name], flush=True)
    for x, y in combinations(a.trackers, 2):
        vx = np.concatenate([t.voiced for t in tracks[x]])
        vy = np.concatenate([t.voiced for t in tracks[y]])
        agree = float((vx == vy).mean())
        pe = vx.mean() * vy.mean() + (1 - vx.mean()) * (1 - vy.mean())
        both = vx & vy
        fx = np.concatenate([t.f0 for t in tracks[x]])[both]
        fy = np.concatenate([t.f0 for t in tracks[y]])[both]
        st = np.abs(12 * np.log2(fx / fy))
        result["pairs"][f"{x}-{y}"] = {"voicing_agreement": round(agree, 3), "kappa": round(float((agree - pe) / (1 - pe)), 3),
                                       "both_voiced_frames": int(both.sum()),
                                       "median_semitones": round(float(np.median(st)), 3) if len(st) else None,
                                       "gross_over_3_semitones": round(float((st > 3).mean()), 4) if len(st) else None}
        print(f"{x}-{y}", result["pairs"][f"{x}-{y}"], flush=True)
    result["load_after"] = os.getloadavg()[0]
    if a.json:
        a.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
