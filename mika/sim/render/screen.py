"""Paints a frame's windows with Pillow, deterministically, from the same Nodes the
accessibility dumps come from: each text is drawn inside its node's bounds, so OCR on
the picture finds what the tree says (and canvas pages show text the tree hides)."""

from __future__ import annotations

import io
import os
import re
import struct
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from mika.sim.world.node import Node, Window

# Latin words (with their trailing space) wrap whole; CJK characters wrap one by one.
_TOKENS = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]+\s*|\s+")

# The simulated phone paints with Noto Sans CJK SC from the noto-cjk-sans-otc wheel (a
# dependency), so its screens look the same on every machine and need no system font.
# MIKA_SIM_FONT names another .ttf/.ttc/.otf to use instead; system fonts are never
# searched, so a font installed on one machine cannot change what the tests see.
FONT_ENV = "MIKA_SIM_FONT"
_BUNDLED_FACE = "Noto Sans CJK SC"


class RenderFontError(RuntimeError):
    """The CJK font the simulated phone paints with is missing or unreadable."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(
            f"the simulated phone cannot paint its screen with the font {path} ({why}); "
            f"point {FONT_ENV} at a .ttf/.ttc/.otf with Chinese glyphs, or unset it to use the "
            "bundled Noto Sans CJK (reinstall with `uv sync` if the noto-cjk-sans-otc package is missing)"
        )


@lru_cache(maxsize=1)
def font_source() -> tuple[str, int]:
    """(file, face index) of the font the screens are painted with."""
    chosen = os.environ.get(FONT_ENV, "").strip()
    if chosen:
        if not os.path.isfile(chosen):
            raise RenderFontError(chosen, f"{FONT_ENV} names a file that does not exist")
        return chosen, 0
    try:
        import noto_cjk_sans_otc
    except ImportError as exc:
        raise RenderFontError("Noto Sans CJK", "the noto-cjk-sans-otc package is not installed") from exc
    path = str(noto_cjk_sans_otc.FONT_PATH)
    # The collection holds JP, KR, SC, TC and HK faces; pick Simplified Chinese by name.
    for index in range(16):
        try:
            face = ImageFont.truetype(path, 12, index=index)
        except OSError:
            break
        if face.getname()[0] == _BUNDLED_FACE:
            return path, index
    raise RenderFontError(path, f"it holds no {_BUNDLED_FACE} face")


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    path, index = font_source()
    try:
        return ImageFont.truetype(path, size, index=index)
    except OSError as exc:
        raise RenderFontError(path, f"Pillow cannot read it: {exc}") from exc


LIGHT = {
    "bg": (255, 255, 255),
    "fg": (32, 33, 36),
    "muted": (95, 99, 104),
    "bar": (241, 243, 244),
    "line": (218, 220, 224),
    "accent": (26, 115, 232),
    "field": (248, 249, 250),
    "in": (236, 236, 236),
    "out": (149, 236, 105),
}
DARK = {
    "bg": (18, 18, 18),
    "fg": (232, 234, 237),
    "muted": (154, 160, 166),
    "bar": (32, 33, 36),
    "line": (60, 64, 67),
    "accent": (138, 180, 248),
    "field": (40, 42, 45),
    "in": (48, 49, 52),
    "out": (38, 120, 60),
}


def _box(bounds: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Node bounds are half-open [l, r); Pillow's boxes include their last pixel."""
    left, top, right, bottom = bounds
    return left, top, max(left, right - 1), max(top, bottom - 1)


