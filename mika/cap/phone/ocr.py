"""Text from pixels, for screens whose UI tree can't see everything (seed §5).

Uses rapidocr_onnxruntime; its detection/recognition models ship inside the wheel, so
nothing is downloaded. The engine takes about a second to build, so it is built once,
on first use, and shared (guarded by a lock: reads run in worker threads).

`read_text` returns lines top to bottom, each with its box, centre and score, after
dropping what is almost surely misread (seed `VisibleText`): low confidence, lines of
only symbols, and on a mostly-Chinese screen stray one- or two-character Latin/digit
fragments. `merge_ocr` adds to a `Screen` only the lines its tree lacks.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Any

from mika.uistate.adequacy import PARTIAL_MIN_LINES, UNUSABLE, TreeAdequacy
from mika.uistate.screen import Screen
from mika.uistate.seen_text import SeenText
from mika.uistate.tree import Bounds

MIN_SCORE = 0.5
_WS = re.compile(r"\s+")


class OcrUnavailable(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(f"Reading text from the screenshot is not available here: {detail}.")


class OcrEngine:
    """One lazily built rapidocr engine."""

    def __init__(self) -> None:
        self._engine: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        with self._lock:
            if self._engine is None:
                try:
                    from rapidocr_onnxruntime import RapidOCR
                except ImportError as exc:  # the wheel is a declared dependency; a broken env says so
                    raise OcrUnavailable(f"rapidocr_onnxruntime could not be imported ({exc})") from None
                self._engine = RapidOCR()
            return self._engine

    def read_text(self, image: bytes) -> tuple[SeenText, ...]:
        engine = self._get()
        with self._lock:  # onnxruntime sessions are shared; one read at a time
            result, _ = engine(image)
        return clean_lines(_to_lines(result or []))


def _to_lines(raw: list[Any]) -> list[SeenText]:
    lines: list[SeenText] = []
    for box, text, score in raw:
        xs = [p[0] for p in box]
        ys = [p[1] for p in box]
        lines.append(
            SeenText(str(text), Bounds(int(min(xs)), int(min(ys)), round(max(xs)), round(max(ys))), float(score))
        )
    return lines


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


def _letters(text: str) -> list[str]:
    return [ch for ch in text if unicodedata.category(ch)[0] in "LN"]


def clean_lines(lines: list[SeenText]) -> tuple[SeenText, ...]:
    kept = [s for s in lines if s.score >= MIN_SCORE and _letters(s.text)]
    cjk_lines = sum(1 for s in kept if any(_is_cjk(ch) for ch in s.text))
    if kept and cjk_lines * 2 > len(kept):
        kept = [s for s in kept if any(_is_cjk(ch) for ch in s.text) or len(_letters(s.text)) > 2]
    return tuple(sorted(kept, key=lambda s: (s.box.top, s.box.left)))


_default = OcrEngine()


def read_text(image: bytes) -> tuple[SeenText, ...]:
    """Lines of text in a PNG/JPEG, top to bottom, using the shared engine."""
    return _default.read_text(image)


def _norm(text: str) -> str:
    return _WS.sub("", text).casefold()


def _scaled(lines: tuple[SeenText, ...], sx: float, sy: float) -> tuple[SeenText, ...]:
    return tuple(
        SeenText(
            s.text,
            Bounds(round(s.box.left * sx), round(s.box.top * sy), round(s.box.right * sx), round(s.box.bottom * sy)),
            s.score,
        )
        for s in lines
    )


def merge_ocr(screen: Screen, lines: tuple[SeenText, ...], *, image_size: tuple[int, int] | None = None) -> Screen:
    """The screen plus the OCR lines its tree does not already have.

    A line counts as known when its text (spaces ignored) is inside some text or
    description of the tree. The screen is marked tree-blind when the tree was unusable
    or when 3 or more lines were missing from it (seed: "partial").

    Pixels and tree coordinates differ when a size override is in force (`wm size
    480x1024` on a 1080x1920 panel: screencap is physical, the tree is not). Pass the
    picture's `image_size` and build the screen with `size=` the override; boxes are
    then scaled to tree coordinates. Without a known screen size nothing is scaled: the
    tree's own extent is not the screen (nav bars are often left out of it).
    """
    if image_size and screen.size and tuple(image_size) != tuple(screen.size):
        lines = _scaled(lines, screen.size[0] / image_size[0], screen.size[1] / image_size[1])
    known = [_norm(t) for t in screen.texts()]
    missing = tuple(s for s in lines if _norm(s.text) and not any(_norm(s.text) in k for k in known))
    adequacy = TreeAdequacy.assess(screen)
    blind = adequacy.level == UNUSABLE or len(missing) >= PARTIAL_MIN_LINES
    return screen.with_seen_text(missing, blind=blind)
