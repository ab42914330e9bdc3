"""Spoken words for written numbers, so a transcript with digits can be aligned.

``number_words(token)`` turns one token of punct.text.textnorm's output that holds
digits into the words a reader says: ``10,000`` -> ten thousand, ``2.5`` -> two
point five, ``1990s`` -> nineteen nineties, ``21st`` -> twenty first, ``$100``
-> one hundred dollars, ``2:15`` -> two fifteen, ``9/11`` -> nine eleven,
``007`` -> zero zero seven. Four-digit numbers from 1100 to 2099 without a comma
are read as years. Letters mixed with digits (``mp3``) are returned as separate
runs (``mp`` ``three``) for the caller to look up. Returns None for a token
with no digit.
"""
from __future__ import annotations

import re

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen").split()
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL_IRREGULAR = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                      "nine": "ninth", "twelve": "twelfth"}
#: Longest digit string read as a number; longer ones are read digit by digit.
MAX_DIGITS = 15

_RUN_RE = re.compile(r"\d+|[^\W\d_]+")


def _below_thousand(n: int) -> list[str]:
    out: list[str] = []
    if n >= 100:
        out += [ONES[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        out.append(TENS[n // 10])
        if n % 10:
            out.append(ONES[n % 10])
    elif n or not out:
        out.append(ONES[n])
    return out


def cardinal(n: int) -> list[str]:
    """``1203`` -> one thousand two hundred three (no 'and', as in American reading)."""
    if n < 0:
        return ["minus"] + cardinal(-n)
    if n < 1000:
        return _below_thousand(n)
    out: list[str] = []
    for value, name in SCALES:
        if n >= value:
            out += cardinal(n // value) + [name]
            n %= value
    if n:
        out += _below_thousand(n)
    return out


def year(n: int) -> list[str]:
    """``1984`` -> nineteen eighty four, ``1900`` -> nineteen hundred, ``2005`` -> two thousand five."""
    hi, lo = divmod(n, 100)
    if 2000 <= n <= 2009:
        return cardinal(n)
    if lo == 0:
        return _below_thousand(hi) + ["hundred"]
    if lo < 10:
        return _below_thousand(hi) + ["oh", ONES[lo]]
    return _below_thousand(hi) + _below_thousand(lo)


def digits(s: str) -> list[str]:
    """A string of digits read out one by one: ``"42"`` -> ``["four", "two"]``."""
    return [ONES[int(c)] for c in s]


def ordinal_word(word: str) -> str:
    """``twenty`` -> twentieth, ``one`` -> first, ``hundred`` -> hundredth."""
    if word in _ORDINAL_IRREGULAR:
        return _ORDINAL_IRREGULAR[word]
    if word.endswith("y"):
        return word[:-1] + "ieth"
    return word + "th"


def plural_word(word: str) -> str:
    """``ninety`` -> nineties, ``six`` -> sixes, ``hundred`` -> hundreds."""
    if word.endswith("y"):
        return word[:-1] + "ies"
    if word.endswith(("x", "s")):
        return word + "es"
    return word + "s"


def integer_words(s: str, allow_year: bool = True) -> list[str]:
    """Words of a string of digits (commas allowed as thousands separators)."""
    plain = s.replace(",", "")
    if not plain.isdigit():
        return digits(re.sub(r"\D", "", plain))
    if (len(plain) > 1 and plain.startswith("0")) or len(plain) > MAX_DIGITS:
        return digits(plain)
    n = int(plain)
    if allow_year and "," not in s and len(plain) == 4 and 1100 <= n <= 2099:
        return year(n)
    return cardinal(n)


def number_words(token: str) -> list[str] | None:
    """The spoken words of a token holding digits, or None when it has no digit."""
    if not any(c.isdigit() for c in token):
        return None
    t = token.strip("'")
    m = re.fullmatch(r"\$(\d[\d,]*(?:\.\d+)?)", t)
    if m:
        return number_words(m.group(1)) + ["dollars"]
    m = re.fullmatch(r"(\d[\d,]*)(st|nd|rd|th)", t)
    if m:
        words = integer_words(m.group(1), allow_year=False)
        return words[:-1] + [ordinal_word(words[-1])]
    m = re.fullmatch(r"(\d[\d,]*)'?s", t)
    if m:
        words = integer_words(m.group(1))
        return words[:-1] + [plural_word(words[-1])]
    if re.fullmatch(r"\d[\d,]*", t):
        return integer_words(t)
    m = re.fullmatch(r"(\d*)\.(\d+)", t)
    if m:
        return (integer_words(m.group(1), allow_year=False) if m.group(1) else []) + ["point"] + digits(m.group(2))
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", t)
    if m:
        h, mi = int(m.group(1)), int(m.group(2))
        rest = [] if mi == 0 else (["oh", ONES[mi]] if mi < 10 else _below_thousand(mi))
        return _below_thousand(h) + (rest or ["o'clock"])
    out: list[str] = []
    for part in re.split(r"[/:.\-]+", t):
        for run in _RUN_RE.findall(part):
            out += integer_words(run) if run.isdigit() else [run]
    return out
