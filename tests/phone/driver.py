"""A scripted model that acts like a careful reader of the listing.

Each step names a tool and its arguments; an argument `pick="Clock"` is turned into
`element=N`, with N read from the latest listing the run gave back — exactly what a
real model does with the numbers it is shown. Nothing about the phone is faked: the
numbers come from the real tool results of the run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.uistate.delta import delta_base, rebuild

_LINE = re.compile(r'^(\d+) (\S+) ("(?:[^"\\]|\\.)*"|#\S+|@\d+,\d+)(.*)$')


def elements_in(text: str) -> list[tuple[int, str, str, str]]:
    """(number, role, label, rest) of each listing line in `text` (the latest listing only)."""
    start = text.rfind("Screen v")
    out = []
    for line in text[start if start >= 0 else 0 :].splitlines():
        m = _LINE.match(line.strip())
        if m:
            raw = m.group(3)
            out.append((int(m.group(1)), m.group(2), json.loads(raw) if raw.startswith('"') else raw, m.group(4)))
    return out


_OBS = re.compile(r"\[observation ([^\]\s,]+)")


def current_listing(results: list[str]) -> str:
    """The latest listing in `results`, whole: a screen sent as what changed is read over
    the listing it names as its base, as a model does."""
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
    rows = elements_in(text)
    for exact in (True, False):
        for n, r, lab, _ in rows:
            if role and r != role:
                continue
            if (lab == label) if exact else (label.casefold() in lab.casefold()):
                return n
    raise AssertionError(f"no element {label!r} in the listing:\n{text[-2500:]}")


@dataclass
class Step:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


def step(tool: str, **args: Any) -> Step:
    return Step(tool, args)


class ListingDriver:
    def __init__(self, steps: list[Step | str]) -> None:
        self.steps = list(steps)
        self.results: list[str] = []
        self.model = FunctionModel(self.reply)

    def reply(self, request) -> Reply | str:
        if request.messages:
            for part in request.messages[-1].parts:
                if isinstance(part, ToolResult):
                    self.results.append(part.text)
        if not self.steps:
            raise AssertionError(
                "the driver ran out of steps; last result:\n" + (self.results[-1] if self.results else "")
            )
        nxt = self.steps.pop(0)
        if isinstance(nxt, str):
            return nxt
        args = dict(nxt.args)
        if "pick" in args:
            listing = current_listing(self.results)
            args["element"] = number_for(listing, args.pop("pick"), args.pop("role", None))
        return Reply.call(nxt.tool, **args)
