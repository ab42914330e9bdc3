"""punct.align.numbers: written numbers as spoken words."""
from __future__ import annotations

import pytest

from punct.align.numbers import cardinal, number_words, ordinal_word, year


@pytest.mark.parametrize("token,words", [
    ("7", "seven"),
    ("42", "forty two"),
    ("10,000", "ten thousand"),
    ("1,203", "one thousand two hundred three"),
    ("1203", "twelve oh three"),
    ("1984", "nineteen eighty four"),
    ("1900", "nineteen hundred"),
    ("1905", "nineteen oh five"),
    ("2005", "two thousand five"),
    ("2019", "twenty nineteen"),
    ("1990s", "nineteen nineties"),
    ("'90s", "nineties"),
    ("21st", "twenty first"),
    ("12th", "twelfth"),
    ("2.5", "two point five"),
    ("$100", "one hundred dollars"),
    ("2:15", "two fifteen"),
    ("9:05", "nine oh five"),
    ("3:00", "three o'clock"),
    ("9/11", "nine eleven"),
    ("007", "zero zero seven"),
    ("mp3", "mp three"),
    ("1,000,000", "one million"),
])
def test_number_words(token, words):
    assert number_words(token) == words.split()


def test_no_digit_and_helpers():
    assert number_words("hello") is None
    assert cardinal(0) == ["zero"] and cardinal(-3) == ["minus", "three"]
    assert year(1066) == ["ten", "sixty", "six"]
    assert ordinal_word("twenty") == "twentieth" and ordinal_word("three") == "third"
