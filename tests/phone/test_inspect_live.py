"""`mika inspect --device` on the simulated phone through the real adb server."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mika.commands.inspect import inspect_live_command
from tests.real_fixtures import real


def test_the_live_screen_is_listed(sim_phone):
    out = CliRunner().invoke(inspect_live_command, ["--device", sim_phone.serial, "--backend", "dump"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Screen v1 · com.android.launcher3")
    assert '"Clock"' in out.output


def test_the_live_screen_as_json_over_u2(sim_phone):
    out = CliRunner().invoke(inspect_live_command, ["--device", sim_phone.serial, "--backend", "u2", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["package"] == "com.android.launcher3" and data["format"]
    assert any(e["label"] == "Clock" for e in data["elements"])


def test_an_absent_device_is_exit_3(adb_server):
    out = CliRunner().invoke(inspect_live_command, ["--device", "nope:1"])
    assert out.exit_code == 3 and "No phone 'nope:1'" in out.output


def test_a_saved_dump_still_works():
    out = CliRunner().invoke(inspect_live_command, [str(real("ui_dumps/gmail__inbox_compose.xml"))])
    assert out.exit_code == 0 and out.output.startswith("Screen v1 · com.google.android.gm")


def test_neither_dump_nor_device_says_how():
    out = CliRunner().invoke(inspect_live_command, [])
    assert out.exit_code == 2 and "--device" in out.output