def _text(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    align: str = "left",
    valign: str = "middle",
    wrap: bool = True,
) -> None:
    left, top, right, bottom = box
    if not text or right <= left or bottom <= top:
        return
    f = font(size)
    width = right - left
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for token in _TOKENS.findall(para):
            if f.getlength(line + token) <= width or not line:
                line += token
                while f.getlength(line) > width and len(line) > 1:
                    # one token wider than the box (a long URL): break it by characters
                    cut = len(line) - 1
                    while cut > 1 and f.getlength(line[:cut]) > width:
                        cut -= 1
                    if not wrap:
                        line = line[:cut]
                        break
                    lines.append(line[:cut])
                    line = line[cut:]
                continue
            if not wrap:
                break
            lines.append(line.rstrip())
            line = token.lstrip()
        lines.append(line)
    step = int(size * 1.34)
    max_lines = max(1, (bottom - top) // step)
    lines = lines[:max_lines]
    total = step * len(lines)
    y = top + ((bottom - top - total) // 2 if valign == "middle" else 0)
    for line in lines:
        w = f.getlength(line)
        x = left if align == "left" else left + (width - w) / 2 if align == "center" else right - w
        draw.text((x, y + (step - size) // 2), line, font=f, fill=fill)
        y += step


def _paint(
    draw: ImageDraw.ImageDraw, node: Node, c: dict[str, tuple[int, int, int]]
) -> dict[str, tuple[int, int, int]]:
    role = node.role
    l, t, r, b = node.bounds  # noqa: E741 (left, top, right, bottom)
    if r <= l or b <= t:
        return c
    if role == "page":
        if node.style == "dark":
            c = DARK
        elif node.style == "home":
            c = {**DARK, "bg": (27, 58, 92)}
        draw.rectangle(_box(node.bounds), fill=c["bg"])
    elif role == "window":
        draw.rectangle(_box(node.bounds), fill=c["bg"])
    elif role == "bar":
        draw.rectangle(_box(node.bounds), fill=c["bar"])
    elif role == "title":
        _text(draw, (l + 24, t, r, b), node.text, 56, c["fg"], wrap=False)
    elif role == "icon":
        _text(draw, node.bounds, node.paint, 60, c["fg"], align="center", wrap=False)
    elif role == "row":
        draw.line((l + 48, b - 1, r - 48, b - 1), fill=c["line"], width=2)
    elif role == "row_title":
        _text(draw, node.bounds, node.text, 46, c["fg"], wrap=False)
    elif role == "row_sub":
        _text(draw, node.bounds, node.text, 36, c["muted"], wrap=False)
    elif role == "switch":
        track = c["accent"] if node.checked else c["line"]
        draw.rounded_rectangle((l + 20, t + 20, r - 20, b - 20), radius=(b - t) // 2, fill=track)
        d = b - t - 20
        x = r - 30 - d if node.checked else l + 30
        draw.ellipse((x, t + 10, x + d, t + 10 + d), fill=(255, 255, 255), outline=c["line"])
    elif role == "check":
        box = (l, t + (b - t) // 2 - 30, l + 60, t + (b - t) // 2 + 30)
        draw.rectangle(box, outline=c["accent"], width=5, fill=c["accent"] if node.checked else None)
        if node.checked:
            draw.line(
                (box[0] + 12, box[1] + 30, box[0] + 26, box[1] + 46, box[0] + 50, box[1] + 14),
                fill=(255, 255, 255),
                width=7,
            )
        _text(draw, (l + 90, t, r, b), node.text, 44, c["fg"], wrap=False)
    elif role == "field":
        draw.rounded_rectangle(
            _box(node.bounds),
            radius=16,
            fill=c["field"],
            outline=c["accent"] if node.focused else c["line"],
            width=4 if node.focused else 2,
        )
        shown = node.paint or node.hint
        colour = c["fg"] if node.paint else c["muted"]
        _text(draw, (l + 30, t + 8, r - 30, b - 8), shown, 44, colour)
        if node.focused:
            caret = l + 30 + (font(44).getlength(node.paint.split("\n")[-1]) if node.paint else 0)
            draw.line((caret + 4, t + 30, caret + 4, b - 30), fill=c["accent"], width=4)
    elif role == "button":
        if node.style == "flat":
            _text(draw, node.bounds, node.text, 44, c["accent"], align="center", wrap=False)
        else:
            fill = c["accent"] if node.enabled else c["line"]
            if node.style == "danger":
                fill = (217, 48, 37)
            draw.rounded_rectangle(_box(node.bounds), radius=(b - t) // 2, fill=fill)
            _text(draw, node.bounds, node.text, 46, (255, 255, 255), align="center", wrap=False)
    elif role == "text":
        _paint_text(draw, node, c)
    elif role == "bubble":
        draw.rounded_rectangle(_box(node.bounds), radius=24, fill=c["out"] if node.style == "out" else c["in"])
    elif role in ("bubble_text",):
        _text(draw, node.bounds, node.text, 42, (20, 20, 20) if c is LIGHT else c["fg"], valign="top")
    elif role == "sender":
        _text(draw, node.bounds, node.text, 34, c["muted"], wrap=False)
    elif role == "canvas":
        draw.rectangle(_box(node.bounds), fill=(250, 248, 240))
        _text(draw, (l + 60, t + 60, r - 60, b - 60), node.paint, 52, (30, 30, 30), valign="top")
    elif role == "wheel_pixels":
        # an app's own wheel: one value per row, the middle one dark, the rest muted
        row = int((node.wheel or {}).get("row", 110))
        for i, line in enumerate(node.paint.split("\n")):
            if line:
                colour = c["fg"] if i == 2 else c["muted"]
                _text(draw, (l + 30, t + i * row, r - 30, t + (i + 1) * row), line, 48, colour, valign="middle")
    elif role == "image":
        draw.rectangle(_box(node.bounds), fill=(200, 205, 210))
        if node.paint:
            _text(draw, node.bounds, node.paint, 72, (60, 60, 60), align="center")
    elif role == "progress":
        draw.arc(_box(node.bounds), start=30, end=300, fill=c["accent"], width=14)
    elif role == "status":
        draw.rectangle(_box(node.bounds), fill=c["bar"] if c is not LIGHT else (232, 234, 237))
    elif role == "status_text":
        _text(draw, node.bounds, node.text, 40, c["fg"], wrap=False)
    elif role == "glyph":
        _text(draw, node.bounds, node.paint, 32, c["fg"], align="center", wrap=False)
    elif role == "keyboard":
        draw.rectangle(_box(node.bounds), fill=(232, 234, 237))
    elif role == "key":
        draw.rounded_rectangle((l + 6, t, r - 6, b), radius=12, fill=(255, 255, 255))
        _text(draw, (l, t, r, b), node.paint, 48, (32, 33, 36), align="center", wrap=False)
    elif role == "dialog":
        draw.rounded_rectangle(_box(node.bounds), radius=36, fill=c["bg"], outline=c["line"], width=3)
    elif role == "toolbar":
        draw.rounded_rectangle(_box(node.bounds), radius=24, fill=c["bg"], outline=c["line"], width=3)
    elif role == "toast":
        draw.rounded_rectangle(_box(node.bounds), radius=50, fill=(60, 64, 67))
    elif role == "shade":
        draw.rectangle(_box(node.bounds), fill=(32, 33, 36))
        c = DARK
    elif role == "tile":
        draw.rounded_rectangle(_box(node.bounds), radius=40, fill=(138, 180, 248) if node.checked else (60, 64, 67))
        _text(draw, (l + 30, t, r - 20, b), node.text, 38, (32, 33, 36) if node.checked else (232, 234, 237))
    elif role == "notification":
        draw.rounded_rectangle(_box(node.bounds), radius=30, fill=(48, 49, 52))
    elif role == "keyguard":
        draw.rectangle(_box(node.bounds), fill=(20, 24, 40))
        c = DARK
    return c


def _paint_text(draw: ImageDraw.ImageDraw, node: Node, c: dict[str, tuple[int, int, int]]) -> None:
    l, t, r, b = node.bounds  # noqa: E741 (left, top, right, bottom)
    style = node.style
    if style == "icon":
        cx = (l + r) // 2
        draw.ellipse((cx - 80, t + 30, cx + 80, t + 190), fill=_colour_for(node.text))
        _text(draw, (cx - 80, t + 30, cx + 80, t + 190), node.text[:1], 80, (255, 255, 255), align="center", wrap=False)
        _text(draw, (l + 4, t + 200, r - 4, b - 10), node.text, 36, (255, 255, 255), align="center", wrap=False)
        return
    size = {"big": 64, "huge": 180, "muted": 40, "shade_muted": 34}.get(style, 42)
    colour = (
        c["muted"]
        if style in ("muted", "shade_muted")
        else (255, 255, 255)
        if style in ("center_light", "shade")
        else c["fg"]
    )
    align = "center" if style in ("center", "huge", "center_light") else "left"
    _text(draw, node.bounds, node.text, size, colour, align=align, valign="middle")


def _colour_for(label: str) -> tuple[int, int, int]:
    palette = [
        (26, 115, 232),
        (52, 168, 83),
        (234, 67, 53),
        (251, 188, 4),
        (103, 58, 183),
        (0, 150, 136),
        (255, 112, 67),
        (96, 125, 139),
    ]
    return palette[sum(label.encode("utf-8")) % len(palette)]


def _walk_paint(draw: ImageDraw.ImageDraw, node: Node, c: dict[str, tuple[int, int, int]]) -> None:
    c = _paint(draw, node, c)
    for child in node.children:
        _walk_paint(draw, child, c)


def render(windows: list[Window], size: tuple[int, int], screen_on: bool = True, dark: bool = False) -> Image.Image:
    image = Image.new("RGB", size, (0, 0, 0))
    if not screen_on:
        return image
    draw = ImageDraw.Draw(image)
    base = DARK if dark else LIGHT
    for window in windows:
        if window.kind == "dialog":
            # the dim behind a modal dialog
            overlay = Image.new("RGB", size, (0, 0, 0))
            image = Image.blend(image, overlay, 0.45)
            draw = ImageDraw.Draw(image)
        if window.secure:
            # FLAG_SECURE: the compositor leaves the layer black in screenshots.
            draw.rectangle(_box(window.root.bounds), fill=(0, 0, 0))
            continue
        _walk_paint(draw, window.root, base)
    return image


def png_bytes(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def raw_bytes(image: Image.Image) -> bytes:
    """`screencap` without -p: width, height, format (1 = RGBA_8888), dataspace (sRGB), pixels."""
    rgba = image.convert("RGBA")
    w, h = rgba.size
    return struct.pack("<IIII", w, h, 1, 1) + rgba.tobytes()
