"""Punctuate ASR output (CTM, TextGrid, JSON, subtitles, text or a data directory) with a trained model.

    punct restore talk.ctm -o talk.punct.ctm
    punct restore --model exp/iwslt2011/tbrnn_all/best.pt talk.TextGrid -o talk.srt
    punct restore vosk.json                      # punctuated text on stdout
    recognizer ... | punct restore - -o out.ctm  # INPUT - : read from standard input

Input formats: ctm, textgrid, json (punct, Vosk, Whisper), srt, vtt, text, datadir
(a Kaldi data directory: its ctm with segments, else text and word_times), and any
other registered format; by extension or content unless --input-format (words that
look like no other format are plain text).
Output formats: text, ctm, textgrid, json, srt, vtt, datadir; by the extension of
-o unless --output-format; without -o the output goes to stdout; -o DIR/ with
--output-format (other than datadir) writes DIR/RECORDING.ctm (.json, ...) per
recording. Words keep their times; each gets the predicted mark (the input's marks
are replaced), and lower-case words their true case from a model with a case head, as
the default has (--no-case keeps the input's spelling; with --capitalize, sentence case). Forms: a CTM carries the marks on ';;' comment lines
(--ctm-marks); subtitles keep to 42 characters a line, 2 lines and 7 s a cue and
leave out <unk> and other bracketed tokens (--max-line-chars, --max-lines,
--max-cue-seconds, --bracketed, --no-word-times); a data directory keeps the
words' spelling in 'text' (--datadir-text), the marks in 'labels', and the input
directory's wav.scp, segments, reco2file_and_channel and other Kaldi files.
Without --model, models/default.pt of the repository is used.
"""
from __future__ import annotations

import argparse
import logging
import sys

from punct.bin.common import (MAX_BATCH, MAX_THREADS, MAX_WINDOW, ArgumentParser, add_common, at_least, finite_float,
                               require_inputs, run)
from punct.errors import PunctError
from punct.text.labels import MARK_LABELS

