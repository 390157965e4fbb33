"""Whether a memory's text comes from someone's words: the one rule `memory_save`, the
extractor and the store all apply.

Supported means: every number and every name in the text appears in the words, and most
of its content terms do (a paraphrase may add a word or two — "commute", "usually"). A
term that is missing from the words but present in what Mika read (a screen, a page) is
never allowed: that is the mark of screen words mixed into a save.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mika.memory.text import names, numbers, terms

MOST = 2 / 3  # share of the text's content terms the words must hold
# How a memory is phrased ("prefers", "usually", "喜欢"), not what it is about: a screen
# showing one of these words does not make a save that adds it screen words.
_PHRASING = frozenset(
    terms(
        "prefer prefers preferred like likes love loves usual usually use uses want wants need needs "
        "take takes live lives work works call calls called name named favourite favorite often every "
        "喜欢 偏好 常用 总是 习惯 通常 每天"
    )
)


@dataclass(frozen=True)
class Support:
    ok: bool
    missing: tuple[str, ...] = ()
    reason: str = ""  # "" | "number" | "name" | "screen" | "few_terms" | "nothing"


def support(text: str, words: Iterable[str], read: Iterable[str] = ()) -> Support:
    said = "\n".join(words)
    said_terms = set(terms(said))
    said_numbers = set(numbers(said))
    said_lower = said.lower()
    wanted = terms(text)
    if not wanted or not said_terms:
        return Support(False, reason="nothing")
    missing_numbers = tuple(n for n in dict.fromkeys(numbers(text)) if n not in said_numbers)
    if missing_numbers:
        return Support(False, missing_numbers, "number")
    # Names are compared as words in what was said, so a name the user typed in lower case
    # still counts.
    missing_names = tuple(n for n in dict.fromkeys(names(text)) if n not in said_lower and set(terms(n)) - said_terms)
    if missing_names:
        return Support(False, missing_names, "name")
    missing = tuple(dict.fromkeys(t for t in wanted if t not in said_terms))
    read_terms = set(terms("\n".join(read)))
    from_screen = tuple(t for t in missing if t in read_terms and t not in _PHRASING)
    if from_screen:
        return Support(False, from_screen, "screen")
    if len([t for t in wanted if t in said_terms]) < MOST * len(wanted):
        return Support(False, missing, "few_terms")
    return Support(True)
