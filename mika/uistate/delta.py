"""What changed between two listings of one screen, line by line (issue 16).

A listing's element lines carry their numbers (`4 item "Coral Floor Lamp"`), and a number
means "the element at that place on this version". So a line that reads the same, number
and all, in both versions is the same element at the same number, and the stale-element
rule (mika.uistate.screen) accepts it from either version. The delta keeps exactly that:

- lines of the new version that differ from the base at their number (changed or new);
- numbers of the base that the new version no longer has (the list got shorter).

Everything else stands as the base showed it. A change in the window structure (a dialog
opening, another app's window) is not a small change: no delta, the full listing goes.
Neither is a delta that is not clearly smaller than the listing it replaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A delta is sent only when it is at most this share of the full listing: a near-full
# delta saves little and is harder to read than the listing itself.
MAX_SHARE = 0.6


@dataclass(frozen=True)
class ListingDelta:
    base_version: int
    lines: tuple[str, ...]  # element lines of the new version that differ from the base
    gone: tuple[int, ...]  # numbers the base had and the new version does not
    kept: int  # element lines left out because they read the same in both

    def gone_text(self) -> str:
        """The gone numbers as short ranges: 14-16, 20."""
        out: list[str] = []
        run: list[int] = []
        for n in (*self.gone, None):
            if run and (n is None or n != run[-1] + 1):
                out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
                run = []
            if n is not None:
                run.append(n)
        return ", ".join(out)


def _split(elements: str) -> tuple[list[str], dict[int, str]] | None:
    """(window header lines in order, element lines by number), or None when a line is
    neither (a listing this module does not know how to compare)."""
    windows: list[str] = []
    numbered: dict[int, str] = {}
    for line in elements.splitlines():
        if line.startswith("=="):
            windows.append(line)
            continue
        head, _, _rest = line.partition(" ")
        if not head.isdigit() or int(head) in numbered:
            return None
        numbered[int(head)] = line
    return windows, numbered


def listing_delta(base_version: int, base: str, new: str, *, max_share: float = MAX_SHARE) -> ListingDelta | None:
    """The delta from `base` (the elements of screen v`base_version`) to `new`, or None
    when the full listing should be sent instead."""
    a, b = _split(base), _split(new)
    if a is None or b is None or not b[1]:
        return None
    (windows_a, lines_a), (windows_b, lines_b) = a, b
    if windows_a != windows_b:
        return None
    changed = tuple(line for n, line in sorted(lines_b.items()) if lines_a.get(n) != line)
    gone = tuple(n for n in sorted(lines_a) if n not in lines_b)
    delta = ListingDelta(base_version, changed, gone, len(lines_b) - len(changed))
    if not delta.kept:
        return None
    size = sum(len(line) + 1 for line in changed) + len(delta.gone_text())
    if size > max_share * len(new):
        return None
    return delta


_NUMBERED = re.compile(r"^(\d+) ")
_BASE_NAMED = re.compile(r"since screen v\d+ \(observation ([A-Za-z0-9_-]+)\)")
_GONE = re.compile(r"No longer on screen: ([\d, -]+)\.")


def delta_base(text: str) -> str | None:
    """The observation id a delta's text names as its base (None: a full listing)."""
    head = text.split("<untrusted", 1)[0]
    m = _BASE_NAMED.search(head)
    return m.group(1) if m else None


def rebuild(base: str, delta: str) -> str:
    """The full listing a delta's text stands for, from its base listing's text: what a
    reader of the delta does, and the proof that the delta loses nothing."""
    head, _, rest = delta.partition("<untrusted")
    lines: dict[int, str] = {}
    if rest:
        body = rest.split(">", 1)[1].split("</untrusted>", 1)[0]
        for line in body.strip("\n").splitlines():
            m = _NUMBERED.match(line)
            if m:
                lines[int(m.group(1))] = line
    gone: set[int] = set()
    m = _GONE.search(head)
    if m:
        for part in m.group(1).split(","):
            lo, _, hi = part.strip().partition("-")
            gone.update(range(int(lo), int(hi or lo) + 1))
    out: list[str] = [delta.split("\n", 1)[0]]  # the new version's header
    base_lines = base.split("\n")
    last_numbered = max((i for i, line in enumerate(base_lines) if _NUMBERED.match(line)), default=0)
    seen: set[int] = set()
    for i, line in enumerate(base_lines[1:], 1):
        m = _NUMBERED.match(line)
        if m:
            n = int(m.group(1))
            seen.add(n)
            if n not in gone:
                out.append(lines.get(n, line))
        else:
            out.append(line)
        if i == last_numbered:
            out.extend(line for n, line in sorted(lines.items()) if n not in seen)
    return "\n".join(out)