_OUTPUT_FORMATS = ("text", "ctm", "textgrid", "json", "srt", "vtt", "datadir")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct restore", description=__doc__.splitlines()[0],
                                epilog="\n".join(__doc__.splitlines()[1:]), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="INPUT", help="ASR output: a file or a data directory; - reads standard input "
                                                  "(its format told by its content unless --input-format)")
    p.add_argument("-o", "--output", default=None,
                   help="output file; a directory for datadir; with another --output-format, DIR/ (or an "
                        "existing directory) for a file per recording, which a TextGrid, SRT or WebVTT output of "
                        "several recordings needs; - or none: stdout")
    p.add_argument("--model", default=None, action="append",
                   help="model file (best.pt), or a shipped model by name: default, accurate (models/accurate/, "
                        "the MPNet tier); default: models/default.pt. Given more than once, the models restore "
                        "as an ensemble: each word takes the label of the mean of their posteriors")
    p.add_argument("--weights", type=finite_float(), nargs="+", default=None,
                   help="with several --model: one positive weight per model for the mean (default: equal)")
    p.add_argument("--weights-from", default=None, metavar="FILE",
                   help="the weights (and the bias, if tuned) in FILE, as tuned by the recipe "
                        "(exp/.../tuned_weights.json, or an ensemble's decode_stats.json); the models in the same order")
    p.add_argument("--bias", type=finite_float(-1e6, 1e6), nargs=3, default=None, metavar=MARK_LABELS,
                   help="decision bias: a number per mark added to its log posterior before the argmax "
                        "(positive: more of that mark; default 0 0 0, or the bias of --weights-from)")
    p.add_argument("--input-format", default=None,
                   help="format of INPUT (default: by extension or content; words with no other format's "
                        "signature are plain text)")
    p.add_argument("--output-format", default=None, choices=_OUTPUT_FORMATS,
                   help="format of the output (default: by the extension of -o, text on stdout)")
    w = p.add_argument_group("output forms")
    w.add_argument("--ctm-marks", default="comment", choices=("comment", "glued", "none"),
                   help="CTM: 'comment' (default) writes the words as spelled (see --no-case) and each mark on a "
                        "';; punct-mark FILE CHANNEL START MARK' line after its word, which NIST sclite and sctk's "
                        "ctmValidator.pl skip, so the CTM scores and validates as its input; 'glued' attaches the "
                        "mark to the word (quarter,), which those tools count as another word; 'none' leaves marks out")
    w.add_argument("--max-line-chars", type=at_least(1), default=42, help="subtitles: characters a line (default 42)")
    w.add_argument("--max-lines", type=at_least(1), default=2, help="subtitles: lines a cue (default 2)")
    w.add_argument("--max-cue-seconds", type=finite_float(), default=7.0, help="subtitles: seconds a cue (default 7)")
    w.add_argument("--min-cue-seconds", type=finite_float(), default=5 / 6,
                   help="subtitles: seconds a short cue stays at least, where the next cue leaves room (default 5/6, "
                        "Netflix's 20 frames; 0: as spoken)")
    w.add_argument("--no-word-times", action="store_true",
                   help="WebVTT: leave out the inline timestamp of each word (some readers, pysubs2 among them, "
                        "make an event of every timestamp)")
    w.add_argument("--bracketed", default="drop", choices=("drop", "escape"),
                   help="subtitles: recognizer tokens in brackets (<unk>, [noise]) left out (default), or shown "
                        "('escape': [unk] in SRT, &lt;unk&gt; in WebVTT)")
    w.add_argument("--datadir-text", default="spelling", choices=("spelling", "punctuated"),
                   help="data directory: 'text' holds the words as spelled (default; see --no-case), or with their "
                        "marks ('punctuated', the text lhotse and other readers of 'text' take); 'labels' beside "
                        "it either way")
    w.add_argument("--textgrid-overlaps", default="move", choices=("move", "tiers"),
                   help="TextGrid: a word that starts before the word before it ends (a CTM's jitter, overlapping "
                        "speech) is moved to follow it ('move', default; a warning gives how many and the largest "
                        "shift), or put on another words tier of its speaker, 'words 2' ... ('tiers': no time changes)")
    p.add_argument("--segments", default=None, help="Kaldi segments file: INPUT is a CTM of its utterances (times "
                                                    "relative to each segment) or of its recordings (absolute times, "
                                                    "cut into the segments); the output has the segments' utterances")
    p.add_argument("--audio", default=None, metavar="FILE",
                   help="the input's audio, for a model that reads pitch and energy: one audio file (an input of one "
                        "recording) or a wav.scp-style table '<recording> <file or command |>' (times are the "
                        "recordings', as a CTM's); a data directory input uses its own wav.scp")
    p.add_argument("--speaker-breaks", action="store_true",
                   help="a change of speaker within an utterance ends the sentence (and splits the decoding stream)")
    p.add_argument("--capitalize", action="store_true",
                   help="sentence case for lower-case input, with a model without a case head (or with "
                        "--no-case; a case head's true case has it already): a capital letter to begin each sentence "
                        "and for the pronoun i (words spelled "
                        "with any capital stay as written; an input with no lower-case letter at all, as upper-case "
                        "recognizers write, is lower-cased first)")
    p.add_argument("--no-case", dest="case", action="store_false",
                   help="with a model that has a case head, keep the input's spelling (or sentence case with "
                        "--capitalize) instead of true case: by default such a model spells each lower-case word "
                        "as it predicts (Capitalized, ALL CAPS, or a mixed spelling seen in training: iPhone), "
                        "with a capital to begin each sentence and for I")
    p.add_argument("--no-end-sentence", dest="end_sentence", action="store_false",
                   help="do not end the input with a sentence: by default the last word of each input (a text, "
                        "a JSON transcript, each recording of a CTM, each speaker of a TextGrid) takes a period "
                        "or a question mark, whichever the model favours there")
    p.add_argument("--window", type=at_least(2, MAX_WINDOW), default=None, help="words per decoding window (default: the model's training slice)")
    p.add_argument("--batch-size", type=at_least(1, MAX_BATCH), default=None, help="windows per batch (several streams)")
    p.add_argument("--threads", type=at_least(1, MAX_THREADS), default=1,
                   help="threads of the model's runtime (default 1)")
    p.add_argument("--workers", type=at_least(1, MAX_THREADS), default=None,
                   help="decoding threads, each running a part of the input (a long recording is cut into "
                        "segments with context on each side); default: the usable cores over --threads, at most "
                        "4; 1: each recording decoded in one pass of windows that follow sentence ends")
    p.add_argument("--runtime", choices=("auto", "onnx", "onnx-int8", "torch", "torch-bf16"), default=None,
                   help="what runs the model: ONNX Runtime (the graph exported once and cached in "
                        "$PUNCT_CACHE/onnx, default ~/.cache/punct), its int8 quantization, torch, or torch with "
                        "bfloat16 matrix products (torch-bf16: about twice as fast for the accurate tier on a CPU "
                        "with native bfloat16, not exactly the same labels); default "
                        "$PUNCT_RUNTIME, else auto: onnx when onnxruntime is installed and the model exports")
    from punct.live import add_live_options

    add_live_options(p)
    add_common(p)
    return p


STDIN_NAME = "<stdin>"


