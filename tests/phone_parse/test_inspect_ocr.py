"""`mika inspect --device` prints what the model reads, text read from the picture included.

Through the real adb server on the simulated phone; the OCR is the real rapidocr engine
the phone reader uses.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from mika.commands.inspect import inspect_live_command


def _open_reader(phone) -> None:
    phone.shell("am start -n com.mika.reader/.WebActivity")


@pytest.mark.slow
def test_a_pixels_only_screen_shows_its_ocr_lines(sim_phone):
    _open_reader(sim_phone)
    out = CliRunner().invoke(inspect_live_command, ["--device", sim_phone.serial, "--backend", "dump"])
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.startswith("Screen v1 · com.mika.reader")
    # The same fenced listing the model gets: the app's elements, then the OCR lines in their own fence.
    assert '<untrusted source="screen" app="com.mika.reader">' in text
    ocr = text.split('<untrusted source="ocr" app="com.mika.reader">', 1)
    assert len(ocr) == 2, text
    lines = ocr[1].split("</untrusted>", 1)[0]
    assert "K7-4192" in lines.replace(" ", ""), lines
    assert re.search(r'- ".+" @\d+,\d+', lines), lines


def test_no_ocr_leaves_the_picture_unread(sim_phone):
    _open_reader(sim_phone)
    out = CliRunner().invoke(inspect_live_command, ["--device", sim_phone.serial, "--backend", "dump", "--no-ocr"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Screen v1 · com.mika.reader")
    assert 'source="ocr"' not in out.output and "K7-4192" not in out.output


def test_an_adequate_tree_is_not_read_from_the_picture(sim_phone):
    # The launcher's tree names everything: no OCR fence, as the phone reader would do.
    out = CliRunner().invoke(inspect_live_command, ["--device", sim_phone.serial, "--backend", "dump"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Screen v1 · com.android.launcher3") and '"Clock"' in out.output
    assert 'source="ocr"' not in out.output
