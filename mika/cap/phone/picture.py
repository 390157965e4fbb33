"""One capture of a display, decoded once.

The phone sends a PNG (`screencap -p`), or the agent's display gives a decoded video
frame. Everything Mika does with the picture — the black-screen checks, the empty-area
look before OCR, OCR itself, the picture a model gets — reads this one decoded image:
a 1080×2400 PNG costs tens of milliseconds to decode, and a screenshot used to be
decoded four times and a crop of it encoded once (issue 35).
"""

from __future__ import annotations

from typing import cast

from PIL import Image

BLACK_MAX = 10  # brightest pixel of a "black" capture (0–255), allowing for dithering
_BLACK_LOOK = 96  # the black check looks at a ~96 px thumbnail: one bright speck is noise


class Picture:
    """A decoded capture (RGB or greyscale) and the grey copy the checks share."""

    __slots__ = ("_grey", "image", "repaired")

    def __init__(self, image: Image.Image, *, repaired: bool = False) -> None:
        # RGBA (what screencap sends) is flattened once: JPEG, OCR and the checks want RGB.
        self.image = image if image.mode in ("RGB", "L") else image.convert("RGB")
        self.repaired = repaired  # the PNG's CRLF mangling was undone (mika.cap.phone.screenshot)
        self._grey: Image.Image | None = None

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    @property
    def width(self) -> int:
        return self.image.width

    @property
    def height(self) -> int:
        return self.image.height

    @property
    def grey(self) -> Image.Image:
        """The picture in grey levels, made on first use and kept for every later look."""
        if self._grey is None:
            self._grey = self.image if self.image.mode == "L" else self.image.convert("L")
        return self._grey

    def black_in(self, box: tuple[int, int, int, int] | None = None) -> bool:
        """Is the picture (or the box of it, in its own pixels) black?"""
        grey = self.grey if box is None else self.grey.crop(box)
        # Averaged down to about _BLACK_LOOK (a new image: the shared grey stays whole).
        small = grey.reduce(max(1, -(-max(grey.size) // _BLACK_LOOK)))
        # One band ("L"), so getextrema() is one (min, max) pair, not one per band.
        _low, high = cast(tuple[int, int], small.getextrema())
        return high <= BLACK_MAX
