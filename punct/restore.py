"""Punctuate real ASR output: read a CTM, TextGrid, JSON, subtitles, text or data
directory, put marks after its words with a trained model, write any output format.

The words go to the model as it was trained (lower case, IWSLT tokenization:
``don't`` is ``do n't`` unless the model knows ``don't``; ``<unk>``, a spoken word
the recognizer did not know, is an unknown word); the mark predicted after a word's
last token is the word's label; the output writes the input's own spelling with the
mark (``GOOD,``). Tokens of non-speech events (``is_nonspeech``: Kaldi's ``[noise]``,
``[laughter]``, ``<sil>``, ``<spoken_noise>`` ...) stay in the output with their
times and no mark; the model does not read them, and the pause around them is the
pause between the words on either side.

Streams. Each stream is decoded on its own: an utterance, or consecutive
utterances of one recording, channel and speaker (Kaldi segments of one talk).
Speakers are never mixed in one stream when they are separate utterances
(TextGrid tiers, segments); with ``speaker_breaks`` a change of speaker between
words of one utterance (diarized JSON) also splits the stream and ends the
turn's last sentence.

Pauses. A model that reads pause features (TA-BRNN-p, T-LSTM-p, the Pause model;
punct.engine.inputs.FeatureInputs with ``features: [pause]``) gets them computed
from the input's word times here (punct.prosody.pause, utterances of one
recording chained), so it runs on a CTM as it does on a data directory. A word
that the model splits into tokens (``don't`` -> ``do n't``) gives its pause
before to its first token and its pause after to its last (the tokens inside a
word have no pause between them). Words without times (plain text, or a JSON
word without timestamps) are flagged missing: the model falls back to the
words alone for them. A model that needs audio features (pitch, energy) cannot
run here: restore has no audio.

Capitals. ``capitalize`` (``punct restore --capitalize``) gives the restored text
sentence case where the recognizer wrote none: the first word of each stream and
every word after a period or question mark begins with a capital, as does the
pronoun ``i`` (``i'm``, ``i've`` ...). Only words spelled all in lower case change
(``iPhone``, ``GOOD``, ``McDonald`` keep the input's spelling), and only their
spelling: what the models and scorers read (``Word.text``) and the times stay.
An input with no lower-case letter at all (the upper-case output of recognizers
trained on LibriSpeech, as Kaldi's in Earnings-21) is first written in lower case,
then given sentence case: its capitals say nothing of where sentences start.

True case. A model with a case head (punct.models.transformer, ``case_head``)
predicts each word's case class (punct.labels.CASES) at the word's first token;
``true_case`` spells the words so (MIXED takes the spelling of the checkpoint's
``mixed_spellings``, seen in training, else a capital first letter), then gives
sentence starts and the pronoun ``I`` their capital, under the same rules as
``capitalize`` (lower-case words only; an all-caps input lower-cased first). It is
what restore does by default with such a model; ``case=False`` turns it off.

Ends of input. The last word of each input (``input_ends``: a text file, a JSON
transcript, a CTM recording, each speaker's tier of a TextGrid) ends a sentence:
it takes PERIOD or QUESTION, whichever the model's posteriors there favour, as
the end of an input is the end of what was said. Long pauses and speaker changes
inside the input are left to the model (and to ``speaker_breaks``).

Memory. Streams are decoded incrementally (``iter_decode``): at most
``window + 1`` token ids of a stream are held at a time, and each window starts
after the last predicted sentence end of the one before, exactly as
punct.engine.decode.predict_streams does on a whole stream; so the labels do
not depend on how the input is fed, and memory for decoding does not grow with
the input (the words themselves are held, about 0.5 KB each).
"""
from __future__ import annotations

import dataclasses
import logging
import sys
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence, TextIO

from punct.errors import PunctError
from punct.fsutil import iter_lines
from punct.io.sentences import (attach_marks_only, punctuated_line, speaker_of, spelling, split_sentences,
                                warn_marks_only, word_from_token)
