"""PNG → terminal cells with the upper-half block: two pixels per cell, in every terminal.

Runs off the UI thread (the preview's worker); the result is a list of Strips the
Line-API widget hands out row by row. Styles are cached per colour pair, since Rich
Style construction dominates the cost otherwise.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

HALF = "▀"


@lru_cache(maxsize=8192)
def _style(top: tuple[int, int, int], bottom: tuple[int, int, int]) -> Style:
    return Style(color=Color.from_rgb(*top), bgcolor=Color.from_rgb(*bottom))


def fit(size: tuple[int, int], cells: tuple[int, int]) -> tuple[int, int]:
    """The largest cell box (width, height) that keeps the picture's aspect ratio;
    a cell is one pixel wide and two tall."""
    width, height = size
    max_w, max_h = max(1, cells[0]), max(1, cells[1])
    scale = min(max_w / width, (max_h * 2) / height)
    return max(1, int(width * scale)), max(1, int(height * scale / 2))


def to_strips(png: bytes | Image.Image, cells: tuple[int, int]) -> list[Strip]:
    image = png if isinstance(png, Image.Image) else Image.open(io.BytesIO(png))
    image = image.convert("RGB")
    w, h = fit(image.size, cells)
    # Quantise to 6 bits a channel: invisible at this size, and it keeps the style cache hot.
    small = image.resize((w, h * 2), Image.Resampling.BILINEAR).point(lambda v: v & 0xFC)
    pixels = small.load()
    assert pixels is not None  # load() of an in-memory image always gives its pixels
    strips: list[Strip] = []
    for row in range(h):
        segments: list[Segment] = []
        last = None
        run = 0
        for x in range(w):
            pair = (pixels[x, row * 2], pixels[x, row * 2 + 1])
            if pair == last:
                run += 1
                continue
            if last is not None:
                segments.append(Segment(HALF * run, _style(*last)))
            last, run = pair, 1
        if last is not None:
            segments.append(Segment(HALF * run, _style(*last)))
        strips.append(Strip(segments, w))
    return strips
