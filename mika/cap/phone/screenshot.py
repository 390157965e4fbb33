"""Checking the bytes of `adb exec-out screencap -p` before anyone treats them as a picture.

Two real failures are told apart from a good capture:

* mangled bytes — a capture piped through a text-mode shell: UTF-16LE re-encoding with
  a BOM (a PowerShell `>` redirect, see the CORRUPTED sample in the fixtures), or every
  `\\n` turned into `\\r\\n` (old `adb shell` with a pty). CRLF mangling is undone and
  re-checked when possible; UTF-16 is not reversible and is an error.
* an all-black capture — Android blanks secure windows (banking, passwords, DRM) in
  screenshots; that is "can't capture this screen", not an image of the screen.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass, field

from PIL import Image, UnidentifiedImageError

from mika.cap.phone.picture import Picture

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_CRLF_MAGIC = b"\x89PNG\r\r\n\x1a\r\n"


class ScreenshotError(Exception):
    """The capture is not a usable picture of the screen."""


class CorruptedScreenshot(ScreenshotError):
    def __init__(self, reason: str, fix: str) -> None:
        self.reason = reason
        super().__init__(f"The screenshot is not a valid PNG: {reason}. {fix}")


class SecureScreen(ScreenshotError):
    def __init__(self) -> None:
        super().__init__(
            "Can't capture this screen: the phone returned a black picture, which is what Android "
            "does for secure windows (payments, passwords, protected video). Read the screen's "
            "elements instead, or ask the user to look."
        )


@dataclass(frozen=True)
class Capture:
    png: bytes
    width: int
    height: int
    repaired: bool = False  # CRLF mangling was undone
    # The pixels, decoded by the check itself: nobody decodes `png` again (mika.cap.phone.picture).
    image: Image.Image | None = field(default=None, compare=False, repr=False)

    def picture(self) -> Picture:
        assert self.image is not None
        return Picture(self.image, repaired=self.repaired)


_PIPE_FIX = "Capture with `adb exec-out screencap -p` and keep the bytes binary (no shell redirect, no text-mode pipe)."


def _check_png(data: bytes) -> Image.Image:
    """Walk the chunks (CRC checked) and decode; raise CorruptedScreenshot on any fault.
    The decoded picture is the one every later use reads."""
    if not data.startswith(PNG_MAGIC):
        raise CorruptedScreenshot("it does not start with the PNG signature", _PIPE_FIX)
    pos = len(PNG_MAGIC)
    seen_end = False
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise CorruptedScreenshot(f"it is truncated inside the {kind!r} chunk", "Take the screenshot again.")
        crc = int.from_bytes(data[end - 4 : end], "big")
        if zlib.crc32(data[pos + 4 : end - 4]) & 0xFFFFFFFF != crc:
            raise CorruptedScreenshot(f"the {kind!r} chunk fails its checksum", _PIPE_FIX)
        pos = end
        if kind == b"IEND":
            seen_end = True
            break
    if not seen_end:
        raise CorruptedScreenshot("it ends before the PNG's end marker", "Take the screenshot again.")
    try:
        img = Image.open(io.BytesIO(data))
        img.load()  # reads every pixel: a fault in the data shows here, and the bytes are done with
        return img
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise CorruptedScreenshot(f"its pixels cannot be decoded ({exc})", "Take the screenshot again.") from None


def validate_png(data: bytes, *, repair_crlf: bool = True) -> Capture:
    if not data:
        raise CorruptedScreenshot(
            "the phone returned no bytes", "Check that the device is awake and connected, then try again."
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise CorruptedScreenshot("it was re-encoded as UTF-16 text (it starts with a byte-order mark)", _PIPE_FIX)
    if data.startswith(_CRLF_MAGIC):
        if not repair_crlf:
            raise CorruptedScreenshot("every line feed was turned into CR LF", _PIPE_FIX)
        fixed = data.replace(b"\r\n", b"\n")
        try:
            img = _check_png(fixed)
        except CorruptedScreenshot:
            raise CorruptedScreenshot(
                "every line feed was turned into CR LF and it cannot be undone", _PIPE_FIX
            ) from None
        return Capture(fixed, img.width, img.height, repaired=True, image=img)
    img = _check_png(data)
    return Capture(data, img.width, img.height, image=img)


def screen_capture(data: bytes) -> Capture:
    """A validated, non-black capture, or the error that says why not."""
    capture = validate_png(data)
    if capture.picture().black_in():
        raise SecureScreen()
    return capture


def screen_picture(data: bytes) -> Picture:
    """The PNG the phone sent, checked and decoded once; SecureScreen when it is black."""
    capture = validate_png(data)
    picture = capture.picture()
    if picture.black_in():
        raise SecureScreen()
    return picture


def jpeg_picture(data: bytes) -> Picture:
    """A JPEG the phone encoded itself (a small capture for a model), decoded once;
    CorruptedScreenshot when it is not one, SecureScreen when it is black."""
    if not data.startswith(b"\xff\xd8"):
        raise CorruptedScreenshot("it does not start with the JPEG signature", "Take the screenshot again.")
    try:
        with Image.open(io.BytesIO(data)) as opened:
            image = opened.convert("RGB")
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise CorruptedScreenshot(f"it cannot be decoded as JPEG ({exc})", "Take the screenshot again.") from None
    picture = Picture(image)
    if picture.black_in():
        raise SecureScreen()
    return picture


def frame_picture(image: Image.Image) -> Picture:
    """A decoded video frame of the agent's display as a capture (no PNG in between)."""
    picture = Picture(image)
    if picture.black_in():
        raise SecureScreen()
    return picture
