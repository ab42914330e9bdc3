"""``punct restore --live`` (its options are punct.bin.restore's): a filter that punctuates a growing input (standard input or a FIFO)
and writes each word's mark as soon as it is decided (punct.engine.live), in the forms of
punct.io.live.

    recognizer | punct restore --live -                 # punctuated text, a sentence a line
    mkfifo words; punct restore --live words -o out.srt --lookahead 10

A word's mark is final when ``--lookahead`` words have followed it, when a pause of more than
``--flush-after`` seconds follows it (in the word times, or no input for that long), or when
the input ends. EOF, SIGINT and SIGTERM decide and write everything pending.
"""
from __future__ import annotations

import argparse
import codecs
import logging
import os
import select
import signal
import sys
import time
from collections import deque

from punct.engine.live import DEFAULT_CONTEXT, DEFAULT_FLUSH_AFTER, DEFAULT_LOOKAHEAD
from punct.errors import PunctError

log = logging.getLogger(__name__)


def add_live_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("live (--live)")
    g.add_argument("--live", action="store_true",
                   help="read INPUT (- or a FIFO) as it grows and write each mark as soon as it is decided: Vosk "
                        "results (JSON lines), CTM lines or plain words (--input-format vosk, ctm or words; default "
                        "by the first line); output text, json (JSON lines), ctm, srt or vtt")
    from punct.bin.common import at_least, finite_float

    g.add_argument("--lookahead", type=at_least(0, 1000), default=DEFAULT_LOOKAHEAD,
                   help=f"--live: words that follow a word before its mark is final (default {DEFAULT_LOOKAHEAD}; "
                        "0: decided as it arrives)")
    g.add_argument("--flush-after", type=finite_float(0, 1e6), default=DEFAULT_FLUSH_AFTER,
                   help=f"--live: seconds of pause in the word times, or of no input, after which the words so far "
                        f"are decided (default {DEFAULT_FLUSH_AFTER:g}; 0: only --lookahead and the end decide)")
    g.add_argument("--context-sentences", type=at_least(0, 100), default=DEFAULT_CONTEXT,
                   help=f"--live: decided sentences the model reads before the open one (default {DEFAULT_CONTEXT}: "
                        "closer to offline F1 than 0, for about twice the compute)")


