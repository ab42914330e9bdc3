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
recording. Words keep their spelling and times; each gets the predicted mark (the
input's marks are replaced).
Without --model, models/default.pt of the repository is used.
"""
from __future__ import annotations

import argparse
import logging
import sys

from punct.bin.common import ArgumentParser, at_least, add_common, require_inputs, run
from punct.errors import PunctError
from punct.labels import MARK_LABELS

_OUTPUT_FORMATS = ("text", "ctm", "textgrid", "json", "srt", "vtt", "datadir")


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="punct restore", description=__doc__.splitlines()[0],
                                epilog="\n".join(__doc__.splitlines()[1:]), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="INPUT", help="ASR output: a file or a data directory; - reads standard input "
                                                  "(its format told by its content unless --input-format)")
    p.add_argument("-o", "--output", default=None,
                   help="output file; a directory for datadir; with another --output-format, DIR/ (or an "
                        "existing directory) for a file per recording, which a TextGrid, SRT or WebVTT output of "
                        "several recordings needs; default: stdout")
    p.add_argument("--model", default=None, action="append",
                   help="model file (best.pt); default: models/default.pt. Given more than once, the models restore "
                        "as an ensemble: each word takes the label of the mean of their posteriors")
    p.add_argument("--weights", type=float, nargs="+", default=None,
                   help="with several --model: one positive weight per model for the mean (default: equal)")
    p.add_argument("--weights-from", default=None, metavar="FILE",
                   help="the weights (and the bias, if tuned) in FILE, as tuned by the recipe "
                        "(exp/.../tuned_weights.json, or an ensemble's decode_stats.json); the models in the same order")
    p.add_argument("--bias", type=float, nargs=3, default=None, metavar=MARK_LABELS,
                   help="decision bias: a number per mark added to its log posterior before the argmax "
                        "(positive: more of that mark; default 0 0 0, or the bias of --weights-from)")
    p.add_argument("--input-format", default=None,
                   help="format of INPUT (default: by extension or content; words with no other format's "
                        "signature are plain text)")
    p.add_argument("--output-format", default=None, choices=_OUTPUT_FORMATS,
                   help="format of the output (default: by the extension of -o, text on stdout)")
    p.add_argument("--segments", default=None, help="Kaldi segments file: INPUT is a CTM of its utterances (times "
                                                    "relative to each segment) or of its recordings (absolute times, "
                                                    "cut into the segments); the output has the segments' utterances")
    p.add_argument("--speaker-breaks", action="store_true",
                   help="a change of speaker within an utterance ends the sentence (and splits the decoding stream)")
    p.add_argument("--capitalize", action="store_true",
                   help="sentence case for lower-case input: a capital letter to begin each sentence and "
                        "for the pronoun i (words spelled with any capital stay as written; an input with no "
                        "lower-case letter at all, as upper-case recognizers write, is lower-cased first)")
    p.add_argument("--window", type=at_least(2), default=None, help="words per decoding window (default: the model's training slice)")
    p.add_argument("--batch-size", type=at_least(1), default=None, help="windows per batch (several streams)")
    p.add_argument("--threads", type=at_least(1), default=1,
                   help="threads of the model's runtime (default 1: a stream is decoded one window at a time)")
    p.add_argument("--runtime", choices=("auto", "onnx", "onnx-int8", "torch"), default=None,
                   help="what runs the model: ONNX Runtime (the graph exported once and cached in "
                        "$PUNCT_CACHE/onnx, default ~/.cache/punct), its int8 quantization, or torch; default "
                        "$PUNCT_RUNTIME, else auto: onnx when onnxruntime is installed and the model exports")
    add_common(p)
    return p


STDIN_NAME = "<stdin>"


def _main(args: argparse.Namespace) -> int:
    if args.input == "-":
        return _main_stdin(args)
    require_inputs([args.input], "input")
    require_inputs([args.segments], "segments file")
    if args.model is not None:
        require_inputs(args.model, "model file")
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
        from punct.engine.decode import ensemble_weights

        ensemble_weights(args.weights, n_models, source=args.weights_from,
                         what="" if args.weights_from else "--weights")
    if args.bias is not None:
        from punct.engine.decode import class_bias

        class_bias(args.bias, what="--bias")
    from punct.restore import output_format, resolve_model, restore_file

    output_format(args.output, args.output_format)  # fail on a bad output name before loading anything
    for m in args.model or [None]:
        resolve_model(m)
    restore_file(args.input, args.output, model=args.model, input_format=args.input_format,
                 output_format_name=args.output_format, speaker_breaks=args.speaker_breaks, window=args.window,
                 batch_size=args.batch_size, segments=args.segments, weights=args.weights, bias=args.bias,
                 capitalize_words=args.capitalize, runtime=args.runtime, threads=args.threads)
    return 0


def _main_stdin(args: argparse.Namespace) -> int:
    """INPUT ``-``: standard input, kept in a temporary file (the readers take files and
    tell a format by content); errors about it name ``<stdin>`` and its line."""
    import shutil
    import tempfile
    from pathlib import Path

    if args.segments is not None:
        require_inputs([args.segments], "segments file")
    with tempfile.TemporaryDirectory(prefix="punct-restore-") as d:
        tmp = Path(d) / "stdin"
        with open(tmp, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f)
        args.input = str(tmp)
        rename = _Rename(str(tmp), STDIN_NAME)
        handlers = logging.getLogger().handlers
        for h in handlers:
            h.addFilter(rename)
        try:
            return _main(args)
        except PunctError as e:
            if e.path != str(tmp):
                raise
            raise PunctError(e.message, STDIN_NAME, e.line) from None
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
