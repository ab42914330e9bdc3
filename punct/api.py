"""The Python API: punctuate a string, or timed words, in one call.

::

    import punct

    punct.restore("so how are we doing today")          # 'so, how are we doing today?'
    punct.restore_words([("so", 0.0, 0.2), ("how", 0.3, 0.5)])   # [RestoredWord(...), ...]

    r = punct.load("exp/earnings/ta_brnn_p/best.pt")    # a model loaded once, reused
    r.restore("...")

``restore`` and ``restore_words`` use the default model (``models/default.pt``, shipped in
the package), loaded on first use and kept for later calls. Importing ``punct`` is cheap:
torch is imported when a model is first loaded. This module wraps
``punct.engine.restorer.Restorer`` (the path ``punct restore`` takes), so a text gives the same
marks here as on the command line.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence, Union

from punct.errors import PunctError
from punct.io.sentences import punctuated_line, spelling, word_from_token
from punct.text.labels import LABEL_TO_MARK, O
from punct.text.words import Utterance, Word

__all__ = ["RestoredWord", "Restorer", "load", "restore", "restore_words"]


@dataclass(frozen=True)
class RestoredWord:
    """One word as restored: its spelling (in sentence case when asked or when the model
    predicts case), the mark after it (``""``, ``","``, ``"."``, ``"?"``), its label name
    (punct.text.labels) and the input's times (None when the input gave none)."""

    text: str
    mark: str = ""
    start: float | None = None
    end: float | None = None
    label: str = O

    def __str__(self) -> str:
        """The word as written back: spelling and mark (``today?``; ``U.S.`` takes no second dot)."""
        return self.text if self.mark == "." and self.text.endswith(".") else self.text + self.mark


#: what ``restore_words`` takes for one word: a string, ``(text, start, end)``, or any
#: object with ``text`` and optional ``start``/``end`` attributes (a RestoredWord, a
#: punct.text.words.Word)
WordLike = Union[str, Sequence[Any], Any]


def _to_word(item: WordLike, k: int) -> Word:
    """The punct.text.words.Word of one ``restore_words`` input; marks already attached to the
    text are dropped (restoring replaces them)."""
    if isinstance(item, str):
        text, start, end = item, None, None
    elif isinstance(item, (tuple, list)):
        if len(item) not in (1, 3):
            raise PunctError(f"word {k}: expected (text,) or (text, start, end), got {len(item)} items")
        text, start, end = (item[0], None, None) if len(item) == 1 else item
    elif hasattr(item, "text"):
        text = getattr(item, "written", None) or item.text
        start, end = getattr(item, "start", None), getattr(item, "end", None)
    else:
        raise PunctError(f"word {k}: expected a string, a (text, start, end) tuple or an object with .text, "
                         f"got {type(item).__name__}")
    if not isinstance(text, str) or not text.strip() or len(text.split()) != 1:
        raise PunctError(f"word {k}: expected one word, got {text!r}")
    if (start is None) != (end is None):
        raise PunctError(f"word {k} ({text!r}): give both times or neither")
    if start is not None:
        try:
            start, end = float(start), float(end)
        except (TypeError, ValueError):
            raise PunctError(f"word {k} ({text!r}): times must be numbers (seconds), got {start!r} and {end!r}") from None
        if not (math.isfinite(start) and math.isfinite(end)):
            raise PunctError(f"word {k} ({text!r}): times must be finite, got {start} and {end}")
        if end < start:
            raise PunctError(f"word {k} ({text!r}): ends at {end} before it starts at {start}")
    w = word_from_token(text, start=start, end=end)
    if w is None:
        raise PunctError(f"word {k}: {text!r} holds marks only, no word")
    return w