from punct.labels import CAP, CASES, LABELS, LOWER, MIXED, PERIOD, SENTENCE_END, apply_case
from punct.words import Utterance, Word, is_nonspeech

if TYPE_CHECKING:
    import numpy as np

    from punct.io.options import WriteOptions

log = logging.getLogger(__name__)

#: The model used without --model (trained and shipped by the project; see README): in the
#: repository a link to models/default.pt, in an installed package the file itself.
DEFAULT_MODEL = Path(__file__).resolve().parent / "assets" / "default.pt"

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

_CACHE_SIZE = 1 << 16


def resolve_model(path: str | Path | None) -> Path:
    """``path``, or the default model; a PunctError says how to get one when it is missing."""
    if path is not None:
        from punct.fsutil import check_input

        p = Path(path)
        check_input(p, "model file", "file", empty_ok=False)
        return p
    if not DEFAULT_MODEL.is_file():
        raise PunctError("no --model given and the default model is missing: pass --model M.pt (a best.pt of "
                         "./run.sh, e.g. exp/iwslt2011/tbrnn_all/best.pt) or copy one to models/default.pt", DEFAULT_MODEL)
    return DEFAULT_MODEL


# ----------------------------------------------------------------------------- reading

def read_plain_text(path: str | Path) -> list[Utterance]:
    """A plain-text transcript as one utterance: every white-space token is a word
    (its spelling kept; marks already attached become labels, which restoring replaces)."""
    path = Path(path)
    words: list[Word] = []
    marks_only: list[int] = []
    for lineno, line in iter_lines(path):
        n = len(words)
        for tok in line.split():
            w = word_from_token(tok)
            if w is None:
                attach_marks_only(words, tok)
            else:
                words.append(w)
        if len(words) == n and line.strip():
            marks_only.append(lineno)
    warn_marks_only(path, marks_only)
    if not words:
        raise PunctError("no words (empty input)", path)
    return [Utterance(id=path.stem, words=words)]


def read_input(path: str | Path, fmt: str | None = None, segments: str | Path | None = None) -> list[Utterance]:
    """Utterances of ``path`` (format ``fmt``, detected when None).

    A data directory with a ``ctm`` is read as that CTM (with its ``segments`` and
    ``utt2spk``); otherwise as ``text`` (+ ``word_times``). Text files are read by
    ``read_plain_text``. ``segments``: a Kaldi segments file for a CTM of its utterances (or of its
    recordings, cut into the segments: ``ctm.read_with_segments``).
    """
    from punct.io import detect_format, read_any
    from punct.io import ctm

    from punct.fsutil import check_input

    path = Path(path)
    check_input(path, "input")
    if fmt is None:
        # what restore is given without a mark or signature is unpunctuated text
        fmt = detect_format(path, "--input-format", fallback="text")
    if segments is not None and fmt != "ctm":
        raise PunctError(f"a segments file goes with a CTM input, not {fmt}", path)
    if fmt == "datadir":
        if not path.is_dir():
            raise PunctError("not a data directory", path)
        if (path / "ctm").is_file():
            utts = ctm.read_datadir(path)
        else:
            utts = _in_recordings(read_any(path, "datadir"), path / "segments")
    elif fmt == "ctm":
        utts = ctm.read(path) if segments is None else ctm.read_with_segments(path, segments)
    elif fmt == "text":
        utts = read_plain_text(path)
    else:
        utts = read_any(path, fmt)
    if not any(u.words for u in utts):
        raise PunctError("no words in the input", path)
    return utts


