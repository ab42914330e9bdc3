"""Spelling restored words in sentence case or in a case head's true case: the first word of a
stream and every word after a period or question mark begin with a capital, and so does the
pronoun ``i`` (``i'm``, ``i've`` ...). Only words spelled all in lower case change (``iPhone``,
``GOOD``, ``McDonald`` keep the input's spelling), and only their written form: what models and
scorers read (``Word.text``) and the times stay. An input with no lower-case letter at all (the
upper-case output of recognizers trained on LibriSpeech) is lower-cased first: its capitals say
nothing of where sentences start.
"""
from __future__ import annotations

import logging

from punct.io.sentences import spelling
from punct.text.labels import CAP, CASES, LABELS, LOWER, MIXED, SENTENCE_END, apply_case
from punct.text.textnorm import straight_apostrophes
from punct.text.words import Word

log = logging.getLogger(__name__)


#: the pronoun I and its contractions, as lower-case recognizers write them
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll"})


def _capital(s: str) -> str:
    return s[0].upper() + s[1:]


def all_caps(streams: list[list[Word]]) -> bool:
    """True when the words of ``streams`` have letters and none of them is lower case."""
    spelled = " ".join(spelling(w) for stream in streams for w in stream)
    return spelled != spelled.lower() and spelled == spelled.upper()


def capitalize(streams: list[list[Word]]) -> int:
    """Sentence case for the words of ``streams`` (module docstring): the first word
    of a stream and every word after a sentence end start with a capital letter, and so does
    the pronoun ``i``; words whose spelling has any capital are left as written, unless no
    word has a lower-case letter (``all_caps``): then every word is lower-cased first.
    Returns the number of words whose spelling changed."""
    return _respell(streams, {}, None, "sentence case")


#: the largest chance of a sentence end that ``mid_sentence_case`` divides out (at 1 nothing is left)
_END_CAP = 0.99


def mid_sentence_case(p, end: float) -> int:
    """The case class id (CASES) of a word that does not start a sentence, from its case head's
    posteriors ``p`` over CASES and the chance ``end`` that the mark before it ends a sentence.
    The head learnt from written text, where the word after a sentence end has a capital
    whatever word it is, so its CAP is partly a guess that a sentence starts there (``Hi, This
    is``): with m the classes mid-sentence, p(LOWER) = (1 - end) m(LOWER) and p(CAP) = m(CAP) +
    end m(LOWER) (UPPER and MIXED stay so at a sentence start). m is solved for; its argmax."""
    import numpy as np

    return int(_mid_sentence_classes(np.asarray([p], dtype=np.float64), np.asarray([end], dtype=np.float64))[0])


def _mid_sentence_classes(p, end):
    """``mid_sentence_case`` of every row of ``p`` [n, len(CASES)] with the chances ``end`` [n]."""
    import numpy as np

    e = np.clip(end, 0.0, _END_CAP)
    m = np.array(p, dtype=np.float64)
    lo, cap = CASES.index(LOWER), CASES.index(CAP)
    m[:, lo] = m[:, lo] / (1.0 - e)
    m[:, cap] = np.maximum(m[:, cap] - e * m[:, lo], 0.0)
    return m.argmax(-1)


def decided_cases(streams: list[list[Word]], case_probs: dict, mark_probs: dict,
                  lexicon: dict[str, str] | None = None) -> dict:
    """{id(word): case class} for the words of ``streams`` that have case posteriors
    (``case_probs``: {id(word): posteriors over CASES}), once their marks are decided: the class
    ``lexicon`` gives the word ({lower-case word: class}, punct.data.datadir.case_lexicon_of: one
    spelling in its training text), else after a sentence end (and at a stream's start) the
    head's most likely class, elsewhere ``mid_sentence_case`` with the previous word's chance of
    a sentence end (``mark_probs``: {id(word): posteriors over LABELS}; none known: 0)."""
    import numpy as np

    lexicon = lexicon or {}
    ends = [LABELS.index(x) for x in sorted(SENTENCE_END)]
    out: dict = {}
    words, rows, before = [], [], []  # the words the head decides, their posteriors, the word before each
    for stream in streams:
        prev = None
        for w in stream:
            p = case_probs.get(id(w))
            known = lexicon.get(w.text.lower()) if p is not None and lexicon else None
            if known is not None:
                out[id(w)] = known
            elif p is not None:
                words.append(w)
                rows.append(p)
                before.append(None if prev is None or prev.label in SENTENCE_END else mark_probs.get(id(prev)))
            prev = w
    if words:  # all at once: a restore's words by the tens of thousands
        end = np.array([0.0 if q is None else sum(float(q[i]) for i in ends) for q in before])
        for w, c in zip(words, _mid_sentence_classes(np.stack(rows), end).tolist()):
            out[id(w)] = CASES[c]
    return out


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
                if straight_apostrophes(s.lower()) in _PRONOUN_I:  # i'm, and i’m as typed
                    s = _capital(s.lower())
                elif start and s[:1].isalpha() and s == s.lower():
                    s = _capital(s)
            if s != before:
                w.written = s
                changed += 1
            start = w.label in SENTENCE_END
    return changed
