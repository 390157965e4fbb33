"""Reading a screen listing the way a model does: the numbers of its elements by label.

The reference-solution player (`--model script:PATH` with `"pick": LABEL`) and the tests'
listing drivers both turn "the button that says Display" into the number the latest
listing gave it. A screen sent as what changed against an earlier version (mika.uistate
.delta) is rebuilt over the listing it names as its base first, so the numbers read are
the ones a model reading the whole conversation would see.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from mika.uistate.delta import delta_base, rebuild

# `4 button "Display" …`, `7 image #icon`, `9 view @540,1200` (a label, an id, or a point).
_LINE = re.compile(r'^(\d+) (\S+) ("(?:[^"\\]|\\.)*"|#\S+|@\d+,\d+)(.*)$')
_OBS = re.compile(r"\[observation ([^\]\s,]+)")


class ElementNotListed(LookupError):
    """No element of the listing has the label (and role) asked for."""

    def __init__(self, label: str, role: str | None, listing: str) -> None:
        self.label, self.role, self.listing = label, role, listing
        what = f"{role} {label!r}" if role else repr(label)
        shown = "no screen listing yet" if not listing.strip() else f"the latest listing:\n{listing[-2500:]}"
        super().__init__(f"no element {what} in the latest screen listing ({shown})")


def elements_in(text: str) -> list[tuple[int, str, str, str]]:
    """(number, role, label, rest) of each listing line in `text` (the latest listing only)."""
    start = text.rfind("Screen v")
    out = []
    for line in text[start if start >= 0 else 0 :].splitlines():
        m = _LINE.match(line.strip())
        if m:
            raw = m.group(3)
            label = json.loads(raw) if raw.startswith('"') else raw
            out.append((int(m.group(1)), m.group(2), label, m.group(4)))
    return out


def current_listing(results: Iterable[str]) -> str:
    """The latest listing in `results` (tool result texts, oldest first), whole: a screen
    sent as what changed is read over the listing it names as its base."""
    whole: dict[str, str] = {}
    latest = ""
    for r in results:
        at = r.rfind("Screen v")
        if at < 0:
            continue
        text = r[at:]
        base = delta_base(text)
        if base is not None and base in whole:
            text = rebuild(whole[base], text)
        m = _OBS.search(r[at:])
        if m:
            whole[m.group(1)] = text
        latest = text
    return latest


def number_for(text: str, label: str, role: str | None = None) -> int:
    """The number of the element labelled `label` (exactly, else containing it, ignoring
    case), of `role` when given. Raises ElementNotListed."""
    rows = elements_in(text)
    for exact in (True, False):
        for n, r, lab, _ in rows:
            if role and r != role:
                continue
            if (lab == label) if exact else (label.casefold() in lab.casefold()):
                return n
    raise ElementNotListed(label, role, text)


def pick_element(results: Iterable[str], label: str, role: str | None = None) -> int:
    """The number `label` has on the latest listing in `results`: the script player's resolver."""
    return number_for(current_listing(results), label, role)
