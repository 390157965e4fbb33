"""Text from pixels, for screens whose UI tree can't see everything (seed §5).

Uses rapidocr_onnxruntime; its detection/recognition models ship inside the wheel, so
nothing is downloaded. The engine takes one to three seconds to build (imports and model
load), so it is built once and shared (guarded by a lock: reads run in worker threads).
A run with a phone starts building it in a thread of its own when the run starts
(`warm`), so the first read that needs it finds it ready or nearly; a read that does not
need it (the tree sees the screen, or the picture is blank where it does not) never
waits for it. The build itself begins once the run's first model request is out
(mika.model.first_request): begun at once, it took the CPU the start-up needed and
delayed that request; the model's reply takes longer than the wait, so the first screen
still finds the engine building or built.

`read_text` returns lines top to bottom, each with its box, centre and score, after
dropping what is almost surely misread (seed `VisibleText`): low confidence, lines of
only symbols, and on a mostly-Chinese screen stray one- or two-character Latin/digit
fragments. `merge_ocr` adds to a `Screen` only the lines its tree lacks.
"""

from __future__ import annotations

import atexit
import logging
import re
import threading
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage

from mika.cap.phone.picture import Picture
from mika.model.first_request import wait_for_first_request
from mika.uistate.adequacy import PARTIAL_MIN_LINES, UNUSABLE, TreeAdequacy
from mika.uistate.screen import Screen
from mika.uistate.seen_text import SeenText
from mika.uistate.tree import Bounds

log = logging.getLogger(__name__)

MIN_SCORE = 0.5
EXIT_WAIT_S = 60.0  # the longest a process's exit waits for a warm-up's build
# The longest a warm-up waits for the first model request before it builds anyway (a
# scripted model sends none).
WARM_AFTER_S = 2.0
_POLL_S = 0.05  # how soon a waiting warm-up notices that the process is ending
_WS = re.compile(r"\s+")


class OcrUnavailable(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(f"Reading text from the screenshot is not available here: {detail}.")


def _rapidocr() -> Any:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:  # the wheel is a declared dependency; a broken env says so
        raise OcrUnavailable(f"rapidocr_onnxruntime could not be imported ({exc})") from None
    return RapidOCR()


class OcrEngine:
    """One rapidocr engine, built once: in the background by `warm`, or by the first read."""

    def __init__(self, build: Callable[[], Any] = _rapidocr) -> None:
        self._build = build
        self._engine: Any = None
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None
        self.built_in = ""  # the thread that built it (the warm-up's, or a reader's)
        self.build_ms = 0.0
        self._exiting = threading.Event()

    @property
    def ready(self) -> bool:
        return self._engine is not None

    def _get(self) -> Any:
        # A read that comes while the warm-up builds waits here for that build, never a second one.
        with self._lock:
            if self._engine is None:
                started = time.perf_counter()
                self._engine = self._build()
                self.build_ms = (time.perf_counter() - started) * 1000
                self.built_in = threading.current_thread().name
                log.info("OCR engine built in %.0f ms (%s)", self.build_ms, self.built_in)
            return self._engine

    def warm(self) -> threading.Thread | None:
        """Start building the engine in a daemon thread, off the event loop; None when it
        is built or being built already."""
        with self._lock:
            if self._engine is not None or self._warming is not None:
                return None
            self._warming = threading.Thread(target=self._warm, name="ocr-warm", daemon=True)
        self._warming.start()
        # A process that ends while onnxruntime is still building its session in this
        # thread aborts in C++ ("terminate called without an active exception", exit 134)
        # as the runtime is torn down under it: a quick run must wait for the build to end.
        atexit.register(self._at_exit)
        return self._warming

    def _at_exit(self) -> None:
        self._exiting.set()  # a warm-up still waiting to begin does not begin
        if self._warming is not None:
            self._warming.join(EXIT_WAIT_S)

    def _warm(self) -> None:
        deadline = time.monotonic() + WARM_AFTER_S
        while not wait_for_first_request(_POLL_S) and time.monotonic() < deadline:
            if self._exiting.is_set():
                return
        if self._exiting.is_set():
            return
        try:
            self._get()
        except Exception as exc:  # the read that needs it says so; a warm-up has no one to tell
            log.warning("OCR engine could not be built ahead: %s", exc)

    def read_text(self, image: bytes | Picture | PILImage.Image) -> tuple[SeenText, ...]:
        engine = self._get()
        # A Picture is read as the pixels it already holds: rapidocr takes a PIL image as is.
        pixels = image.image if isinstance(image, Picture) else image
        with self._lock:  # onnxruntime sessions are shared; one read at a time
            result, _ = engine(pixels)
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


def read_text(image: bytes | Picture | PILImage.Image) -> tuple[SeenText, ...]:
    """Lines of text in a picture (a decoded capture, or PNG/JPEG bytes), top to bottom,
    using the shared engine."""
    return _default.read_text(image)


def warm() -> threading.Thread | None:
    """Start building the shared engine in the background (a run with a phone starts)."""
    return _default.warm()


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
