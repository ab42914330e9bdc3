"""Punctuating utterances in memory (what ``punct restore`` and the Python API run): their
words as decoding streams, each word as the model's tokens and pause features, decoded through
the one inference path (punct.engine.infer), one model or an ensemble.

Tokens. The words go to the model as it was trained (lower case, apostrophes straight as in
its training text, ``don\u2019t`` read as ``don't``; IWSLT tokenization: ``don't``
is ``do n't`` unless the model knows ``don't``; ``<unk>`` or a bracketed token the recognizer
wrote is an unknown word); the mark predicted after a word's last token is the word's label,
and a case head's class at its first token is its case. The other way round, a clitic written
apart (``I 'm``, as IWSLT text is) joins the word before it when the model knows the joined
word and not the clitic (a model trained on ASR spelling): the pair is one token, whose mark
goes to the clitic and whose case goes to the first word. Non-speech tokens (``is_nonspeech``:
``[noise]``, ``<sil>`` ...) are not read and get no mark.

Streams. An utterance, or consecutive utterances of one recording, channel and speaker (Kaldi
segments of one talk); with ``speaker_breaks`` a change of speaker inside an utterance also
starts a stream, and each stream ends a sentence.

Features. A model that reads per-word features gets them from a ``FeatureSource``
(punct.engine.word_features: a data directory's stage-4 files, pitch and energy from the
audio), or, reading only pauses, from the words' times (punct.prosody.pause, utterances of
one recording chained); a word split into tokens gives its pause before to its first token
and its pause after to its last. Words without times are flagged missing.

Ends of input. The last word of each input (``input_ends``) takes PERIOD or QUESTION, whichever
its posteriors favour: the end of an input is the end of what was said. Only those words'
posteriors are computed (all words' for an ensemble, which decides from their mean).
"""
from __future__ import annotations

import dataclasses
import logging
import sys
import time
from collections import deque
from pathlib import Path
from typing import Iterator, Sequence

from punct.text.casing import decided_cases, true_case
from punct.engine.infer import (biased_labels, class_bias, default_workers, ensemble_weights, iter_decode,
                                sentence_end_label, weighted_mean)
from punct.engine.word_features import FeatureSource, given_rows, token_rows, unit_rows, word_rows
from punct.errors import PunctError
from punct.io.sentences import speaker_of
from punct.text.labels import LABELS, O, PERIOD, SENTENCE_END
from punct.text.textnorm import CLITICS
from punct.text.words import Utterance, Word, is_nonspeech

log = logging.getLogger(__name__)

#: The model used without --model (trained and shipped by the project; see README): in the
#: repository a link to models/default.pt, in an installed package the file itself.
DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "assets" / "default.pt"

_CACHE_SIZE = 1 << 16
def _joined(unit: Sequence[Word]) -> Word:
    """A word and the clitic after it as one word (``I`` + ``'m`` -> ``I'm``)."""
    return Word(text="".join(w.text for w in unit).lower(), written="".join(w.written or w.text for w in unit))


#: models the project ships, by name (``--model accurate``): in the repository links to
#: models/, in an installed package the files themselves. A tuple: the first file there is.
#: The accurate tier is its pause stage when shipped (it reads the pauses of timed input;
#: words without times take the tagger's own decisions), else the tagger alone; an input
#: without any word times gets the tagger itself (``resolve_model(..., timed=False)``).
_ASSETS = Path(__file__).resolve().parents[1] / "assets"
NAMED_MODELS: dict[str, Path | tuple[Path, ...]] = {
    "default": DEFAULT_MODEL,
    "accurate": (_ASSETS / "accurate" / "pauses.pt", _ASSETS / "accurate" / "tagger.pt")}


def is_named_model(path: str | Path) -> bool:
    """Whether ``path`` names a shipped model (NAMED_MODELS) rather than a file: a file of that
    name in the working folder is that file."""
    return str(path) in NAMED_MODELS and not Path(path).exists()


def resolve_model(path: str | Path | None, timed: bool = True) -> Path:
    """``path``, a shipped model's name (NAMED_MODELS), or the default model; a PunctError
    says how to get one when it is missing. ``timed`` False (an input without word times):
    a shipped model of several files is its last, the model of the words alone, which
    decides as its pause stage's fallback would, without running that stage."""
    if path is not None and is_named_model(path):
        named = NAMED_MODELS[str(path)]
        files = named if isinstance(named, tuple) else (named,)
        there = [p for p in files if p.is_file()]
        if not there:
            raise PunctError(f"the shipped model {path!r} is missing from this installation", files[-1])
        return there[0] if timed else there[-1]
    if path is not None:
        from punct.fsutil import check_input

        p = Path(path)
        check_input(p, "model file", "file", empty_ok=False)
        return p
    if not DEFAULT_MODEL.is_file():
        raise PunctError("no --model given and the default model is missing: pass --model M.pt (a best.pt of "
                         "./run.sh, e.g. exp/iwslt2011/tbrnn_all/best.pt) or copy one to models/default.pt", DEFAULT_MODEL)
    return DEFAULT_MODEL


