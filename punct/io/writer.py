"""What ``punct restore`` writes: the punctuated utterances in any output format (plain text,
CTM, TextGrid, JSON, subtitles, a data directory), to a file, to stdout, or one file per
recording in a directory; the format is told by the option, else the file name.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence, TextIO

from punct.errors import PunctError
from punct.io.sentences import punctuated_line, spelling, split_sentences
from punct.text.words import Utterance

if TYPE_CHECKING:
    from punct.io.options import WriteOptions

log = logging.getLogger(__name__)

#: Output formats of ``write_output`` and their file name endings (matched in any case; the
#: first is that of a file per recording, ``-o DIR/``: ``per_recording_dir``).
OUTPUT_FORMATS: dict[str, tuple[str, ...]] = {
    "text": (".txt",),
    "ctm": (".ctm",),
    "textgrid": (".TextGrid",),
    "json": (".json",),
    "srt": (".srt",),
    "vtt": (".vtt",),
    "datadir": (),
}

#: output formats that time one recording a file (a TextGrid and a subtitle file go with one
#: audio file): input of several recordings must be written to a directory, one file each
ONE_RECORDING = {"textgrid": "TextGrid", "srt": "SRT file", "vtt": "WebVTT file"}


def output_format(path: str | Path | None, fmt: str | None) -> str:
    """The output format: ``fmt``, else by the file name ending, else ``text`` (stdout)."""
    if fmt is not None:
        if fmt not in OUTPUT_FORMATS:
            raise PunctError(f"unknown output format {fmt!r} (one of {', '.join(OUTPUT_FORMATS)})")
        return fmt
    if path is None:
        return "text"
    p = Path(path)
    if p.is_dir() or str(path).endswith("/"):
        return "datadir"
    name = p.name.lower()
    for f, exts in OUTPUT_FORMATS.items():
        if any(name.endswith(e.lower()) for e in exts):
            return f
    raise PunctError(f"cannot tell the output format from the file name (use --output-format: {', '.join(OUTPUT_FORMATS)})", p)


def render_text(utts: Iterable[Utterance]) -> str:
    """Plain text: one sentence a line, the words' spelling with marks; a blank line between
    utterances. Non-speech tokens after an utterance's last sentence end (a final ``<sil>``)
    stay on that sentence's line instead of making a line of their own."""
    from punct.text.words import is_nonspeech

    blocks = []
    for u in utts:
        if u.words:
            sents = split_sentences(u.words, u)
            if len(sents) > 1 and all(is_nonspeech(w) for w in sents[-1]):
                sents[-2:] = [sents[-2] + sents[-1]]
            blocks.append("\n".join(punctuated_line(s) for s in sents) + "\n")
    return "\n".join(blocks)


def write_output(utts: list[Utterance], path: str | Path | None, fmt: str, stdout: TextIO | None = None,
                 options: WriteOptions | None = None) -> None:
    """Write ``utts`` as ``fmt`` to ``path`` (atomically), or to ``stdout`` when ``path`` is None;
    ``options``: the forms of the CTM, subtitles and data directory (punct.io.options)."""
    from punct.fsutil import atomic_write
    from punct.io.options import WriteOptions

    options = options or WriteOptions()

    if path is None:
        out = stdout or sys.stdout
        if fmt == "text":
            out.write(render_text(utts))
        elif fmt == "datadir":
            raise PunctError("a data directory output needs -o DIR")
        else:  # render through a temporary file: every writer writes files
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                p = Path(tmp) / ("out" + (OUTPUT_FORMATS[fmt] or (".out",))[0])
                write_output(utts, p, fmt, options=options)
                out.write(p.read_text(encoding="utf-8"))
        out.flush()
        return
    path = Path(path)
    if fmt == "text":
        with atomic_write(path) as f:
            f.write(render_text(utts))
    elif fmt == "ctm":
        from punct.io import ctm

        ctm.write(utts, path, marks=options.ctm_marks, as_read=True)
    elif fmt == "textgrid":
        from punct.io import textgrid

        textgrid.write(utts, path, source=options.textgrid_from, overlaps=options.textgrid_overlaps)
    elif fmt == "json":
        from punct.io import wordjson

        wordjson.write(utts, path)
    elif fmt in ("srt", "vtt"):
        from punct.io import subtitles

        subtitles.write(utts, path, kind=fmt, options=options)
    elif fmt == "datadir":
        from punct.data.datadir import carry_kaldi_files, write_datadir
        from punct.fsutil import atomic_dir
        from punct.io.sentences import punctuated

        # atomic_dir replaces an earlier output of punct (its .punct-output mark) and refuses
        # any other folder that is not empty
        with atomic_dir(path) as tmp:
            write_datadir(tmp, utts, text_of=punctuated if options.datadir_text == "punctuated" else spelling)
            if options.carry_from is not None:
                carried = carry_kaldi_files(options.carry_from, tmp, utts)
                if carried:
                    log.info("carried %s from %s", " ".join(carried), options.carry_from)
    else:
        raise PunctError(f"unknown output format {fmt!r}")


