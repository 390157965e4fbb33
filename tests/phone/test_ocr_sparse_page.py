"""OCR is skipped only where the picture proves there is nothing to read: a sparse page
(blank in the tree and one flat colour in the pixels) is not sent to OCR, which cost
seconds per read (Settings' Wi-Fi page with Wi-Fi off took ~14 s inside phone_tap);
anything drawn where the tree names nothing (text, an icon, a faint line) keeps the OCR."""

from __future__ import annotations

from PIL import Image, ImageDraw

from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.empty_area import nothing_drawn
from mika.cap.phone.picture import Picture
from mika.cap.phone.reader import ScreenReader
from mika.uistate.adequacy import UNCERTAIN, TreeAdequacy
from mika.uistate.tree import Bounds

CELLS = [Bounds(0, 1200, 540, 2400), Bounds(540, 1200, 1080, 2400)]


def _png(draw=None) -> Picture:
    img = Image.new("RGB", (1080, 2400), (250, 250, 250))
    if draw is not None:
        draw(ImageDraw.Draw(img))
    return Picture(img)


def test_a_flat_background_has_nothing_drawn():
    assert nothing_drawn(_png(), CELLS, (1080, 2400))
    assert not nothing_drawn(_png(), [], (1080, 2400))  # no cells: no proof, OCR runs


def test_faint_text_an_icon_or_a_divider_in_any_blank_cell_keeps_the_ocr():
    faint_text = _png(lambda d: d.text((700, 2000), "Code 4192", fill=(215, 215, 215)))
    icon = _png(lambda d: d.ellipse((100, 1300, 160, 1360), fill=(30, 120, 200)))
    divider = _png(lambda d: d.line((0, 1800, 1080, 1800), fill=(225, 225, 225), width=2))
    for png in (faint_text, icon, divider):
        assert not nothing_drawn(png, CELLS, (1080, 2400))


def test_cells_are_scaled_to_a_smaller_picture():
    small = Image.new("RGB", (540, 1200), (255, 255, 255))
    ImageDraw.Draw(small).rectangle((300, 900, 320, 920), fill=(0, 0, 0))  # in the second cell
    assert not nothing_drawn(Picture(small), CELLS, (1080, 2400))


async def test_the_sparse_wifi_page_is_not_sent_to_ocr_but_a_drawn_report_is(sim_phone):
    calls: list[int] = []

    def ocr(picture: Picture) -> tuple:
        calls.append(picture.width)
        return ()

    reader = ScreenReader(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"), ocr=ocr)
    sim_phone.shell("simctl set settings.wifi false")
    sim_phone.shell("am start -n com.android.settings/.Settings\\$WifiSettingsActivity")
    screen = await reader.read()
    adequacy = TreeAdequacy.assess(screen)
    # The page is in doubt only for its blank area, which is what the pixels settle.
    assert adequacy.level == UNCERTAIN and adequacy.blank, adequacy
    assert "Use Wi-Fi" in screen.listing() and "turn Wi-Fi on" in screen.listing()
    assert calls == []
    await reader.read()  # read again (as a settle does): still no OCR
    assert calls == []
    # A page whose text is only pixels (a drawn report) is still read with OCR.
    sim_phone.shell("am start -n com.mika.reader/.WebActivity")
    await reader.read()
    assert len(calls) == 1
