"""How images travel in requests, and what a model that can't see gets instead."""

from __future__ import annotations

import base64

from mika.model.messages import Image

NO_VISION_PLACEHOLDER = "[An image was here; this model cannot see images.]"


def b64(image: Image) -> str:
    return base64.b64encode(image.data).decode("ascii")


def data_url(image: Image) -> str:
    return f"data:{image.mime};base64,{b64(image)}"