def _in_recordings(utts: list[Utterance], segments: Path) -> list[Utterance]:
    """The utterances of a data directory with their recordings, in time order, when it has
    ``segments`` (as a data directory's ``ctm`` is read), so that one speaker's consecutive
    segments are decoded as one stream (``stream_words``); unchanged without."""
    from punct.io.ctm import read_segments

    if not segments.is_file():
        return utts
    segs = read_segments(segments)
    for u in utts:
        if u.id not in segs:
            raise PunctError(f"utterance {u.id!r} of text is not in segments", segments)
    out = [dataclasses.replace(u, recording=segs[u.id].recording) for u in utts]
    out.sort(key=lambda u: (segs[u.id].recording.encode("utf-8"), segs[u.id].start, u.id.encode("utf-8")))
    return out


# ----------------------------------------------------------------------------- decoding

def iter_decode(model, sources: Sequence[Iterable], window: int, batch_size: int = 32,
                with_feats: bool = False, probs: bool = False, cases: bool = False) -> Iterator[tuple]:
    """Decode streams of token ids given as iterables; yield ``(stream index, label ids)``
    as windows are accepted, in stream order within each stream.

    Holds at most ``window + 1`` ids per stream. The labels are exactly those of
    ``predict_streams(model, [list(s) for s in sources], window)``: the same windows
    are run (each starts after the accepted part of the one before), only fed lazily.
    ``with_feats``: the sources yield ``(id, feature row)`` pairs (a model with
    per-word features, punct.engine.inputs.FeatureInputs), windowed together.
    ``probs``: yield ``(stream index, label ids, posteriors [k, len(LABELS)])`` instead.
    ``cases`` (a model with a case head): yield ``(stream index, label ids, posteriors or None,
    case class ids)``.
    """
    import numpy as np

    from punct.engine.runtime import run_windows
    from punct.engine.windows import accept_count

    if window < 2:
        raise ValueError("window must be at least 2 words")
    if batch_size < 1:  # none would ever be taken: a loop without end
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    its = [iter(s) for s in sources]
    bufs: list[list[int]] = [[] for _ in its]
    exhausted = [False] * len(its)
    active = list(range(len(its)))
    while active:
        for i in active:
            # window + 1 ids tell whether the window reaches the end of the stream
            while len(bufs[i]) <= window and not exhausted[i]:
                try:
                    bufs[i].append(next(its[i]))
                except StopIteration:
                    exhausted[i] = True
        active = [i for i in active if bufs[i]]
        if not active:
            break
        wins = [bufs[i][:window] for i in active]
        # each window is shorter than or as long as `window`: predict_streams runs it once, whole
        feats = None
        if with_feats:
            feats = [np.stack([row for _, row in w]) for w in wins]
            wins = [[t for t, _ in w] for w in wins]
        preds, post = run_windows(model, wins, batch_size, feats=feats, probs=probs, case=cases)
        still = []
        for j, (i, p) in enumerate(zip(active, preds)):
            at_end = exhausted[i] and len(bufs[i]) <= window
            k = accept_count(p, at_end)
            del bufs[i][:k]
            if cases:
                rows = post[j][:k]
                yield i, p[:k], rows[:, :len(LABELS)] if probs else None, rows[:, len(LABELS):].argmax(-1).tolist()
            else:
                yield (i, p[:k], post[j][:k]) if probs else (i, p[:k])
            if bufs[i] or not exhausted[i]:
                still.append(i)
        active = still


