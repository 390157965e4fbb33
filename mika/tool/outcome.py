"""What a tool call gives back (`ToolOutcome`), and the result that ends a run (`EndRun`).

Its own module, below the tool declarations: the surface layer and the dispatcher deal in
outcomes without reading what a tool is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mika.model.messages import Image
from mika.observe.observation import Observation


@dataclass(frozen=True)
class EndRun:
    """A tool result that ends the run (end_not_done)."""

    subtype: str
    message: str


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    ok: bool = True
    code: str = "done"
    image: Image | None = None
    observations: tuple[Observation, ...] = ()
    effect: str = ""
    tree_blind: bool = False
    data: dict[str, Any] = field(default_factory=dict)
    end_run: EndRun | None = None
    wait_ms: int = 0

    @staticmethod
    def error(code: str, text: str, **data: Any) -> ToolOutcome:
        return ToolOutcome(text=text, ok=False, code=code, data=data)
