"""``punct restore``: read real ASR output (a CTM, TextGrid, JSON, subtitles, text or a data
directory: punct.io.read_input), punctuate it (punct.engine.restorer, one model or an ensemble,
through the one inference path punct.engine.infer), spell it in true or sentence case
(punct.text.casing) and write it in any format (punct.io.writer). This module joins those steps;
the command line is punct.bin.restore.
Each name is imported from the module it lives in (``punct.engine.restorer.Restorer``,
``punct.io.read_input``, ``punct.io.writer.write_output``); this one holds
``restore_file`` alone.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TextIO

from punct.text.casing import capitalize
from punct.engine.restorer import EnsembleRestorer, Restorer, resolve_model, stream_words
from punct.engine.word_features import FeatureSource
from punct.io import read_input
from punct.io.writer import output_format, per_recording_dir, require_times, write_output, write_per_recording
from punct.text.words import Utterance

if TYPE_CHECKING:
    from punct.io.options import WriteOptions

log = logging.getLogger(__name__)


def restore_file(input_path: str | Path, output: str | Path | None = None,
                 model: str | Path | Sequence[str | Path] | None = None,
                 input_format: str | None = None, output_format_name: str | None = None, speaker_breaks: bool = False,
                 window: int | None = None, batch_size: int | None = None, segments: str | Path | None = None,
                 stdout: TextIO | None = None, weights: Sequence[float] | None = None,
                 bias=None, capitalize_words: bool = False, end_sentence: bool = True,
                 case: bool = True, write_options: WriteOptions | None = None, runtime: str | None = None,
                 threads: int = 1, workers: int | None = None, audio: str | Path | None = None) -> list[Utterance]:
    """Read ``input_path``, punctuate it with ``model`` (default model when None; a list of
    several model files restores with their ensemble, ``weights`` for its mean), with the
    decision ``bias`` if given, the last word of each input ending a sentence if ``end_sentence``
    (``input_ends``), write ``output`` (stdout when None) in the forms of ``write_options``;
    returns the punctuated utterances. ``runtime``, ``threads``: what runs the model
    (punct.engine.runtime); ``workers``: decoding threads (punct.engine.restorer.Restorer.load).
    Spelling: in true case (``true_case``) if ``case`` and the model has a case head, else in
    sentence case if ``capitalize_words`` (``capitalize``), else as the input spelled it.
    Features (a model that reads pitch and energy): a data directory's own (its stage-4 files,
    else computed from its ``wav.scp``), or computed from ``audio`` (punct.engine.word_features)."""
    fmt_out = output_format(output, output_format_name)
    models = list(model) if isinstance(model, (list, tuple)) else [model]
    paths = [resolve_model(m) for m in models]  # a missing model fails before the input is read
    utts = read_input(input_path, input_format, segments=segments)
    require_times(utts, fmt_out, input_path)
    # a word is timed with both its times (Word.duration), as the pause features count it
    if len(models) == 1 and audio is None and not any(w.duration is not None for u in utts for w in u.words):
        paths = [resolve_model(models[0], timed=False)]  # a shipped pause stage's words-only model (NAMED_MODELS)
    out_dir = per_recording_dir(output, fmt_out, utts, input_path)
    log.info("read %d words in %d utterances from %s", sum(len(u) for u in utts), len(utts), input_path)
    if len(paths) > 1 or weights is not None or bias is not None:
        restorer = EnsembleRestorer.load(paths, weights, window=window, batch_size=batch_size, bias=bias,
                                         runtime=runtime, threads=threads, workers=workers)
    else:
        restorer = Restorer.load(paths[0], window=window, batch_size=batch_size, runtime=runtime, threads=threads,
                                 workers=workers)
    use_case = case and restorer.has_case
    if capitalize_words and use_case:  # a fallback for models without a case head (scripts run several)
        log.info("--capitalize: the model's case head gives true case, sentence starts included (--no-case "
                 "--capitalize for sentence case alone)")
    source = FeatureSource(data_dir=input_path if Path(input_path).is_dir() else None, audio=audio)
    hyp = restorer.restore(utts, speaker_breaks=speaker_breaks, progress=True, copy=False, end_sentence=end_sentence,
                           case=use_case, features=source)
    if capitalize_words and not use_case:
        log.info("sentence case: %d words spelled anew", capitalize(stream_words(hyp, speaker_breaks)))
    if out_dir is not None:
        paths = write_per_recording(hyp, out_dir, fmt_out, write_options)
        log.info("wrote %d %s file(s) in %s, one per recording", len(paths), fmt_out, out_dir)
        return hyp
    write_output(hyp, output, fmt_out, stdout=stdout, options=write_options)
    if output is not None:
        log.info("wrote %s (%s)", output, fmt_out)
    return hyp
