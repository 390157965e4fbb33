"""The terms a text is matched on: Latin words and digits whole, Chinese as pairs.

Shared by knowledge search and memory recall (two rooms that may not import each other),
so a query finds the same things in both. Chinese has no spaces: a run of Han characters
gives its characters' bigrams (and the lone character when the run is one long), which
is how "设置闹钟" meets "闹钟" without a dictionary.
"""

from __future__ import annotations

import re
import unicodedata

_LATIN = re.compile(r"[0-9a-z][0-9a-z_.+-]*[0-9a-z]|[0-9a-z]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Words too common to tell two entries apart.
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "the",
        "to",
        "use",
        "what",
        "when",
        "where",
        "which",
        "with",
        "you",
        "your",
        "的",
        "了",
        "吗",
        "我",
        "你",
        "在",
    ]
)


def fold(text: str) -> str:
    """Full-width to half-width and lower case, so "ＷｅＣｈａｔ" and "wechat" are one term."""
    return unicodedata.normalize("NFKC", text).casefold()


def _singular(word: str) -> str:
    # The one English ending that splits most queries from their answers: "alarms" / "alarm".
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word.isalpha():
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The text's terms in order, repeats kept (callers count them)."""
    folded = fold(text)
    out: list[str] = [_singular(w) for w in _LATIN.findall(folded) if w not in _STOP]
    for run in _HAN.findall(folded):
        if len(run) == 1:
            if run not in _STOP:
                out.append(run)
            continue
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def overlap(query: str, text: str) -> float:
    """Share of the query's distinct terms found in `text` (0 when the query has none)."""
    wanted = set(terms(query))
    if not wanted:
        return 0.0
    return len(wanted & set(terms(text))) / len(wanted)