def by_recording(utts: Iterable[Utterance]) -> dict[str, list[Utterance]]:
    """The utterances of each recording (an utterance's id when it has none), in input order;
    unlike ``punct.prosody.pause.recordings``, a recording's channels stay together (one file)."""
    groups: dict[str, list[Utterance]] = {}
    for u in utts:
        groups.setdefault(u.recording or u.id, []).append(u)
    return groups


#: output formats that write word times, and what to call them in an error
TIMED_OUTPUTS = {"ctm": "a CTM", "textgrid": "a TextGrid", "srt": "a subtitle file", "vtt": "a subtitle file"}
#: of those, the ones that spread an utterance's untimed words between its timed ones
#: (punct.io.sentences.estimated_times: the words of a subtitle cue read back, or the few a
#: WhisperX transcript leaves without times); they need one time in each utterance
SPREAD_TIMES = frozenset({"srt", "vtt"})


def require_times(utts: Sequence[Utterance], fmt: str, input_path: str | Path) -> None:
    """A one-line error naming ``input_path`` (before any decoding) when ``fmt`` writes word
    times and a word of ``utts`` has none (for ``SPREAD_TIMES``: when no word of an utterance
    has any time)."""
    if fmt not in TIMED_OUTPUTS:
        return
    for u in utts:
        if fmt in SPREAD_TIMES and any(w.start is not None or w.end is not None for w in u.words):
            continue
        for k, w in enumerate(u.words, 1):
            if w.start is None or w.end is None:
                lacks = "no times" if w.start is None and w.end is None else \
                    "no end time" if w.end is None else "no start time"
                raise PunctError(f"word {k} ({w.text!r}) of {u.id} has {lacks}, and {TIMED_OUTPUTS[fmt]} needs "
                                 f"word times (give timed input, or another --output-format)", input_path)


def per_recording_dir(output: str | Path | None, fmt: str, utts: list[Utterance],
                      input_path: str | Path | None = None) -> Path | None:
    """The directory to write one file per recording into, or None for one output.

    For every format but a data directory, ``output`` an existing directory or a name ending
    in ``/`` is such a directory (files named by ``OUTPUT_FORMATS``: a folder of CTMs in, a
    folder of punctuated CTMs out). For the formats of ``ONE_RECORDING``, input of several
    recordings needs one (a TextGrid or a subtitle file holding two recordings would overlay
    their times).
    """
    if not OUTPUT_FORMATS.get(fmt):
        return None
    is_dir = output is not None and (Path(output).is_dir() or str(output).endswith("/"))
    recs = list(by_recording(utts))
    if fmt in ONE_RECORDING and len(recs) > 1 and not is_dir:
        shown = ", ".join(recs[:3]) + (", ..." if len(recs) > 3 else "")
        raise PunctError(f"the input holds {len(recs)} recordings ({shown}), and one {ONE_RECORDING[fmt]} times "
                         f"one recording: give -o DIR/ to write a file per recording",
                         input_path if output is None else output)
    if not is_dir:
        return None
    for r in recs:
        if not r or r in (".", "..") or "/" in r or "\\" in r:
            raise PunctError(f"recording {r!r} cannot name a file of the output directory", input_path)
    return Path(output)


def write_per_recording(utts: list[Utterance], out_dir: Path, fmt: str, options: WriteOptions | None = None) -> list[Path]:
    """Write each recording's utterances to ``out_dir/RECORDING`` + the format's extension, in a
    folder made here or an empty one (``punct.fsutil.claim_dir``: never over someone's files)."""
    from punct.fsutil import claim_dir

    claim_dir(out_dir)
    paths = []
    for rec, group in by_recording(utts).items():
        paths.append(out_dir / f"{rec}{OUTPUT_FORMATS[fmt][0]}")
        write_output(group, paths[-1], fmt, options=options)
    return paths