class Restorer:
    """A loaded model and how to feed it: ``Restorer.load(path).restore(utts)``."""

    def __init__(self, model, vocab, window: int = 200, batch_size: int = 32, mixed: dict[str, str] | None = None,
                 workers: int | None = None, lexicon: dict[str, str] | None = None):
        if window < 2 or batch_size < 1:
            raise ValueError(f"window must be at least 2 words and batch_size at least 1, got {window} and {batch_size}")
        self.model = model
        self.vocab = vocab
        self.window = window
        self.batch_size = batch_size
        #: decoding threads (punct.engine.infer.iter_decode; 1: one segment per stream, exactly sequential)
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        #: the model predicts each word's case class (a case head); ``mixed``: its spellings of MIXED;
        #: ``lexicon``: the classes of the words its training text spells one way (punct.text.casing.decided_cases)
        self.has_case = bool(getattr(model, "case_head", False))
        #: the decision bias of the model file (punct.bin.set_bias; None: the plain argmax)
        self.bias = getattr(model, "punct_decision_bias", None)
        self.mixed = dict(mixed or {})
        self.lexicon = dict(lexicon or {})
        self.runtime = "torch"
        self._cache: dict[str, tuple[list[str], list[int]]] = {}
        self._joins: set[str] | None = None  # the clitics to join to the word before (_units)
        inputs = getattr(model, "punct_inputs", None)
        self.inputs = inputs if getattr(inputs, "columns", None) else None  # a model with per-word features

    @classmethod
    def load(cls, model_path: str | Path | None = None, window: int | None = None, batch_size: int | None = None,
             runtime: str | None = None, threads: int = 1, workers: int | None = None) -> "Restorer":
        """Load ``model_path`` (default: DEFAULT_MODEL); window and batch size default to its training values;
        ``runtime`` and ``threads``: punct.engine.runtime (``auto``: ONNX Runtime when it can, else torch);
        ``workers``: decoding threads (default: the cores over ``threads``; 1: sequential windows)."""
        from punct.engine.runtime import load_for_restore

        path = resolve_model(model_path)
        model, vocab, defaults, used = load_for_restore(path, runtime, threads)
        r = cls(model, vocab, window=defaults["window"] if window is None else window,
                batch_size=defaults["batch_size"] if batch_size is None else batch_size,
                mixed=defaults.get("mixed_spellings"), workers=default_workers(threads) if workers is None else workers,
                lexicon=defaults.get("case_lexicon"))
        r.runtime = used
        return r

    def model_tokens(self, w: Word) -> list[str]:
        """The model's tokens of one input word (module docstring)."""
        return self._encoded(w)[0]

    def _encoded(self, w: Word) -> tuple[list[str], list[int]]:
        key = w.written if w.written is not None else w.text
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        from punct.models import UNK
        from punct.text.textnorm import straight_apostrophes, tokenize_punctuated

        t = w.text
        known = getattr(type(self.vocab), "__contains__", None) is not None
        if (t.startswith("<") and t.endswith(">")) or (t.startswith("[") and t.endswith("]")):
            toks = [UNK]
        elif known and t in self.vocab:
            toks = [t]
        elif known and (straight := straight_apostrophes(t)) in self.vocab:  # don’t: the model's don't
            toks = [straight]
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
                copy: bool = True, end_sentence: bool = True, case: bool = False, pauses: dict | None = None,
                quiet: bool = False, features: FeatureSource | None = None) -> list[Utterance]:
        """Copies of ``utts`` whose words carry the predicted labels (module docstring);
        ``copy=False`` sets the labels of ``utts`` themselves (and returns them), saving memory.
        ``end_sentence``: the last word of each input ends a sentence (``input_ends``);
        ``case``: with a case head, the words are spelled in their predicted case (``true_case``).
        ``pauses`` (with ``copy=False``): {id(word): its PAUSE_FEATURES row} given by the caller
        instead of computed from the times (punct.engine.live: the pauses known so far);
        ``quiet``: no summary in the log (a live stream restores a window a word);
        ``features``: where a model with per-word features gets them (punct.engine.word_features;
        None: the words alone, so pauses from their times)."""
        out, streams = output_streams(utts, copy, speaker_breaks)
        ends = input_ends(out) if end_sentence else []
        probs, cases = self._run(streams, out, progress, keep={id(w) for w in ends}, cases=case and self.has_case,
                                 pauses=pauses, quiet=quiet, features=features)
        if speaker_breaks:
            end_turns(streams)
        end_inputs(ends, probs, self.bias)
        if case and self.has_case:  # the classes once the marks are decided (a capital needs a sentence start)
            n = true_case(streams, decided_cases(streams, cases, probs, self.lexicon), self.mixed)
            if not quiet:
                log.info("true case: %d words spelled anew", n)
        return out

    def word_posteriors(self, streams: list[list[Word]], utts: Sequence[Utterance], progress: bool = False,
                        features: FeatureSource | None = None, rows: tuple | None = None) -> dict:
        """{id(word): posteriors [len(LABELS)] of the mark after it} for every word of ``streams``
        (``stream_words`` of ``utts``): the posteriors of the word's last token. Sets the labels too.
        ``rows``: ``feature_rows`` of ``utts``, if the caller has them already."""
        return self._run(streams, utts, progress, probs=True, features=features, rows=rows)[0]

    def _run(self, streams: list[list[Word]], out: Sequence[Utterance], progress: bool, probs: bool = False,
             keep: set[int] | frozenset[int] = frozenset(), cases: bool = False, pauses: dict | None = None,
             quiet: bool = False, features: FeatureSource | None = None, rows: tuple | None = None
             ) -> tuple[dict, dict]:
        """Label the words of ``streams``; returns ({id(word): posteriors} of every word with
        ``probs`` or ``cases``, else of the words in ``keep``; {id(word): the case head's
        posteriors at the word's first token} with ``cases``). ``pauses``, ``quiet``, ``features``: as ``restore``;
        ``rows``: as ``word_posteriors``."""
        import numpy as np

        no_mark = np.eye(len(LABELS), dtype=np.float32)[LABELS.index(O)]  # the first word of a joined pair
        pending: list[deque[tuple[list[Word], int]]] = [deque() for _ in streams]
        word_probs: dict = {}
        word_cases: dict = {}
        names = None
        if self.inputs is not None:
            names, rows = rows or self.feature_rows(out, pauses, features)

        def source(si: int) -> Iterator:
            q = pending[si]
            for unit in self._units(streams[si]):
                w = unit[-1]
                ids = self._encoded(w if len(unit) == 1 else _joined(unit))[1]
                q.append((unit, len(ids)))
                if rows is None:
                    yield from ids
                elif len(ids) == 1 and len(unit) == 1:  # most words: one token, the word's own row
                    yield ids[0], rows[id(w)][1]
                else:
                    yield from zip(ids, token_rows(self.inputs, names, unit_rows(self.inputs, names, unit, rows), len(ids)))

        n_words = sum(len(s) for s in streams)
        bar = None
        if progress and n_words > 20000 and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=n_words, unit="word", desc="restore", leave=False)
        t0 = time.monotonic()
        carry = [0] * len(streams)  # token labels of the current word still to come
        first_case: list = [None] * len(streams)  # case posteriors at the current word's first token
        for acc in iter_decode(self.model, [source(i) for i in range(len(streams))], self.window, self.batch_size,
                               with_feats=rows is not None, case=cases, workers=self.workers):
            si = acc.stream
            both = acc.posteriors(case=True) if cases else None  # marks', then the case head's
            case_rows = None if both is None else both[:, len(LABELS):]
            post = both[:, :len(LABELS)] if cases else acc.posteriors() if probs else None  # else only the kept rows
            q = pending[si]
            done = 0
            for j, lab in enumerate(acc.labels):
                if carry[si] == 0:
                    carry[si] = q[0][1]
                    if case_rows is not None:
                        first_case[si] = case_rows[j]
                carry[si] -= 1
                if carry[si] == 0:
                    unit, _ = q.popleft()
                    w = unit[-1]
                    w.label = LABELS[lab]
                    if post is not None:
                        word_probs[id(w)] = post[j]
                    elif id(w) in keep:
                        word_probs[id(w)] = acc.posteriors(j, j + 1)[0]
                    if cases:
                        word_cases[id(unit[0])] = first_case[si]
                    for v in unit[:-1]:  # the word before a joined clitic: no mark inside the pair
                        v.label = O
                        if post is not None or id(v) in keep:
                            word_probs[id(v)] = no_mark
                    done += len(unit)
            if bar is not None:  # every window's words as they are decided
                bar.update(done)
        if bar is not None:
            bar.close()
        dt = time.monotonic() - t0
        if not quiet:
            log.info("restored %d words in %d streams in %.1f s (%.0f words/s)", n_words, len(streams), dt, n_words / max(dt, 1e-9))
        return word_probs, word_cases

    def feature_rows(self, utts: Sequence[Utterance], pauses: dict | None, features: FeatureSource | None
                      ) -> tuple[list[str], dict]:
        """(column names, {id(word): (raw row, the model's row)}) of the words of ``utts``: the
        rows a caller gave (``pauses``), else those of ``features`` (None: the words alone)."""
        from punct.prosody.pause import PAUSE_FEATURES

        if pauses is not None:
            return list(PAUSE_FEATURES), given_rows(self.inputs, PAUSE_FEATURES, pauses)
        got = (features or FeatureSource()).features(list(self.inputs.feature_sets), utts)
        return got.names, word_rows(self.inputs, got, utts)

    def _units(self, stream: list[Word]) -> list[list[Word]]:
        """The words of ``stream`` as the model reads them: one word each, or a word and the
        clitic after it (module docstring) when the model's word vocabulary knows the joined
        word and not the clitic."""
        vocab = self.vocab
        if getattr(type(vocab), "__contains__", None) is None:  # word pieces: every word is known
            return [[w] for w in stream]
        joins = self._joins
        if joins is None:
            joins = self._joins = {c for c in CLITICS if c not in vocab}
        units: list[list[Word]] = []
        for w in stream:
            if units and joins and w.text.lower() in joins and len(units[-1]) == 1 \
                    and (units[-1][0].text + w.text).lower() in vocab:
                units[-1].append(w)
            else:
                units.append([w])
        return units