def _main(args: argparse.Namespace) -> int:
    from punct.fsutil import check_not_input, is_stream

    if args.output == "-":  # as the input's -: standard output, not a file named -
        args.output = None
    if args.live:
        from punct.live import main_live

        return main_live(args, _write_options(args))
    if args.input == "-":
        return _main_spooled(args, sys.stdin.buffer, STDIN_NAME)
    # the input itself is checked once, where punct.io reads it (punct.io.read_input, before any model loads)
    if is_stream(args.input):  # <(...) or a named pipe: read once into a file the readers may open twice
        with open(args.input, "rb") as f:
            return _main_spooled(args, f, args.input)
    require_inputs([args.segments], "segments file")
    require_inputs([args.audio], "audio file")
    if args.model is not None:  # a shipped model's name (--model accurate) is checked when it is resolved
        from punct.engine.restorer import is_named_model

        require_inputs([m for m in args.model if not is_named_model(m)], "model file")
    check_not_input(args.output, [args.input, args.segments, args.audio, args.weights_from, *(args.model or [])])
    n_models = len(args.model) if args.model else 1
    if n_models > 1 and args.window:
        raise PunctError("--window applies to one model; an ensemble's members use their own training windows")
    if args.weights_from is not None:
        if args.weights is not None:
            raise PunctError("give --weights or --weights-from, not both")
        require_inputs([args.weights_from], "weights file")
        from punct.engine.decode import read_weights_file

        tuned = read_weights_file(args.weights_from)
        args.weights = [float(x) for x in tuned["weights"]]
        if args.bias is None and "bias" in tuned:
            args.bias = tuned["bias"]
    if args.weights is not None:  # count and values, before any model loads
        from punct.engine.infer import ensemble_weights

        ensemble_weights(args.weights, n_models, source=args.weights_from,
                         what="" if args.weights_from else "--weights")
    if args.bias is not None:
        from punct.engine.infer import class_bias

        class_bias(args.bias, what="--bias")
    from punct.engine.restorer import resolve_model
    from punct.io.writer import output_format
    from punct.restore import restore_file

    output_format(args.output, args.output_format)  # fail on a bad output name before loading anything
    write_options = _write_options(args)
    for m in args.model or [None]:
        resolve_model(m)
    restore_file(args.input, args.output, model=args.model, input_format=args.input_format,
                 output_format_name=args.output_format, speaker_breaks=args.speaker_breaks, window=args.window,
                 batch_size=args.batch_size, segments=args.segments, weights=args.weights, bias=args.bias,
                 capitalize_words=args.capitalize, end_sentence=args.end_sentence, case=args.case,
                 write_options=write_options, runtime=args.runtime, threads=args.threads,
                 workers=args.workers, audio=args.audio)
    return 0


def _write_options(args: argparse.Namespace):
    """The output forms of the options; a data directory input is the one whose Kaldi files
    (wav.scp, segments, ...) a data directory output carries."""
    from pathlib import Path

    from punct.io.options import WriteOptions

    if not args.max_cue_seconds > 0:
        raise PunctError(f"--max-cue-seconds must be positive, not {args.max_cue_seconds}")
    if not 0 <= args.min_cue_seconds <= args.max_cue_seconds:
        raise PunctError(f"--min-cue-seconds must be between 0 and --max-cue-seconds, not {args.min_cue_seconds}")
    src = Path(args.input)
    return WriteOptions(ctm_marks=args.ctm_marks, max_line_chars=args.max_line_chars, max_lines=args.max_lines,
                        max_cue_seconds=args.max_cue_seconds, min_cue_seconds=args.min_cue_seconds,
                        word_times=not args.no_word_times,
                        bracketed=args.bracketed, datadir_text=args.datadir_text,
                        textgrid_overlaps=args.textgrid_overlaps,
                        carry_from=src if src.is_dir() and ((src / "text").is_file() or (src / "ctm").is_file()) else None,
                        textgrid_from=src if src.is_file() and src.suffix.lower() == ".textgrid" else None)


def _main_spooled(args: argparse.Namespace, source, name: str) -> int:
    """INPUT ``-`` or a pipe: what ``source`` gives, kept in a temporary file (the readers take
    files and tell a format by content); errors about it name ``name`` and its line."""
    import shutil
    import tempfile
    from pathlib import Path

    if args.segments is not None:
        require_inputs([args.segments], "segments file")
    with tempfile.TemporaryDirectory(prefix="punct-restore-") as d:
        tmp = Path(d) / "stdin"
        with open(tmp, "wb") as f:
            shutil.copyfileobj(source, f)
        args.input = str(tmp)
        rename = _Rename(str(tmp), name)
        handlers = logging.getLogger().handlers
        for h in handlers:
            h.addFilter(rename)
        try:
            return _main(args)
        except PunctError as e:
            if e.path != str(tmp):
                raise
            raise PunctError(e.message, name, e.line) from None
        finally:
            for h in handlers:
                h.removeFilter(rename)


class _Rename(logging.Filter):
    """Writes ``new`` for ``old`` in every log message (the temporary copy of stdin is
    ``<stdin>`` to the user)."""

    def __init__(self, old: str, new: str):
        super().__init__()
        self.old, self.new = old, new

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.old in message:
            record.msg, record.args = message.replace(self.old, self.new), None
        return True


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(_main, args, prog="punct restore")


if __name__ == "__main__":
    sys.exit(main())
