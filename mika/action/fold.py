"""Text as a person reads it, for the payment vocabulary (mika.action.vocabulary).

A label reaches the classifier as an app or a page drew it, and what it *shows* is what
the user would agree to. So before any word is looked up, what does not change what a
person sees is taken away:

- NFKC: fullwidth `Ｐａｙ`, ligatures, superscripts and odd spaces become the plain letters;
- format characters (zero-width space and joiners, soft hyphen, bidi controls, tags) are
  dropped: `Pa\u200by` shows as "Pay";
- case is folded, and Latin/Greek/Cyrillic accents stripped, so `PAGAR`, `Régler` and
  `Regler` are one word (letters with no decomposition — ł, đ, ø, ı, æ — are mapped by hand);
- `confusable` also reads Cyrillic and Greek look-alikes as the Latin letters they mimic
  (`Раy` with a Cyrillic Р), as a second reading: the first keeps Russian words intact;
- `spaced_out` joins letters set apart one by one (`C h e c k o u t`, `P·a·y`).
"""

from __future__ import annotations

import re
import unicodedata

# Latin letters Unicode does not decompose into a base and an accent.
_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "đ": "d", "ø": "o", "ı": "i", "ħ": "h", "ŧ": "t", "ŀ": "l", "æ": "ae", "œ": "oe", "þ": "th"}
)

# Cyrillic and Greek letters drawn like Latin ones (lower case: applied after folding).
_CONFUSABLE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ɑ": "a",
        "α": "a",
        "β": "b",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ӏ": "l",
    }
)
# A zero drawn for an o — only beside a letter ("Check0ut"), never in a number ("69.00").
_ZERO_FOR_O = re.compile(r"(?<=[^\W\d_])0|0(?=[^\W\d_])")

_SPACE = re.compile(r"\s+")
# Three or more single letters, each set apart by one space or dot: "C h e c k o u t".
_SPACED = re.compile(r"(?<!\w)(?:\w[ .·•*_\-]){2,}\w(?!\w)")
_SPACER = re.compile(r"[ .·•*_\-]")


def fold(text: str) -> str:
    """`text` as its shown letters: NFKC, no format characters, case-folded, unaccented,
    one space between words."""
    text = unicodedata.normalize("NFKC", text or "")
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = text.casefold()
    # Accents off: decompose, drop the combining diacritics Latin, Greek and Cyrillic use
    # (U+0300–U+036F), recompose — other scripts' marks (Devanagari, Thai) are kept.
    text = unicodedata.normalize("NFD", text)
    text = "".join(c for c in text if not 0x300 <= ord(c) <= 0x36F)
    text = unicodedata.normalize("NFC", text).translate(_UNDECOMPOSED)
    return _SPACE.sub(" ", text).strip()


def confusable(folded: str) -> str:
    """A folded text with Cyrillic and Greek look-alikes read as Latin letters (only for
    words that mix scripts or mimic Latin; Russian words are also looked up unmapped)."""
    return _ZERO_FOR_O.sub("o", folded.translate(_CONFUSABLE))


def spaced_out(folded: str) -> str:
    """A folded text with letters set apart one by one joined into their word."""
    return _SPACED.sub(lambda m: _SPACER.sub("", m.group(0)), folded)


def readings(text: str) -> tuple[str, ...]:
    """The ways a person may read `text`: folded, then (when different) with look-alike
    letters as Latin, and with spaced-out letters joined."""
    folded = fold(text)
    out = [folded]
    for other in (confusable(folded), spaced_out(folded), spaced_out(confusable(folded))):
        if other not in out:
            out.append(other)
    return tuple(out)