def output_streams(utts: Sequence[Utterance], copy: bool, speaker_breaks: bool
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
                w.label = O
    return out, stream_words(out, speaker_breaks)


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
    {id(word): posteriors}) favour, PERIOD or QUESTION (punct.engine.infer.sentence_end_label):
    the end of an input is the end of what was said."""
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
    by ``bias`` (punct.engine.infer.class_bias). One member with a bias is a model whose
    decision is moved towards or away from the marks; one member without is that model with
    the decision bias of its file, if any (a given bias replaces it; several members decide
    from their mean posteriors, without their files' biases)."""

    def __init__(self, members: Sequence[Restorer], weights: Sequence[float] | None = None, bias=None):
        self.weights = ensemble_weights(weights, len(members))
        if bias is None and len(members) == 1 and members[0].bias is not None:
            bias = [float(x) for x in members[0].bias[1:]]  # its marks' values (class_bias puts O's 0 back)
        self.bias = class_bias(bias)
        self.members = list(members)

    @classmethod
    def load(cls, model_paths: Sequence[str | Path], weights: Sequence[float] | None = None,
             window: int | None = None, batch_size: int | None = None, bias=None,
             runtime: str | None = None, threads: int = 1, workers: int | None = None) -> "EnsembleRestorer":
        return cls([Restorer.load(p, window=window, batch_size=batch_size, runtime=runtime, threads=threads,
                                  workers=workers)
                     for p in model_paths], weights, bias)

    @property
    def has_case(self) -> bool:
        """An ensemble predicts no case (its members' case heads are not combined)."""
        return False

    def restore(self, utts: Sequence[Utterance], speaker_breaks: bool = False, progress: bool = False,
                copy: bool = True, end_sentence: bool = True, case: bool = False,
                features: FeatureSource | None = None) -> list[Utterance]:
        """As ``Restorer.restore``, with the mean of the members' posteriors (and no case)."""
        out, streams = output_streams(utts, copy, speaker_breaks)
        members = [r.word_posteriors(streams, out, progress, features) for r in self.members]
        words = [w for s in streams for w in s]
        total = {}
        if words:
            import numpy as np

            mean = weighted_mean([np.stack([m[id(w)] for w in words]) for m in members], self.weights)
            for w, i, p in zip(words, biased_labels(mean, self.bias), mean):
                w.label = LABELS[int(i)]
                total[id(w)] = p
        if speaker_breaks:
            end_turns(streams)
        if end_sentence:
            end_inputs(input_ends(out), total, self.bias)
        return out


def stream_words(utts: Sequence[Utterance], speaker_breaks: bool = False) -> list[list[Word]]:
    """The words of ``utts`` as decoding streams (module docstring), without the
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