class Restorer:
    """A loaded model and how to feed it: ``Restorer.load(path).restore(utts)``."""

    def __init__(self, model, vocab, window: int = 200, batch_size: int = 32, mixed: dict[str, str] | None = None):
        if window < 2 or batch_size < 1:
            raise ValueError(f"window must be at least 2 words and batch_size at least 1, got {window} and {batch_size}")
        self.model = model
        self.vocab = vocab
        self.window = window
        self.batch_size = batch_size
        #: the model predicts each word's case class (a case head); ``mixed``: its spellings of MIXED
        self.has_case = bool(getattr(model, "case_head", False))
        self.mixed = dict(mixed or {})
        self.runtime = "torch"
        self._cache: dict[str, tuple[list[str], list[int]]] = {}
        inputs = getattr(model, "punct_inputs", None)
        self.inputs = inputs if getattr(inputs, "columns", None) else None  # a model with per-word features
        if self.inputs is not None and list(self.inputs.feature_sets) != ["pause"]:
            raise PunctError(f"this model reads feature sets {list(self.inputs.feature_sets)}; punct restore computes "
                             "pause features from word times only (pitch and energy need the audio: "
                             "prepare a data directory and run stage 4, then punct.bin.decode)")

    @classmethod
    def load(cls, model_path: str | Path | None = None, window: int | None = None, batch_size: int | None = None,
             runtime: str | None = None, threads: int = 1) -> "Restorer":
        """Load ``model_path`` (default: DEFAULT_MODEL); window and batch size default to its training values;
        ``runtime`` and ``threads``: punct.engine.runtime (``auto``: ONNX Runtime when it can, else torch)."""
        from punct.engine.runtime import load_for_restore

        path = resolve_model(model_path)
        model, vocab, defaults, used = load_for_restore(path, runtime, threads)
        r = cls(model, vocab, window=defaults["window"] if window is None else window,
                batch_size=defaults["batch_size"] if batch_size is None else batch_size,
                mixed=defaults.get("mixed_spellings"))
        r.runtime = used
        return r

    def model_tokens(self, w: Word) -> list[str]:
        """The model's tokens of one input word (see the module docstring)."""
        return self._encoded(w)[0]

    def _encoded(self, w: Word) -> tuple[list[str], list[int]]:
        key = w.written if w.written is not None else w.text
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        from punct.models import UNK
        from punct.textnorm import tokenize_punctuated

        t = w.text
        if (t.startswith("<") and t.endswith(">")) or (t.startswith("[") and t.endswith("]")):
            toks = [UNK]
        elif getattr(type(self.vocab), "__contains__", None) is not None and t in self.vocab:
            toks = [t]
        else:
            toks = [x.text for x in tokenize_punctuated(key)] or [t]
        hit = (toks, list(self.vocab.encode(toks)))
        if len(hit[1]) != len(toks):
            raise PunctError(f"internal error: the model's encoder gave {len(hit[1])} ids for {len(toks)} tokens")
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = hit
        return hit

    def restore(self, utts: Sequence[Utterance], speaker_breaks: bool = False, progress: bool = False,
                copy: bool = True, end_sentence: bool = True, case: bool = False) -> list[Utterance]:
        """Copies of ``utts`` whose words carry the predicted labels (see the module docstring);
        ``copy=False`` sets the labels of ``utts`` themselves (and returns them), saving memory.
        ``end_sentence``: the last word of each input ends a sentence (``input_ends``);
        ``case``: with a case head, the words are spelled in their predicted case (``true_case``)."""
        out, streams = _output_streams(utts, copy, speaker_breaks)
        ends = input_ends(out) if end_sentence else []
        probs, cases = self._run(streams, out, progress, keep={id(w) for w in ends}, cases=case and self.has_case)
        if speaker_breaks:
            end_turns(streams)
        end_inputs(ends, probs)
        if case and self.has_case:
            log.info("true case: %d words spelled anew", true_case(streams, cases, self.mixed))
        return out

    def word_posteriors(self, streams: list[list[Word]], utts: Sequence[Utterance], progress: bool = False) -> dict:
        """{id(word): posteriors [len(LABELS)] of the mark after it} for every word of ``streams``
        (``stream_words`` of ``utts``): the posteriors of the word's last token. Sets the labels too."""
        return self._run(streams, utts, progress, probs=True)[0]

    def _run(self, streams: list[list[Word]], out: Sequence[Utterance], progress: bool, probs: bool = False,
             keep: set[int] | frozenset[int] = frozenset(), cases: bool = False) -> tuple[dict, dict]:
        """Label the words of ``streams``; returns ({id(word): posteriors} of every word with
        ``probs``, else of the words in ``keep``; {id(word): case class} with ``cases``: the class
        predicted at the word's first token)."""
        pending: list[deque[tuple[Word, int]]] = [deque() for _ in streams]
        word_probs: dict = {}
        word_cases: dict = {}
        want_probs = probs or bool(keep)
        rows = self._pause_rows(out) if self.inputs is not None else None

        def source(si: int) -> Iterator:
            for w in streams[si]:
                ids = self._encoded(w)[1]
                pending[si].append((w, len(ids)))
                if rows is None:
                    yield from ids
                else:
                    yield from zip(ids, self._token_rows(rows[id(w)], len(ids)))

        n_words = sum(len(s) for s in streams)
        bar = None
        if progress and n_words > 20000 and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=n_words, unit="word", desc="restore", leave=False)
        t0 = time.monotonic()
        carry = [0] * len(streams)  # token labels of the current word still to come
        first_case = [0] * len(streams)  # case class at the current word's first token
        for item in iter_decode(self.model, [source(i) for i in range(len(streams))], self.window, self.batch_size,
                                with_feats=rows is not None, probs=want_probs, cases=cases):
            si, labels = item[0], item[1]
            case_ids = item[3] if cases else None
            q = pending[si]
            done = 0
            for j, lab in enumerate(labels):
                if carry[si] == 0:
                    carry[si] = q[0][1]
                    if case_ids is not None:
                        first_case[si] = case_ids[j]
                carry[si] -= 1
                if carry[si] == 0:
                    w, _ = q.popleft()
                    w.label = LABELS[lab]
                    if probs or id(w) in keep:
                        word_probs[id(w)] = item[2][j]
                    if cases:
                        word_cases[id(w)] = CASES[first_case[si]]
                    done += 1
            if bar is not None:
                bar.update(done)
        if bar is not None:
            bar.close()
        dt = time.monotonic() - t0
        log.info("restored %d words in %d streams in %.1f s (%.0f words/s)", n_words, len(streams), dt, n_words / max(dt, 1e-9))
        return word_probs, word_cases


    def _pause_rows(self, utts: Sequence[Utterance]) -> dict[int, tuple["np.ndarray", "np.ndarray"]]:
        """{id(word): (its full pause feature row, the model's row of it: FeatureInputs.select)} for
        every word of ``utts`` (punct.prosody.pause); selected an utterance at a time, not a word."""
        from punct.prosody.pause import PAUSE_FEATURES, pause_features

        # the words the model reads: a pause runs from word to word across non-speech tokens
        utts = [dataclasses.replace(u, words=[w for w in u.words if not is_nonspeech(w)]) for u in utts]
        feats = pause_features(utts)
        n_untimed = sum(1 for u in utts for w in u.words if w.start is None or w.end is None)
        n_words = sum(len(u) for u in utts)
        if n_untimed:  # a warning when some words have times and some not; plain text has none
            (log.warning if n_untimed < n_words else log.info)(
                "%d of %d words have no times: the model decides their marks from the words alone", n_untimed, n_words)
        out = {}
        for u in utts:
            m = feats[u.id]
            sel = self.inputs.select(m, PAUSE_FEATURES)
            out.update((id(w), (m[i], sel[i])) for i, w in enumerate(u.words))
        return out

    def _token_rows(self, rows, k: int) -> list:
        """The model's feature rows (FeatureInputs.select) of the ``k`` tokens of one word whose
        ``_pause_rows`` are ``rows``: no pause inside the word (see the module docstring)."""
        import numpy as np

        from punct.prosody.pause import PAUSE_FEATURES

        row, selected = rows
        if k == 1:
            return [selected]
        out = []
        for j in range(k):
            r = np.array(row, dtype=np.float32)
            for side, inner in (("_after", j < k - 1), ("_before", j > 0)):
                if inner:
                    for c, name in enumerate(PAUSE_FEATURES):
                        if name.endswith(side):
                            r[c] = 0.0
            out.append(self.inputs.select(r[None, :], PAUSE_FEATURES)[0])
        return out


