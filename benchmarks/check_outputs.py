"""Check punct's subtitle and CTM outputs with independent tools, over a folder of recordings.

    punct restore CTM_DIR -o RESTORED/ --output-format json        # once: the model's marks
    python benchmarks/check_outputs.py --restored RESTORED --input-ctm CTM_DIR --out OUT [writer options]
    python benchmarks/check_outputs.py --measure OUT --input-ctm CTM_DIR     # files written otherwise

Renders every restored recording as SRT, WebVTT and CTM (each --ctm-marks form) with the
current writers (no model runs), then measures them as a subtitle editor and a scorer would:

- subtitles, parsed by ``srt`` and ``webvtt-py``: cues, cues with a line over
  --max-line-chars, the longest line, cues over --max-lines lines, cues longer than
  --max-cue-seconds, cues that overlap the next one, raw ``<unk>`` (an unescaped tag), and
  the events ``pysubs2`` reads empty from the WebVTT;
- CTMs: the errors sctk's ``ctmValidator.pl`` reports (summed over the files) and sclite's
  WER against an STM of the input CTM's own words (segments cut at its pauses): a punctuated CTM
  should score as its input does.

``--measure`` measures the ``srt/``, ``vtt/`` and ``ctm*/`` folders of a directory as they are
(for outputs written by another version of punct). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VALIDATOR = "/usr/lib/sctk/bin/ctmValidator.pl"
_TAG = re.compile(r"<[^>]*>")


def render(restored: Path, out: Path, args: argparse.Namespace) -> None:
    """Every ``*.json`` of RESTORED as OUT/srt, OUT/vtt and OUT/ctm-FORM files."""
    from punct.io import ctm, subtitles, wordjson
    from punct.io.options import CTM_MARKS, WriteOptions

    opts = WriteOptions(max_line_chars=args.max_line_chars, max_lines=args.max_lines,
                        max_cue_seconds=args.max_cue_seconds, word_times=not args.no_word_times,
                        bracketed=args.bracketed)
    for p in sorted(restored.glob("*.json")):
        utts = wordjson.read(p)
        subtitles.write(utts, out / "srt" / f"{p.stem}.srt", kind="srt", options=opts)
        subtitles.write(utts, out / "vtt" / f"{p.stem}.vtt", kind="vtt", options=opts)
        for form in CTM_MARKS:
            ctm.write(utts, out / f"ctm-{form}" / f"{p.stem}.ctm", marks=form)


def _shown(line: str) -> str:
    """A WebVTT cue line as a viewer sees it: tags removed, entities decoded."""
    return html.unescape(_TAG.sub("", line))


def _secs(stamp: str) -> float:
    """``HH:MM:SS.mmm`` in seconds (webvtt-py's ``start_in_seconds`` drops the milliseconds)."""
    h, m, sec = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(sec)


def measure_subtitles(folder: Path, kind: str, a: argparse.Namespace) -> dict:
    import pysubs2
    import srt
    import webvtt

    n = long_lines = many_lines = long_cues = overlaps = raw_unk = empty = 0
    longest_line, longest_cue = 0, 0.0
    for f in sorted(folder.glob(f"*.{kind}")):
        text = f.read_text(encoding="utf-8")
        if kind == "srt":
            cues = [(c.start.total_seconds(), c.end.total_seconds(), c.content.split("\n"))
                    for c in srt.parse(text)]
            raw_unk += sum(line.count("<unk>") for *_, lines in cues for line in lines)
        else:
            cues = [(_secs(c.start), _secs(c.end), [_shown(x) for x in c.raw_text.split("\n")])
                    for c in webvtt.from_string(text)]
            raw_unk += text.count("<unk>")
            empty += sum(1 for e in pysubs2.SSAFile.from_string(text, format_="vtt") if not e.plaintext.strip())
        for k, (s, e, lines) in enumerate(cues):
            n += 1
            width = max(len(x) for x in lines)
            longest_line = max(longest_line, width)
            long_lines += width > a.max_line_chars
            many_lines += len(lines) > a.max_lines
            longest_cue = max(longest_cue, e - s)
            long_cues += e - s > a.max_cue_seconds + 1e-6
            overlaps += k + 1 < len(cues) and e > cues[k + 1][0] + 1e-6
    out = {"cues": n, f"lines_over_{a.max_line_chars}": long_lines, "longest_line": longest_line,
           f"cues_over_{a.max_lines}_lines": many_lines, f"cues_over_{a.max_cue_seconds:g}s": long_cues,
           "longest_cue_s": round(longest_cue, 2), "overlapping_next": overlaps, "raw_unk": raw_unk}
    if kind == "vtt":
        out["pysubs2_empty_events"] = empty
    return out


def _stm(input_ctm: Path, path: Path, gap: float = 1.0, longest: float = 30.0) -> None:
    """An STM of the input CTMs' own words, cut into segments at pauses of at least GAP
    seconds (and before a segment grows past LONGEST seconds), each boundary in the middle of
    the pause: sclite aligns within segments, and one segment per hour-long call is slow."""
    rows = []
    for f in sorted(input_ctm.glob("*.ctm")):
        words = []
        for line in f.read_text(encoding="utf-8").splitlines():
            x = line.split()
            if len(x) >= 5 and not line.startswith(";;"):
                words.append((float(x[2]), float(x[2]) + float(x[3]), x[4], x[0], x[1]))
        words.sort(key=lambda w: w[0])
        segs, cur, begin = [], [], 0.0
        for k, w in enumerate(words):
            cur.append(w)
            nxt = words[k + 1][0] if k + 1 < len(words) else None
            end = max(x[1] for x in cur)
            if nxt is None or nxt - end >= gap or end - begin >= longest and nxt >= end:
                stop = 1e5 if nxt is None else (end + nxt) / 2
                segs.append((begin, stop, cur))
                cur, begin = [], stop
        for s, e, ws in segs:
            rows.append(f"{ws[0][3]} {ws[0][4]} {ws[0][3]} {s:.3f} {e:.3f} {' '.join(w[2] for w in ws)}\n")
    path.write_text("".join(rows), encoding="utf-8")


def measure_ctms(folder: Path, input_ctm: Path, tmp: Path, sclite: bool = True) -> dict:
    files = sorted(folder.glob("*.ctm"))
    out: dict = {}
    if Path(VALIDATOR).is_file():
        errors = 0
        for f in files:
            r = subprocess.run(["perl", VALIDATOR, "-i", str(f)], capture_output=True, text=True)
            errors += sum(1 for x in r.stdout.splitlines() if x.startswith("ERROR"))
        out["validator_errors"] = errors
    if sclite and shutil.which("sctk"):
        stm, hyp = tmp / "ref.stm", tmp / "hyp.ctm"
        if not stm.exists():
            _stm(input_ctm, stm)
        hyp.write_text("".join(f.read_text(encoding="utf-8") for f in files), encoding="utf-8")
        r = subprocess.run(["sctk", "sclite", "-r", str(stm), "stm", "-h", str(hyp), "ctm", "-o", "sum", "stdout"],
                           capture_output=True, text=True)
        m = re.search(r"Sum/Avg\s*\|\s*\d+\s+\d+\s*\|(?:\s*[\d.]+){4}\s+([\d.]+)", r.stdout)  # Err
        out["sclite_wer"] = float(m.group(1)) if m else None
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--restored", type=Path, help="punct restore's JSON output, a file per recording")
    p.add_argument("--measure", type=Path, help="measure this folder's srt/ vtt/ ctm*/ as they are")
    p.add_argument("--input-ctm", type=Path, required=True, help="the CTMs punct restored (the sclite reference)")
    p.add_argument("--out", type=Path, help="where to render (with --restored)")
    p.add_argument("--max-line-chars", type=int, default=42)
    p.add_argument("--max-lines", type=int, default=2)
    p.add_argument("--max-cue-seconds", type=float, default=7.0)
    p.add_argument("--no-word-times", action="store_true")
    p.add_argument("--bracketed", default="drop")
    p.add_argument("--no-sclite", action="store_true", help="leave out sclite (minutes on a glued CTM of 33 calls)")
    a = p.parse_args(argv)
    if (a.restored is None) == (a.measure is None):
        p.error("give --restored (with --out) or --measure")
    out = a.measure
    if a.restored is not None:
        if a.out is None:
            p.error("--restored needs --out")
        out = a.out
        render(a.restored, out, a)
    tmp = out / ".check"
    tmp.mkdir(parents=True, exist_ok=True)
    result: dict = {"input_ctm": measure_ctms(a.input_ctm, a.input_ctm, tmp, not a.no_sclite)}
    for kind in ("srt", "vtt"):
        if (out / kind).is_dir():
            result[kind] = measure_subtitles(out / kind, kind, a)
    for d in sorted(out.glob("ctm*")):
        result[d.name] = measure_ctms(d, a.input_ctm, tmp, not a.no_sclite)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
