"""How memory reads text: one normal form and one term splitter for the filter, the
support check and search, so the three can never disagree about what a word is.

The normal form undoes the tricks that hide a value from a pattern: full-width digits and
letters (NFKC), zero-width and bidi characters, Cyrillic/Greek look-alikes of Latin
letters, and the many dashes. (The lead's shared `mika/search_terms.py` may replace
`terms` later; memory keeps its own so it does not wait on it.)
"""

from __future__ import annotations

import re
import unicodedata

# Characters that render as nothing (or only steer direction) and can be slipped inside a
# word or number to break a pattern while the reader sees it whole.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Terminal escapes (colours, titles) would otherwise leave "[31m" behind in the text.
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_DASHES = re.compile("[\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d\u30fc]")
# Look-alikes that NFKC leaves alone: a "раssword" with Cyrillic р and а must still read as password.
_CONFUSABLE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "Х": "X",
        "І": "I",
        "Ј": "J",
        "Ѕ": "S",
        "α": "a",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
    }
)
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_GAP = re.compile(f"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")


def clean(text: str) -> str:
    """What is stored: no control bytes, no invisible characters, no lone surrogates;
    line breaks and tabs become spaces (an item is one line of plain text)."""
    text = _SURROGATE.sub("\ufffd", text)
    text = _ESCAPE.sub("", text)
    text = _INVISIBLE.sub("", text)
    text = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    text = _CONTROL.sub("", text)
    return re.sub(r" {2,}", " ", text).strip()


def normal(text: str) -> str:
    """The form patterns and terms are matched on (never stored)."""
    text = unicodedata.normalize("NFKC", clean(text))
    text = _DASHES.sub("-", text).translate(_CONFUSABLE)
    # "密 码" is 密码: a space between two Han characters is a trick, not a word break.
    return _CJK_GAP.sub("", text)


_TOKEN = re.compile(rf"[0-9]+|[a-z]+(?:'[a-z]+)?|[{_CJK}]+")
STOP = frozenset(
    """a an the and or but of to in on at for by with from as is are was were be been being am
    it its this that these those there here i me my mine we our you your he him his she her
    they them their user user's users's users please remember note that always do does did
    will would should can could may might must so if then than also just very too
    has have had get gets got let lets want wants like likes i'm i've i'd it's
    的 了 是 我 你 他 她 们 在 和 与 也 就 都 要 请 记住 记得 一下 用户""".split()  # noqa: SIM905 - a word list reads better as prose
)


def _stem(word: str) -> str:
    # Enough to match "takes"/"taking" with "take", "prefers" with "prefer", "cities" with "city".
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 3 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    """Content terms in order: numbers as digit runs, Latin words lowercased and stemmed,
    Han runs as bigrams (a single character alone). Stop words are left out."""
    out: list[str] = []
    for tok in _TOKEN.findall(normal(text).lower()):
        if tok[0] >= "\u3400":
            grams = [tok] if len(tok) == 1 else [tok[i : i + 2] for i in range(len(tok) - 1)]
            out.extend(g for g in grams if g not in STOP)
        elif tok.isdigit():
            out.append(tok)
        elif tok not in STOP:
            out.append(_stem(tok))
    return out


def numbers(text: str) -> list[str]:
    return re.findall(r"[0-9]+", normal(text))


_NAME = re.compile(r"(?<![A-Za-z'])([A-Z][A-Za-z'\-]*[A-Za-z]|[A-Z]{2,})")


def names(text: str) -> list[str]:
    """Capitalised Latin words that are not the first word of a sentence: names of people,
    places, brands. Lowercased for comparison."""
    found: list[str] = []
    t = normal(text)
    for m in _NAME.finditer(t):
        before = t[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;\"'“‘(。！？：；":
            continue  # a sentence's first word is capitalised anyway
        word = m.group(1).lower()
        if word not in STOP:
            found.append(word)
    return found