def _output_streams(utts: Sequence[Utterance], copy: bool, speaker_breaks: bool
                    ) -> tuple[list[Utterance], list[list[Word]]]:
    """The utterances to label (copies of ``utts``, or ``utts`` themselves without ``copy``)
    and their decoding streams (``stream_words``); non-speech tokens get no mark."""
    if copy:
        out = [dataclasses.replace(u, words=[dataclasses.replace(w) for w in u.words]) for u in utts]
    else:
        out = list(utts)
    for u in out:
        for w in u.words:
            if is_nonspeech(w):
                w.label = "O"
    return out, stream_words(out, speaker_breaks)


#: the pronoun I and its contractions, as lower-case recognizers write them
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll"})


def _capital(s: str) -> str:
    return s[0].upper() + s[1:]


def all_caps(streams: list[list[Word]]) -> bool:
    """True when the words of ``streams`` have letters and none of them is lower case."""
    spelled = " ".join(spelling(w) for stream in streams for w in stream)
    return spelled != spelled.lower() and spelled == spelled.upper()


def capitalize(streams: list[list[Word]]) -> int:
    """Sentence case for the words of ``streams`` (see the module docstring): the first word
    of a stream and every word after a sentence end start with a capital letter, and so does
    the pronoun ``i``; words whose spelling has any capital are left as written, unless no
    word has a lower-case letter (``all_caps``): then every word is lower-cased first.
    Returns the number of words whose spelling changed."""
    return _respell(streams, {}, None, "sentence case")


