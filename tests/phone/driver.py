"""A scripted model that acts like a careful reader of the listing.

Each step names a tool and its arguments; an argument `pick="Clock"` is turned into
`element=N`, with N read from the latest listing the run gave back — exactly what a
real model does with the numbers it is shown. Nothing about the phone is faked: the
numbers come from the real tool results of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.uistate.listing_read import current_listing, elements_in, number_for

# Listing reading lives in the product (the reference-solution player uses it too).
__all__ = ["ListingDriver", "Step", "current_listing", "elements_in", "number_for", "step"]


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
