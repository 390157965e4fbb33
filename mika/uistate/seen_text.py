"""`SeenText`: a line read from the screen's pixels (OCR) that the tree may lack."""

from __future__ import annotations

from dataclasses import dataclass

from mika.uistate.tree import Bounds


@dataclass(frozen=True)
class SeenText:
    """Text read from pixels (OCR), platform-free: what, where, how sure."""

    text: str
    box: Bounds
    score: float

    @property
    def centre(self) -> tuple[int, int]:
        return self.box.centre
