"""The pronouncing dictionary and the mapping of transcript tokens onto its words.

Transcript tokens are punct.text.textnorm's: lower case, with ``'s 're 'm 'll n't``
split off (``do`` ``n't``) and numbers kept whole (``10,000``). The aligner
needs words of the dictionary, so ``Lexicon.map_tokens`` groups tokens into
``Unit``s, each said as one or more dictionary words:

- a token in the dictionary is itself (``mr.``, ``o'clock``, ``well-known``);
- a clitic joins the word before it (``do`` + ``n't`` -> ``don't``); when the
  joined form is not in the dictionary it is added with the head's
  pronunciation plus the clitic's (``smithson`` + ``'s`` -> ... ``Z``); after
  alignment the joined word's time is cut where the clitic's phones start;
- a token with digits is read out (punct.align.numbers: ``1990s`` -> nineteen
  nineties); a hyphenated or slashed token missing from the dictionary is said
  part by part; dots are dropped (``a.m`` -> ``am``);
- any other word missing from the dictionary is pronounced by the letter-to-sound
  rules (punct.align.g2p), except a short run of consonants (``xkcd``), which is
  spelled letter by letter. ``Mapping.n_lts`` counts the tokens that needed it.

A token with no letter or digit cannot be said: ``map_tokens`` raises a PunctError.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from punct.align.dictionary import read_dictionary
from punct.align.g2p import letters_of, load_or_train
from punct.align.numbers import number_words
from punct.errors import PunctError

log = logging.getLogger(__name__)

#: Clitics that punct.text.textnorm splits off, and the phone endings they are said with
#: (longest first: the aligner's pronunciation decides which one matched).
CLITIC_PHONES: dict[str, tuple[tuple[str, ...], ...]] = {
    "'s": (("IH", "Z"), ("AH", "Z"), ("Z",), ("S",)),
    "'re": (("ER",), ("AH", "R"), ("R",)),
    "'m": (("AH", "M"), ("M",)),
    "'ll": (("AH", "L"), ("L",)),
    "n't": (("AH", "N", "T"), ("N", "T"), ("AH", "N"), ("N",)),
}
_SIBILANTS = {"S", "Z", "SH", "ZH", "CH", "JH"}
_VOICELESS = {"P", "T", "K", "F", "TH"}
_ALNUM_RE = re.compile(r"[^\W_]")
_VOWELS = set("aeiouy")
#: An out-of-dictionary word of consonants only, at most this long, is spelled out.
MAX_SPELLED = 5


def clitic_phones(clitic: str, head_phones: Sequence[str]) -> list[str]:
    """How a clitic is said after a head ending in ``head_phones`` (``'s`` after ``S`` is ``IH Z``)."""
    last = head_phones[-1] if head_phones else ""
    if clitic == "'s":
        return ["IH", "Z"] if last in _SIBILANTS else (["S"] if last in _VOICELESS else ["Z"])
    if clitic == "n't":
        return ["AH", "N", "T"]
    return list(CLITIC_PHONES[clitic][-1])


def clitic_split(clitic: str, phones: Sequence[str]) -> int:
    """How many of a joined word's final ``phones`` belong to ``clitic`` (at least 1, leaving 1)."""
    for pat in CLITIC_PHONES.get(clitic, ()):
        k = len(pat)
        if k < len(phones) and tuple(phones[-k:]) == pat:
            return k
    return 1 if len(phones) > 1 else 0


@dataclass
class Unit:
    """Transcript tokens ``tokens`` (indices; two for word + clitic) said as dictionary ``words``."""

    tokens: tuple[int, ...]
    words: list[str]
    clitic: str | None = None


@dataclass
class Mapping:
    """The units of a transcript and the pronunciations to add to the aligner's dictionary."""

    units: list[Unit] = field(default_factory=list)
    added: dict[str, list[str]] = field(default_factory=dict)
    n_lts: int = 0
    lts_tokens: list[str] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return [w for u in self.units for w in u.words]


class Lexicon:
    """Dictionary look-up with the letter-to-sound fallback (loaded only when first needed)."""

    def __init__(self, prons: dict[str, list[list[str]]], lts_loader: Callable[[], object] | None = None):
        self.prons = prons
        self._lts_loader = lts_loader
        self._lts = None
        self.extra: dict[str, list[str]] = {}

    @classmethod
    def from_file(cls, dict_path: str | Path, lts_model: str | Path | None = None) -> "Lexicon":
        return cls(read_dictionary(dict_path), lambda: load_or_train(dict_path, lts_model or None))

    def __contains__(self, word: str) -> bool:
        return word in self.prons or word in self.extra

    def pron(self, word: str) -> list[str] | None:
        if word in self.prons:
            return self.prons[word][0]
        return self.extra.get(word)

    def lts(self, word: str) -> list[str]:
        if self._lts is None:
            if self._lts_loader is None:
                raise PunctError(f"{word!r} is not in the dictionary and no letter-to-sound model is configured")
            self._lts = self._lts_loader()
        return self._lts.phones(word)  # type: ignore[attr-defined]

    # -- token mapping

    def _plain(self, tok: str, m: Mapping, counted: list[bool]) -> list[str]:
        """Dictionary words for one non-clitic token (adds letter-to-sound words to ``m``)."""
        if tok in self:
            return [tok]
        if tok.lower() in self:
            return [tok.lower()]
        nums = number_words(tok)
        if nums is not None:
            out: list[str] = []
            for w in nums:
                out += self._plain(w, m, counted) if w != tok else self._oov(w, m, counted)
            return out
        for sep in ("-", "/"):
            parts = [p for p in tok.split(sep) if _ALNUM_RE.search(p)]
            if len(parts) > 1:
                return [w for p in parts for w in self._plain(p, m, counted)]
        if "." in tok:
            bare = tok.replace(".", "")
            if bare and bare != tok:
                return self._plain(bare, m, counted)
        return self._oov(tok, m, counted)

    def _oov(self, tok: str, m: Mapping, counted: list[bool]) -> list[str]:
        letters = letters_of(tok)
        if not letters:
            raise PunctError(f"token {tok!r} has no letters a-z or digits that can be pronounced")
        if len(letters) <= MAX_SPELLED and not (set(letters) & _VOWELS) and all(c in self for c in letters):
            return list(letters)
        word = tok if re.fullmatch(r"[a-z0-9'.\-]+", tok) else letters
        if word not in self:
            m.added[word] = self.lts(word)
            self.extra[word] = m.added[word]
            counted[0] = True
        elif word in self.extra and word not in m.added:
            m.added[word] = self.extra[word]
            counted[0] = True
        return [word]

    def map_tokens(self, tokens: Sequence[str], where: str | Path | None = None, line: int | None = None) -> Mapping:
        """Group transcript tokens into units of dictionary words (see the module docstring)."""
        m = Mapping()
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if not _ALNUM_RE.search(tok):
                raise PunctError(f"transcript token {tok!r} (word {i + 1}) has no letters or digits", where, line)
            counted = [False]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            try:
                if tok in CLITIC_PHONES and tok not in self:
                    # a clitic with no word before it: said on its own
                    m.added[tok] = self.extra[tok] = clitic_phones(tok, [])
                    m.units.append(Unit((i,), [tok]))
                    i += 1
                    continue
                if nxt in CLITIC_PHONES and tok + nxt in self.prons:  # do + n't = don't, ca + n't = can't
                    m.units.append(Unit((i, i + 1), [tok + nxt], clitic=nxt))
                    i += 2
                    continue
                words = self._plain(tok, m, counted)
                if nxt in CLITIC_PHONES and words:
                    last = words[-1]
                    joined = last + nxt
                    if joined not in self:
                        head = self.pron(last) or []
                        m.added[joined] = self.extra[joined] = head + clitic_phones(nxt, head)
                    elif joined in self.extra and joined not in m.added:
                        m.added[joined] = self.extra[joined]
                    m.units.append(Unit((i, i + 1), words[:-1] + [joined], clitic=nxt))
                    i += 2
                else:
                    m.units.append(Unit((i,), words))
                    i += 1
            except PunctError as e:
                if e.path is None and where is not None:
                    raise PunctError(e.message, where, line) from None
                raise
            if counted[0]:
                m.n_lts += 1
                m.lts_tokens.append(tok)
        return m
