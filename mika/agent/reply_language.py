"""`ReplyLanguage`: is an answer written in the language of the user's last message?

Counted by script: Han (and kana, Hangul) by character, every other script by word.
Quoted text and text in brackets is not counted (an app's name, a copied title), nor are
lines that only list names (short lines without a sentence in them). A text with too
little left to count has no language and is never judged.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

# Characters-per-unit scripts: each character is one unit.
_CHAR_SCRIPTS = {"han", "kana", "hangul"}
_QUOTED = re.compile(
    r'"[^"\n]*"|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」|『[^』\n]*』|《[^》\n]*》|\([^)\n]*\)|（[^）\n]*）|\[[^\]\n]*\]|【[^】\n]*】|`[^`\n]*`'
)
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)、])\s*")
_SENTENCE_MARKS = set(".!?。！？,，;；:：")
MIN_UNITS = 3

NAMES = {
    "han": "Chinese",
    "kana": "Japanese",
    "hangul": "Korean",
    "latin": "the user's language (Latin script)",
    "cyrillic": "Russian (Cyrillic script)",
    "arabic": "Arabic",
    "greek": "Greek",
    "hebrew": "Hebrew",
    "thai": "Thai",
    "devanagari": "Hindi (Devanagari script)",
}


def script_of(ch: str) -> str | None:
    code = ord(ch)
    if 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x2FFFF:
        return "han"
    if 0x3040 <= code <= 0x30FF:
        return "kana"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "hangul"
    if not ch.isalpha():
        return None
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return None
    for script in ("LATIN", "CYRILLIC", "ARABIC", "GREEK", "HEBREW", "THAI", "DEVANAGARI"):
        if name.startswith(script):
            return script.lower()
    return None


def _is_name_line(line: str) -> bool:
    body = _BULLET.sub("", line).strip()
    if not body:
        return True
    if any(c in _SENTENCE_MARKS for c in body.rstrip(".。")):
        return False
    words = body.split()
    han = sum(1 for c in body if script_of(c) in _CHAR_SCRIPTS)
    # A bare name: a few words, or a few Han characters, with no sentence punctuation.
    return (han == 0 and len(words) <= 4) or (0 < han <= 6 and len(words) <= 2)


def count_scripts(text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    lines = text.splitlines() or [text]
    multi_line = len([ln for ln in lines if ln.strip()]) > 1
    for line in lines:
        line = _QUOTED.sub(" ", line)
        if multi_line and _is_name_line(line):
            continue
        word_script: str | None = None
        for ch in line + " ":
            s = script_of(ch)
            if s in _CHAR_SCRIPTS:
                if word_script:
                    counts[word_script] += 1
                    word_script = None
                counts[s] += 1
            elif s is not None:
                word_script = word_script or s
            elif word_script and not (ch in "'’-" or ch.isdigit()):
                counts[word_script] += 1
                word_script = None
    # Japanese writes Han with kana: Han in a text with kana counts as Japanese.
    if counts["kana"] and counts["han"]:
        counts["kana"] += counts.pop("han")
    return counts


def dominant_script(text: str) -> str | None:
    counts = count_scripts(text)
    if sum(counts.values()) < MIN_UNITS:
        return None
    script, n = counts.most_common(1)[0]
    return script if n * 2 > sum(counts.values()) else None


@dataclass(frozen=True)
class LanguageMismatch:
    wanted: str  # the script of the user's message
    got: str

    @property
    def wanted_name(self) -> str:
        return NAMES.get(self.wanted, self.wanted)


class ReplyLanguage:
    @staticmethod
    def check(answer: str, user_message: str) -> LanguageMismatch | None:
        wanted = dominant_script(user_message)
        got = dominant_script(answer)
        if wanted is None or got is None or wanted == got:
            return None
        return LanguageMismatch(wanted, got)
