"""Observation is lean (issue 35): a screenshot is decoded once, the model gets it scaled
(long side ≤ `[phone] picture_long_side`) as WebP (or JPEG, `[phone] picture_format`), and a point it names on that picture
lands on the element it shows.

Real captures from the fixtures, and the simulated phone through a real adb server. The
decode count wraps PIL's own decoder factory: it counts, it changes nothing.
"""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image as PILImage
from real_fixtures import real_bytes

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.empty_area import nothing_drawn
from mika.cap.phone.model_picture import PictureScale, fit, for_model
from mika.cap.phone.screenshot import screen_picture
from mika.cap.phone.tools.observe import app_window_black
from mika.config.errors import ConfigError
from mika.config.settings import parse_settings
from mika.model.messages import Image
from mika.uistate import Bounds, build_screen, parse_hierarchy
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, world_state

REAL = [
    ("screenshots/haoce__webview_reading_report.png", "ui_dumps/haoce__webview_reading_report.xml"),
    ("screenshots/wechat__chat_list__u2_multiwindow.png", "ui_dumps/wechat__chat_list__u2_multiwindow.xml"),
]


@pytest.fixture
def decodes(monkeypatch) -> list[str]:
    """Every image decode in this process while the test runs (the decoder's name)."""
    seen: list[str] = []
    real = PILImage._getdecoder

    def counting(mode, decoder_name, args, extra=()):
        seen.append(decoder_name)
        return real(mode, decoder_name, args, extra)

    monkeypatch.setattr(PILImage, "_getdecoder", counting)
    return seen


@pytest.mark.parametrize(("shot", "dump"), REAL, ids=lambda p: p.split("/")[-1].split("__")[0])
def test_a_real_capture_is_decoded_once_for_every_look_and_sent_small(shot, dump, decodes) -> None:
    png = real_bytes(shot)
    picture = screen_picture(png)
    assert decodes == ["zip"], "one PNG decode (zlib), by the validity check itself"
    screen = build_screen(parse_hierarchy(real_bytes(dump).decode("utf-8")), size=picture.size)
    # The looks that used to decode the PNG again: the app-window black check, the
    # empty-area look before OCR, and the picture for the model.
    assert not app_window_black(picture, screen)
    nothing_drawn(picture, [Bounds(0, 0, 100, 100)], picture.size)
    sent = for_model(picture, picture.size)
    as_jpeg = for_model(picture, picture.size, fmt="jpeg")
    assert decodes == ["zip"], f"no second decode: {decodes}"
    data = sent.image.data
    assert sent.image.mime == "image/webp" and data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    assert as_jpeg.image.mime == "image/jpeg" and as_jpeg.image.data[:2] == b"\xff\xd8"
    w, h = sent.scale.picture
    assert max(w, h) == 1024 and abs(w / h - picture.width / picture.height) < 0.002
    assert as_jpeg.scale == sent.scale
    assert len(data) * 8 < len(png), f"{len(data)} bytes of WebP against {len(png)} of PNG"
    # The default is the smaller: at most about half of what JPEG takes for the same screen.
    assert len(data) < 0.6 * len(as_jpeg.image.data), (len(data), len(as_jpeg.image.data))
    for image in (sent.image, as_jpeg.image):
        with PILImage.open(io.BytesIO(image.data)) as back:
            assert back.size == (w, h)
    assert sent.scale.screen == picture.size