def true_case(streams: list[list[Word]], cases: dict, mixed: dict[str, str] | None = None) -> int:
    """Spell the words of ``streams`` in the case class a case head predicted for each
    (``cases``: {id(word): class}; MIXED takes the spelling of ``mixed``, lower-case form ->
    spelling, else a capital first letter), then sentence case on top: the first word of a
    stream and every word after a sentence end begin with a capital, and the pronoun ``i``
    (``i'm`` ...) is ``I``. As ``capitalize``: only words spelled all in lower case change,
    after an all-caps input is lower-cased. Returns the number of words spelled anew."""
    return _respell(streams, cases, mixed, "true case")


def _respell(streams: list[list[Word]], cases: dict, mixed: dict[str, str] | None, what: str) -> int:
    """``true_case`` with the classes ``cases`` (none: every word LOWER, which is ``capitalize``);
    ``what`` names the casing in the log."""
    lower = all_caps(streams)
    if lower:
        log.info("%s: the input is all upper case, so it is lower-cased first", what)
    changed = 0
    for stream in streams:
        start = True
        for w in stream:
            before = spelling(w)
            s = before.lower() if lower else before
            if s == s.lower() and any(c.isalpha() for c in s):
                c = cases.get(id(w), LOWER)
                if c == MIXED:
                    s = (mixed or {}).get(s) or apply_case(s, CAP)
                elif c != LOWER:
                    s = apply_case(s, c)
                if s.lower() in _PRONOUN_I:
                    s = _capital(s.lower())
                elif start and s[:1].isalpha() and s == s.lower():
                    s = _capital(s)
            if s != before:
                w.written = s
                changed += 1
            start = w.label in SENTENCE_END
    return changed


def input_ends(utts: Sequence[Utterance]) -> list[Word]:
    """The words that end an input: the last word (not a non-speech token) of each speaker in
    each recording and channel (an utterance without a recording is one of its own): the end of
    a text file, of a JSON transcript, of a CTM recording, of each speaker's tier of a TextGrid.
    A speaker change inside an input is not an end (``--speaker-breaks`` handles those)."""
    last: dict[tuple, Word] = {}
    for u in utts:
        key = (u.recording if u.recording is not None else ("", u.id), u.channel, u.speaker)
        for w in reversed(u.words):
            if not is_nonspeech(w):
                last[key] = w
                break
    return list(last.values())