class _Stop(Exception):
    """SIGINT or SIGTERM while the filter runs: its number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def main_live(args: argparse.Namespace, opts) -> int:
    """The filter (module docstring) for the parsed ``punct restore`` arguments and the output
    forms they give (punct.io.options.WriteOptions)."""
    from punct.io.live import KIND_ALIASES, LIVE_OUTPUTS, LineReader, LiveWriter

    if args.model and len(args.model) > 1 or args.weights or args.weights_from or args.bias:
        raise PunctError("--live runs one model (no ensemble, --weights or --bias)")
    if args.segments:
        raise PunctError("--live reads words with their recordings' times: --segments does not apply")
    fmt = args.output_format or _format_of(args.output)
    if fmt not in LIVE_OUTPUTS:
        raise PunctError(f"--live writes {', '.join(LIVE_OUTPUTS)}, not {fmt}")
    kind = None
    if args.input_format is not None:
        kind = KIND_ALIASES.get(args.input_format)
        if kind is None:
            raise PunctError(f"--live reads vosk, ctm or words (plain text), not --input-format {args.input_format}")
    name = "<stdin>" if args.input == "-" else args.input
    if args.input != "-":
        from punct.bin.common import require_inputs

        require_inputs([args.input], "input")
    if args.output is not None:
        from punct.fsutil import check_not_input

        check_not_input(args.output, [args.input, *(args.model or [])])
    from punct.engine.restorer import Restorer, resolve_model

    restorer = Restorer.load(resolve_model(args.model[0] if args.model else None), window=args.window,
                             runtime=args.runtime, threads=args.threads, workers=1)
    if restorer.inputs is not None and list(restorer.inputs.feature_sets) != ["pause"]:
        raise PunctError(f"--live gives a model the pauses of the words' times only; this one reads feature sets "
                         f"{list(restorer.inputs.feature_sets)} (pitch and energy need the audio: restore the whole "
                         "input with --audio instead)")
    out = sys.stdout if args.output is None else open(args.output, "w", encoding="utf-8")
    writer = LiveWriter(out, fmt, limits=opts.cue_limits, word_times=opts.word_times, bracketed=opts.bracketed,
                        ctm_marks=opts.ctm_marks, flush_after=args.flush_after or None)
    reader = LineReader(kind, name)
    try:
        return _loop(args, restorer, reader, writer, name)
    finally:
        if out is not sys.stdout:
            out.close()


def _format_of(output: str | None) -> str:
    if output is None:
        return "text"
    from pathlib import Path

    return {".txt": "text", ".json": "json", ".jsonl": "json", ".ctm": "ctm", ".srt": "srt",
            ".vtt": "vtt"}.get(Path(output).suffix.lower(), "text")


class _Session:
    """The streams of one live run: the open recording's LiveStream and what it decided."""

    def __init__(self, args, restorer, writer):
        self.args, self.restorer, self.writer = args, restorer, writer
        self.stream = None
        self.key: object = ()
        self.words = 0
        self.recordings = 0
        self.delays: list[int] = []
        self.compute = 0.0
        self.arrivals: deque[float] = deque()  # wall time each pushed word came, in order
        self.waits: list[float] = []  # wall seconds from a word's arrival to its mark written

    def _new(self, key) -> None:
        from punct.engine.live import LiveStream

        self.end()
        self.stream = LiveStream(self.restorer, self.args.lookahead, self.args.flush_after or None,
                                 case=self.args.case, capitalize=self.args.capitalize,
                                 end_sentence=self.args.end_sentence, name=f"live{self.recordings}",
                                 context=self.args.context_sentences)
        self.key = key
        self.recordings += 1

    def push(self, chunk) -> None:
        if self.stream is None or chunk.key != self.key:
            self._new(chunk.key)
        self.stream.push(chunk.words)
        self.words += len(chunk.words)
        now = time.monotonic()
        self.arrivals.extend(now for _ in chunk.words)

    def decide(self) -> None:
        if self.stream is None:
            return
        t0 = time.process_time()
        words = self.stream.step()
        self.compute += time.process_time() - t0
        self.writer.write(words, self.key)
        now = time.monotonic()
        self.waits += [now - self.arrivals.popleft() for _ in words]

    def pause(self) -> None:
        if self.pending:
            self.stream.pause()
            self.decide()
            self.writer.pause(self.key)

    def end(self) -> None:
        if self.stream is None:
            return
        self.stream.close()
        self.decide()
        self.delays += self.stream.delays
        self.writer.end(self.key)
        self.stream = None

    @property
    def pending(self) -> bool:
        return self.stream is not None and self.stream.pending


def _loop(args, restorer, reader, writer, name: str) -> int:
    session = _Session(args, restorer, writer)
    fd = 0 if args.input == "-" else os.open(args.input, os.O_RDONLY)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buf, lineno, status = "", 0, 0

    def stop(signum, frame):
        raise _Stop(signum)

    # both flush, even where SIGINT came in ignored (a job started in the background)
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)} if _main_thread() else {}
    try:
        while True:
            timeout = args.flush_after if args.flush_after and session.pending else None
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:  # no input for --flush-after seconds: a pause
                session.pause()
                continue
            data = os.read(fd, 1 << 16)
            text = decoder.decode(data, final=not data)
            if "\ufffd" in text:
                log.warning("%s: bytes that are not UTF-8 near line %d replaced", name, lineno + 1)
            buf += text
            *lines, buf = buf.split("\n")
            if not data and buf:
                lines.append(buf)
                buf = ""
            for line in lines:
                lineno += 1
                for chunk in reader.feed(line.rstrip("\r"), lineno):
                    session.push(chunk)
            session.decide()
            if not data:
                break
    except KeyboardInterrupt:
        status = 130
    except _Stop as e:
        status = 128 + e.signum
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if fd != 0:
            os.close(fd)
    for line in [buf] if buf.strip() else []:  # a last line without its newline, at a signal
        lineno += 1
        for chunk in reader.feed(line, lineno):
            session.push(chunk)
    for chunk in reader.end():
        session.push(chunk)
    session.end()
    writer.close()
    d, waits = session.delays, sorted(session.waits)
    log.info("live: %d words of %d recording(s)%s; each mark written %.1f words after its word on average, "
             "%.2f s after the word came (95%%: %.2f s); %.2f ms of compute a word%s", session.words,
             session.recordings, f", {reader.warnings} bad line(s)" if reader.warnings else "",
             sum(d) / len(d) if d else 0.0, sum(waits) / len(waits) if waits else 0.0,
             waits[int(0.95 * (len(waits) - 1))] if waits else 0.0, 1000 * session.compute / max(session.words, 1),
             {130: " (stopped by SIGINT)", 143: " (stopped by SIGTERM)"}.get(status, ""))
    return status


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()

