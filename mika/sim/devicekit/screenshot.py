"""`device.screenshot`: the default display captured, cropped, shrunk and encoded in the phone.

As Screenshot.java does it: `clip` {x, y, width, height} is in screen points mapped to
pixels by `screenWidth` (required with a clip; clamped to the image, an error when fully
outside); `maxSize` caps max(width, height) and wins over `scale`; neither ever enlarges;
`format` is "png" or "jpeg" at `quality`. The answer is `{"data": base64}`. mobilecli
1.0.9 asks this first for every screenshot and falls back to `screencap -p` on an error.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from PIL import Image

from mika.sim.apps.frame import build_frame
from mika.sim.devicekit.rpc import INVALID_PARAMS, RpcError
from mika.sim.render.screen import render

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState


def _clip(image: Image.Image, clip: dict[str, Any], screen_width: int) -> Image.Image:
    x, y, width, height = (int(clip.get(k, 0)) for k in ("x", "y", "width", "height"))
    if width <= 0 or height <= 0:
        raise RpcError(INVALID_PARAMS, "clip width and height must be positive")
    if screen_width <= 0:
        raise RpcError(INVALID_PARAMS, "--screen-width is required with --clip")
    factor = image.width / screen_width
    left, top = max(0, round(x * factor)), max(0, round(y * factor))
    right, bottom = min(image.width, round((x + width) * factor)), min(image.height, round((y + height) * factor))
    if right <= left or bottom <= top:
        raise RpcError(INVALID_PARAMS, "clip rect is outside the screenshot bounds")
    return image.crop((left, top, right, bottom))


def _resize(image: Image.Image, scale: float, max_size: int) -> Image.Image:
    largest = max(image.size)
    factor = (1.0 if max_size >= largest else max_size / largest) if max_size > 0 else scale
    if factor <= 0 or factor >= 1:
        return image
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return image.resize(size, Image.Resampling.BILINEAR)


def capture(phone: PhoneState, params: dict[str, Any]) -> dict[str, str]:
    world = phone.world
    display = world.displays[0]
    image = render(build_frame(world, 0), display.size, display.lit(world.screen_on))
    clip = params.get("clip")
    if isinstance(clip, dict):
        image = _clip(image, clip, int(params.get("screenWidth") or 0))
    image = _resize(image, float(params.get("scale", 1.0) or 0), int(params.get("maxSize") or 0))
    fmt = "JPEG" if params.get("format", "png") == "jpeg" else "PNG"
    buf = io.BytesIO()
    image.save(buf, format=fmt, quality=int(params.get("quality", 90)))
    return {"data": base64.b64encode(buf.getvalue()).decode("ascii")}