class Restorer:
    """A loaded model (or an ensemble of several) that punctuates strings and timed words.

    Made by ``punct.load``; holding one avoids loading the model for every call.
    ``capitalize`` gives sentence case (punct.text.casing.capitalize) to lower-case input;
    ``case`` (default) spells each word in its predicted true case when the model has a
    case head, which then replaces sentence case.
    """

    def __init__(self, engine, capitalize: bool = False, case: bool = True):
        self.engine = engine  #: punct.engine.restorer.Restorer or EnsembleRestorer
        self.capitalize = capitalize
        self.case = case

    def restore_utterances(self, utts: Sequence[Utterance], speaker_breaks: bool = False) -> list[Utterance]:
        """Copies of ``utts`` (punct.text.words.Utterance) with the predicted labels (and case)."""
        from punct.text.casing import capitalize
        from punct.engine.restorer import stream_words

        out = self.engine.restore(utts, speaker_breaks=speaker_breaks, case=self.case)
        if self.capitalize and not (self.case and getattr(self.engine, "has_case", False)):
            capitalize(stream_words(out, speaker_breaks))
        return out

    def restore_words(self, words: Iterable[WordLike]) -> list[RestoredWord]:
        """``words`` (one stream, in order) with the mark after each and their times unchanged.

        A word is a string, a ``(text, start, end)`` tuple (seconds) or an object with
        ``text``, ``start``, ``end``; with times, a model that reads pauses uses them.
        """
        ws = [_to_word(item, k) for k, item in enumerate(words, 1)]
        if not ws:
            return []
        (utt,) = self.restore_utterances([Utterance(id="words", words=ws)])
        return [RestoredWord(text=spelling(w), mark=LABEL_TO_MARK[w.label], start=w.start, end=w.end,
                             label=w.label) for w in utt.words]

    def restore(self, text: str) -> str:
        """``text`` punctuated, on one line: its words (split at white space, spelling
        kept, any marks in it replaced) each followed by the predicted mark."""
        if not isinstance(text, str):
            raise TypeError(f"restore takes a str, got {type(text).__name__} (restore_words takes words)")
        words = [w for w in (word_from_token(t) for t in text.split()) if w is not None]
        if not words:
            return ""
        (utt,) = self.restore_utterances([Utterance(id="text", words=words)])
        return punctuated_line(utt.words)

    def __repr__(self) -> str:
        return f"punct.Restorer({type(self.engine).__name__}, capitalize={self.capitalize}, case={self.case})"


def load(model: str | Path | Sequence[str | Path] | None = None, *, capitalize: bool = False, case: bool = True,
         window: int | None = None, batch_size: int | None = None) -> Restorer:
    """Load ``model`` (a ``best.pt`` or an exported model; None: the default model; a list of
    several: their ensemble, as ``punct restore --model A --model B``) into a Restorer.
    ``window`` and ``batch_size`` default to the model's training values."""
    from punct.engine.restorer import EnsembleRestorer, Restorer as Engine, resolve_model

    if isinstance(model, (list, tuple)):
        engine = EnsembleRestorer.load([resolve_model(m) for m in model], window=window, batch_size=batch_size)
    else:
        engine = Engine.load(resolve_model(model), window=window, batch_size=batch_size)
    return Restorer(engine, capitalize=capitalize, case=case)


@functools.lru_cache(maxsize=2)
def _loaded(model: str | None) -> Restorer:
    """The model of ``restore`` and ``restore_words``, loaded on first use (the default
    model and the last one named are kept; loading takes about a second)."""
    return load(model)


def _model_key(model: str | Path | None) -> str | None:
    return None if model is None else str(Path(model).resolve())


def restore(text: str, model: str | Path | None = None, capitalize: bool = False, case: bool = True) -> str:
    """``text`` punctuated by ``model`` (the default model when None), on one line:
    ``restore("so how are we doing today")`` -> ``"so, how are we doing today?"``.
    ``capitalize``: sentence case for lower-case input; ``case``: true case from a model with
    a case head. The model is loaded once."""
    r = _loaded(_model_key(model))
    return Restorer(r.engine, capitalize=capitalize, case=case).restore(text)


def restore_words(words: Iterable[WordLike], model: str | Path | None = None,
                  capitalize: bool = False, case: bool = True) -> list[RestoredWord]:
    """Timed words with the mark after each (``Restorer.restore_words``):
    ``restore_words([("so", 0.0, 0.2), ("how", 0.3, 0.5)])`` -> ``[RestoredWord("so", ",", 0.0, 0.2, ...), ...]``."""
    r = _loaded(_model_key(model))
    return Restorer(r.engine, capitalize=capitalize, case=case).restore_words(words)