def test_a_picture_point_maps_back_inside_the_element_it_shows() -> None:
    # The real WeChat screen (720x1608 → 573x1280, scale 1.2565 x 1.25625): for every
    # listed element, every picture pixel wholly inside its box on the picture maps back
    # into its screen bounds, and the last pixel wholly left of the box maps outside them.
    xml = real_bytes("ui_dumps/wechat__chat_list__u2_multiwindow.xml").decode("utf-8")
    screen = build_screen(parse_hierarchy(xml), size=(720, 1608))
    scale = PictureScale(fit((720, 1608), 1280), (720, 1608))
    assert scale.picture == (573, 1280)
    checked = 0
    for e in screen.elements:
        b = e.bounds
        first = (math.ceil(b.left / scale.sx), math.ceil(b.top / scale.sy))
        last = (math.floor(b.right / scale.sx) - 1, math.floor(b.bottom / scale.sy) - 1)
        if last[0] < first[0] or last[1] < first[1]:
            continue  # smaller than a picture pixel: nothing on the picture to point at
        for px, py in (first, last, ((first[0] + last[0]) // 2, (first[1] + last[1]) // 2)):
            x, y = scale.to_screen(px, py)
            assert b.left <= x < b.right and b.top <= y < b.bottom, (e, px, py, x, y)
        beside = math.floor(b.left / scale.sx) - 1  # the last pixel wholly left of the box
        if beside >= 0:
            outside = scale.to_screen(beside, first[1])[0]
            assert outside < b.left, (e, beside, outside)
        checked += 1
    assert checked >= 10


def test_the_picture_size_is_a_setting() -> None:
    assert parse_settings({}).picture_long_side == 1024
    assert parse_settings({"phone": {"picture_long_side": 768}}).picture_long_side == 768
    with pytest.raises(ConfigError, match="picture_long_side"):
        parse_settings({"phone": {"picture_long_side": 100}})


def test_the_picture_format_is_a_setting() -> None:
    assert parse_settings({}).picture_format == "webp"
    assert parse_settings({"phone": {"picture_format": "jpeg"}}).picture_format == "jpeg"
    for bad in ("png", "JPG", "", 1):
        with pytest.raises(ConfigError, match="picture_format"):
            parse_settings({"phone": {"picture_format": bad}})


class _PictureDriver(ListingDriver):
    """The listing driver, keeping the pictures the run sent; a step may be a function of
    the driver (what the run gave so far), as a model's next call is."""

    def __init__(self, steps) -> None:
        super().__init__(steps)
        self.images: list[Image] = []

    def reply(self, request):
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, Image):
                self.images.append(part)
        if self.steps and callable(self.steps[0]):
            self.steps[0] = self.steps[0](self)
        return super().reply(request)


async def test_a_tap_named_on_the_scaled_screenshot_lands_on_the_sims_button(tmp_path, sim_phone):
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    cap = PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))
    minus = next(e for e in (await cap.reader.read()).elements if e.label == "−").bounds
    before = world_state(sim_phone)["settings"]["brightness"]

    def tap_minus_on_the_picture(driver: _PictureDriver):
        # What a model does: find the "−" on the picture it was sent, and name its pixel.
        with PILImage.open(io.BytesIO(driver.images[-1].data)) as img:
            w, h = img.size
        x = math.ceil(minus.left * w / 1080) + 1  # two picture pixels inside its left edge
        y = (minus.top + minus.bottom) // 2 * h // 2400
        return step("phone_tap", x=x, y=y, on_picture=True)

    driver = _PictureDriver([step("phone_screenshot"), tap_minus_on_the_picture, "done"])
    await make_run(tmp_path, cap, driver).run()
    shot = driver.images[0]
    assert shot.mime == "image/webp" and len(shot.data) < 30_000, len(shot.data)
    with PILImage.open(io.BytesIO(shot.data)) as img:
        assert img.size == (461, 1024)
    assert "461x1024 pixels of the 1080x2400 screen" in driver.results[0]
    assert world_state(sim_phone)["settings"]["brightness"] == before - 10, driver.results[1]
    assert "Decrease brightness" in driver.results[1] or '"−"' in driver.results[1], driver.results[1]


async def test_on_picture_without_a_screenshot_is_refused(tmp_path, sim_phone):
    cap = PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))
    driver = ListingDriver([step("phone_observe"), step("phone_tap", x=10, y=10, on_picture=True), "done"])
    await make_run(tmp_path, cap, driver).run()
    assert "on_picture needs a phone_screenshot first" in driver.results[1]
