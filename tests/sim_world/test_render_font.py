"""The simulated phone paints with the Noto Sans CJK font from its own dependency, never
with whatever the machine has installed, unless MIKA_SIM_FONT names a font; what it
paints is Chinese that OCR reads back."""

from __future__ import annotations

import shutil
from pathlib import Path

import noto_cjk_sans_otc
import pytest
from PIL import Image, ImageDraw

from mika.cap.phone.ocr import read_text
from mika.sim.apps.frame import build_frame
from mika.sim.phone import make_device
from mika.sim.render import screen as render_screen
from mika.sim.render.screen import RenderFontError, font, font_source, png_bytes, render


@pytest.fixture
def fresh_font(monkeypatch):
    """Font lookups are cached per process; each test here starts and ends uncached."""
    font_source.cache_clear()
    font.cache_clear()
    yield monkeypatch
    font_source.cache_clear()
    font.cache_clear()


def _ink(text: str) -> bytes:
    image = Image.new("L", (400, 80), 0)
    ImageDraw.Draw(image).text((4, 4), text, font=font(48), fill=255)
    return image.tobytes()


def test_unset_or_empty_env_uses_the_bundled_simplified_chinese_face(fresh_font) -> None:
    for value in (None, "", "  "):
        font_source.cache_clear()
        if value is None:
            fresh_font.delenv(render_screen.FONT_ENV, raising=False)
        else:
            fresh_font.setenv(render_screen.FONT_ENV, value)
        path, _ = font_source()
        assert Path(path).resolve() == Path(str(noto_cjk_sans_otc.FONT_PATH)).resolve()
        assert font(40).getname() == ("Noto Sans CJK SC", "Regular")


def test_chinese_glyphs_are_real_glyphs_not_boxes(fresh_font) -> None:
    fresh_font.delenv(render_screen.FONT_ENV, raising=False)
    missing = _ink("\ue000")  # a private-use code point: the font's "no glyph" box
    drawn = {ch: _ink(ch) for ch in "中文设置阅读"}
    assert all(ink != missing and any(ink) for ink in drawn.values())
    assert len(set(drawn.values())) == len(drawn)  # six different shapes, not one fallback


def test_env_names_the_font_to_use(fresh_font, tmp_path) -> None:
    copy = tmp_path / "mine.ttc"
    shutil.copyfile(str(noto_cjk_sans_otc.FONT_PATH), copy)
    fresh_font.setenv(render_screen.FONT_ENV, str(copy))
    assert font_source() == (str(copy), 0)
    assert font(30).getname()[0] == "Noto Sans CJK JP"  # face 0 of that file, as named


def test_env_naming_a_missing_file_says_so_and_what_to_do(fresh_font, tmp_path) -> None:
    gone = tmp_path / "nope.ttf"
    fresh_font.setenv(render_screen.FONT_ENV, str(gone))
    with pytest.raises(RenderFontError) as info:
        font(20)
    message = str(info.value)
    assert str(gone) in message and "MIKA_SIM_FONT" in message and "does not exist" in message


def test_env_naming_a_file_that_is_no_font_says_so(fresh_font, tmp_path) -> None:
    bad = tmp_path / "notes.ttf"
    bad.write_text("not a font")
    fresh_font.setenv(render_screen.FONT_ENV, str(bad))
    with pytest.raises(RenderFontError) as info:
        font(20)
    assert str(bad) in str(info.value) and "cannot read" in str(info.value)


def test_ocr_reads_the_chinese_the_sim_painted(fresh_font) -> None:
    fresh_font.delenv(render_screen.FONT_ENV, raising=False)
    world = make_device("font").world
    world.launch("com.mika.reader", 0, screen="Report")
    world.clock.jump(5)  # past any loading state
    lines = [line.text.replace(" ", "") for line in read_text(png_bytes(render(build_frame(world, 0), (1080, 2400))))]
    assert any("本月阅读" in line for line in lines), lines
    assert any("K7-4192" in line for line in lines), lines
