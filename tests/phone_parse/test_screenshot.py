"""Screenshot validation on the real captures (and the real corrupted one)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from mika.cap.phone.screenshot import CorruptedScreenshot, SecureScreen, screen_capture, validate_png
from tests.real_fixtures import real_bytes


def test_real_pngs_validate_with_their_size() -> None:
    cap = screen_capture(real_bytes("screenshots/haoce__webview_reading_report.png"))
    assert (cap.width, cap.height) == (1080, 2400) and not cap.repaired
    wechat = screen_capture(real_bytes("screenshots/wechat__chat_list__u2_multiwindow.png"))
    assert wechat.width == 720


def test_real_utf16_corrupted_capture_is_a_clear_error() -> None:
    data = real_bytes("screenshots/CORRUPTED__screencap_png_through_powershell_utf16.png")
    with pytest.raises(CorruptedScreenshot) as info:
        screen_capture(data)
    message = str(info.value)
    assert "UTF-16" in message and "exec-out" in message


def test_crlf_mangled_capture_is_repaired() -> None:
    good = real_bytes("screenshots/wechat__group_chat__u2_multiwindow.png")
    mangled = good.replace(b"\n", b"\r\n")
    cap = validate_png(mangled)
    assert cap.repaired and cap.png == good
    with pytest.raises(CorruptedScreenshot, match="CR LF"):
        validate_png(mangled, repair_crlf=False)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "no bytes"),
        (b"GIF89a....", "PNG signature"),
        (None, "truncated"),
        (b"\x89PNG\r\r\n\x1a\r\n\x00garbage", "cannot be undone"),
    ],
)
def test_broken_bytes_name_the_fault(data, needle) -> None:
    if data is None:
        whole = real_bytes("screenshots/haoce__webview_reading_report.png")
        data = whole[: len(whole) // 2]
    with pytest.raises(CorruptedScreenshot, match=needle):
        validate_png(data)


def test_flipped_byte_fails_the_checksum() -> None:
    whole = bytearray(real_bytes("screenshots/wechat__chat_list__u2_multiwindow.png"))
    whole[len(whole) // 2] ^= 0xFF
    with pytest.raises(CorruptedScreenshot, match="checksum"):
        validate_png(bytes(whole))


def test_black_capture_is_secure_screen() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (1080, 2400), (0, 0, 0)).save(buf, "PNG")
    with pytest.raises(SecureScreen, match="Can't capture this screen"):
        screen_capture(buf.getvalue())
