"""Is anything drawn where the tree names nothing? A look at the pixels before OCR.

A large blank area is one reason the tree may miss text (`TreeAdequacy`), but a sparse
page (Settings' Wi-Fi page with Wi-Fi off: a switch, one line, then empty background) is
blank in the picture too. Reading it with OCR costs seconds on a laptop, on every such
page, and finds nothing. When every blank cell is one flat colour there is no text to
read; any drawing there (text, an icon, a picture, a divider) keeps the OCR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from mika.cap.phone.picture import Picture
from mika.uistate.tree import Bounds

# Largest spread of grey levels (0–255) in a cell that still counts as one flat colour:
# JPEG-free PNG captures of a plain background are exact; this allows for dithering and
# a soft shadow edge, while the faintest readable text differs from its background by far more.
FLAT_SPREAD = 12


def nothing_drawn(picture: Picture, cells: Sequence[Bounds], screen_size: tuple[int, int] | None) -> bool:
    """True when every cell (screen coordinates) is a single flat colour in the picture."""
    if not cells:
        return False
    grey = picture.grey  # shared with the black checks and kept for OCR: no decode here
    sx = grey.width / screen_size[0] if screen_size else 1.0
    sy = grey.height / screen_size[1] if screen_size else 1.0
    for cell in cells:
        box = (
            max(0, int(cell.left * sx)),
            max(0, int(cell.top * sy)),
            min(grey.width, int(cell.right * sx)),
            min(grey.height, int(cell.bottom * sy)),
        )
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        low, high = cast(tuple[int, int], grey.crop(box).getextrema())
        if high - low > FLAT_SPREAD:
            return False
    return True
