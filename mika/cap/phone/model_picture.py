"""The picture of the screen a model gets: scaled to what its vision uses, as WebP (or
JPEG), with the map from its pixels back to the screen's.

A full 1080×2400 PNG is ~120 KB (~164 KB in base64) per screenshot, and providers scale
big pictures down themselves before the model sees them (so the model's coordinates
are in *their* picture, not ours). Mika sends the long side at most `[phone]
picture_long_side` pixels (default 1024, as 461×1024 for a 1080×2400 screen: UI text
stays legible and every provider takes it as it is), encoded as `[phone] picture_format`
says — WebP by default, about half JPEG's bytes for the same screen — and keeps
`PictureScale`: a point or box the model names on the picture maps back to the screen
coordinates every tap uses (`phone_tap x y on_picture`, `phone_find_visually`'s box).

Screen coordinates are the tree's (what the listing and every tool use). They can differ
from the capture's own pixels (`wm size` overrides, a video frame smaller than its
display), so the scale goes from the picture sent to the screen, whatever lay between.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image as PILImage

from mika.cap.phone.picture import Picture
from mika.model.messages import Image

LONG_SIDE = 1024  # default of `[phone] picture_long_side`
LONG_SIDE_RANGE = (320, 4096)
FORMAT = "webp"  # default of `[phone] picture_format`
JPEG_QUALITY = 80  # UI text stays crisp at 80; above it the bytes grow fast for nothing a model sees
# WebP at 50 keeps UI text as crisp as JPEG at 80 in ~0.45 of its bytes (measured on the
# sim's and the real fixtures' screens); method 2 of 0–6 is ~12 ms for 461×1024 against
# ~30 ms for 3–6, which save only 5% more.
WEBP_QUALITY = 50
WEBP_METHOD = 2


@dataclass(frozen=True)
class PictureScale:
    """Pixels of one picture sent to a model ↔ screen coordinates."""

    picture: tuple[int, int]  # width, height of the picture sent
    screen: tuple[int, int]  # width, height of the screen in tap coordinates

    @property
    def sx(self) -> float:
        return self.screen[0] / self.picture[0]

    @property
    def sy(self) -> float:
        return self.screen[1] / self.picture[1]

    def to_screen(self, x: float, y: float) -> tuple[int, int]:
        """The screen point under picture pixel (x, y): the middle of the screen area that
        pixel was made from, so a pixel the model names is never rounded onto its neighbour."""
        sx_, sy_ = self.sx, self.sy
        px = min(max(int((math.floor(x) + 0.5) * sx_), 0), self.screen[0] - 1)
        py = min(max(int((math.floor(y) + 0.5) * sy_), 0), self.screen[1] - 1)
        return px, py

    def box_to_screen(self, left: float, top: float, right: float, bottom: float) -> tuple[int, int, int, int]:
        """A box of picture pixels (right/bottom exclusive) as the screen area it covers."""
        return (
            math.floor(left * self.sx),
            math.floor(top * self.sy),
            min(math.ceil(right * self.sx), self.screen[0]),
            min(math.ceil(bottom * self.sy), self.screen[1]),
        )

    def to_picture(self, x: float, y: float) -> tuple[int, int]:
        """The picture pixel a screen point falls in (what a test or a hint shows the model)."""
        return (
            min(int(x / self.sx), self.picture[0] - 1),
            min(int(y / self.sy), self.picture[1] - 1),
        )

    def words(self) -> str:
        w, h = self.picture
        sw, sh = self.screen
        if (w, h) == (sw, sh):
            return f"{w}x{h} pixels, the screen's own coordinates"
        return f"{w}x{h} pixels of the {sw}x{sh} screen"


@dataclass(frozen=True)
class ModelPicture:
    image: Image
    scale: PictureScale


def fit(size: tuple[int, int], long_side: int) -> tuple[int, int]:
    """`size` shrunk (never grown) so its long side is at most `long_side`, aspect kept."""
    w, h = size
    factor = long_side / max(w, h)
    if factor >= 1:
        return w, h
    return max(1, round(w * factor)), max(1, round(h * factor))


def for_model(
    picture: Picture, screen: tuple[int, int] | None = None, long_side: int = LONG_SIDE, fmt: str = FORMAT
) -> ModelPicture:
    """The picture as a model gets it: scaled, WebP or JPEG (`fmt`), with its scale to
    `screen` (default: the capture's own size). Runs in a worker thread: it is tens of
    milliseconds of CPU."""
    size = fit(picture.size, long_side)
    image = picture.image
    if size != image.size:
        # Area averaging: every screen pixel counts once, thin text strokes stay visible, and
        # it costs a third of LANCZOS (~10 ms against ~36 ms for 1080x2400 → 576x1280).
        image = image.resize(size, PILImage.Resampling.BOX)
    out = io.BytesIO()
    if fmt == "webp":
        image.save(out, format="WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
        media = "image/webp"
    else:
        image.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=False)
        media = "image/jpeg"
    return ModelPicture(Image(out.getvalue(), media), PictureScale(size, screen or picture.size))