def end_inputs(ends: Sequence[Word], probs: dict, bias=None) -> None:
    """Give each word of ``ends`` (``input_ends``) the sentence end its posteriors (``probs``:
    {id(word): posteriors}) favour, PERIOD or QUESTION (punct.engine.windows.sentence_end_label):
    the end of an input is the end of what was said."""
    if not ends:
        return
    from punct.engine.windows import sentence_end_label

    for w in ends:
        p = probs.get(id(w))
        w.label = PERIOD if p is None else sentence_end_label(p, bias)


def end_turns(streams: list[list[Word]]) -> None:
    """With speaker breaks: every stream (a speaker's turn) ends a sentence."""
    for s in streams:
        if s and s[-1].label not in SENTENCE_END:
            s[-1].label = PERIOD


class EnsembleRestorer:
    """Several models restoring together: each runs as its ``Restorer`` would alone (its own
    tokens, window and pause features), and each word takes the label of the weighted mean of
    the models' posteriors for it (as ``punct.bin.decode`` with several ``--model``), shifted
    by ``bias`` (``punct.engine.decode.class_bias``). One member with a bias is a model whose
    decision is moved towards or away from the marks."""

    def __init__(self, members: Sequence[Restorer], weights: Sequence[float] | None = None, bias=None):
        from punct.engine.decode import class_bias, ensemble_weights

        self.weights = ensemble_weights(weights, len(members))
        self.bias = class_bias(bias)
        self.members = list(members)

    @classmethod
    def load(cls, model_paths: Sequence[str | Path], weights: Sequence[float] | None = None,
             window: int | None = None, batch_size: int | None = None, bias=None,
             runtime: str | None = None, threads: int = 1) -> "EnsembleRestorer":
        return cls([Restorer.load(p, window=window, batch_size=batch_size, runtime=runtime, threads=threads)
                     for p in model_paths], weights, bias)

    @property
    def has_case(self) -> bool:
        """An ensemble predicts no case (its members' case heads are not combined)."""
        return False

    def restore(self, utts: Sequence[Utterance], speaker_breaks: bool = False, progress: bool = False,
                copy: bool = True, end_sentence: bool = True, case: bool = False) -> list[Utterance]:
        """As ``Restorer.restore``, with the mean of the members' posteriors (and no case)."""
        out, streams = _output_streams(utts, copy, speaker_breaks)
        total: dict = {}
        for r, wt in zip(self.members, self.weights):
            for k, p in r.word_posteriors(streams, out, progress).items():
                total[k] = total[k] + wt * p if k in total else wt * p
        import numpy as np

        from punct.engine.decode import biased_labels

        words = [w for s in streams for w in s]
        if words:
            for w, i in zip(words, biased_labels(np.stack([total[id(w)] for w in words]), self.bias)):
                w.label = LABELS[int(i)]
        if speaker_breaks:
            end_turns(streams)
        if end_sentence:
            end_inputs(input_ends(out), total, self.bias)
        return out


def stream_words(utts: Sequence[Utterance], speaker_breaks: bool = False) -> list[list[Word]]:
    """The words of ``utts`` as decoding streams (see the module docstring), without the
    non-speech tokens (``is_nonspeech``)."""
    streams: list[list[Word]] = []
    prev_key: object = None
    prev_spk: str | None = None
    for u in utts:
        key = (u.recording, u.channel, u.speaker) if u.recording is not None else None
        if key is None or key != prev_key:
            streams.append([])
        prev_key = key
        for w in u.words:
            if is_nonspeech(w):
                continue
            spk = speaker_of(w, u)
            if speaker_breaks and streams[-1] and spk != prev_spk:
                streams.append([])
            streams[-1].append(w)
            prev_spk = spk
    return [s for s in streams if s]


