"""A cheap, tokenizer-free estimate of how many tokens a text costs a model.

Rule (documented so numbers are comparable across benchmarks and tests):

* CJK ideographs, kana and Hangul: 1 token per character (BPE vocabularies of current
  models spend about one token per such character, sometimes more);
* other non-ASCII letters (Cyrillic, Greek, Arabic, accented Latin, emoji …): 1 token
  per 2 characters;
* ASCII: 1 token per 4 characters (the usual English rule of thumb; XML markup is
  ASCII and lands near that too).

The result is rounded up; an empty text costs 0. It is an estimate for budgets and for
comparing a listing with raw XML, not a bill.
"""

from __future__ import annotations

import math


def _is_wide(cp: int) -> bool:
    return (
        0x3040 <= cp <= 0x30FF  # kana
        or 0x3400 <= cp <= 0x4DBF  # CJK ext A
        or 0x4E00 <= cp <= 0x9FFF  # CJK unified
        or 0xAC00 <= cp <= 0xD7AF  # Hangul syllables
        or 0x1100 <= cp <= 0x11FF  # Hangul jamo
        or 0xF900 <= cp <= 0xFAFF  # CJK compatibility
        or 0x3000 <= cp <= 0x303F  # CJK punctuation
        or 0xFF00 <= cp <= 0xFFEF  # full-width forms
        or 0x20000 <= cp <= 0x2FFFF  # CJK ext B+
    )


def estimate_tokens(text: str) -> int:
    wide = other = ascii_chars = 0
    for ch in text:
        cp = ord(ch)
        if cp < 128:
            ascii_chars += 1
        elif _is_wide(cp):
            wide += 1
        else:
            other += 1
    return wide + math.ceil(other / 2) + math.ceil(ascii_chars / 4)