# ----------------------------------------------------------------------------- writing

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
    """Plain text: one sentence a line, the input's spelling with marks; a blank line between utterances."""
    blocks = []
    for u in utts:
        if u.words:
            blocks.append("\n".join(punctuated_line(s) for s in split_sentences(u.words, u)) + "\n")
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

        ctm.write(utts, path, marks=options.ctm_marks)
    elif fmt == "textgrid":
        from punct.io import textgrid

        textgrid.write(utts, path)
    elif fmt == "json":
        from punct.io import wordjson

        wordjson.write(utts, path)
    elif fmt in ("srt", "vtt"):
        from punct.io import subtitles

        subtitles.write(utts, path, kind=fmt, options=options)
    elif fmt == "datadir":
        from punct.datadir import carry_kaldi_files, write_datadir
        from punct.fsutil import atomic_dir
        from punct.io.sentences import punctuated

        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise PunctError("output directory exists and is not empty (remove it or choose another)", path)
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


def require_times(utts: Sequence[Utterance], fmt: str, input_path: str | Path) -> None:
    """A one-line error naming ``input_path`` (before any decoding) when ``fmt`` writes word
    times and a word of ``utts`` has none."""
    if fmt not in TIMED_OUTPUTS:
        return
    for u in utts:
        for k, w in enumerate(u.words, 1):
            if w.start is None or w.end is None:
                raise PunctError(f"word {k} ({w.text!r}) of {u.id} has no times, and {TIMED_OUTPUTS[fmt]} needs "
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


def restore_file(input_path: str | Path, output: str | Path | None = None,
                 model: str | Path | Sequence[str | Path] | None = None,
                 input_format: str | None = None, output_format_name: str | None = None, speaker_breaks: bool = False,
                 window: int | None = None, batch_size: int | None = None, segments: str | Path | None = None,
                 stdout: TextIO | None = None, weights: Sequence[float] | None = None,
                 bias=None, capitalize_words: bool = False, end_sentence: bool = True,
                 case: bool = True, write_options: WriteOptions | None = None, runtime: str | None = None,
                 threads: int = 1) -> list[Utterance]:
    """Read ``input_path``, punctuate it with ``model`` (default model when None; a list of
    several model files restores with their ensemble, ``weights`` for its mean), with the
    decision ``bias`` if given, the last word of each input ending a sentence if ``end_sentence``
    (``input_ends``), write ``output`` (stdout when None) in the forms of ``write_options``;
    returns the punctuated utterances. ``runtime``, ``threads``: what runs the model
    (punct.engine.runtime).
    Spelling: in true case (``true_case``) if ``case`` and the model has a case head, else in
    sentence case if ``capitalize_words`` (``capitalize``), else as the input spelled it."""
    fmt_out = output_format(output, output_format_name)
    paths = [resolve_model(m) for m in model] if isinstance(model, (list, tuple)) else [resolve_model(model)]
    utts = read_input(input_path, input_format, segments=segments)
    require_times(utts, fmt_out, input_path)
    out_dir = per_recording_dir(output, fmt_out, utts, input_path)
    log.info("read %d words in %d utterances from %s", sum(len(u) for u in utts), len(utts), input_path)
    if len(paths) > 1 or weights is not None or bias is not None:
        restorer = EnsembleRestorer.load(paths, weights, window=window, batch_size=batch_size, bias=bias,
                                         runtime=runtime, threads=threads)
    else:
        restorer = Restorer.load(paths[0], window=window, batch_size=batch_size, runtime=runtime, threads=threads)
    use_case = case and restorer.has_case
    hyp = restorer.restore(utts, speaker_breaks=speaker_breaks, progress=True, copy=False, end_sentence=end_sentence,
                           case=use_case)
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
