"""Every app file loads and every screen of every app lays out, dumps and renders."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from mika.sim.apps.frame import build_frame
from mika.sim.apps.registry import dialog_names, load_apps
from mika.sim.phone import make_device
from mika.sim.render.screen import png_bytes, render
from mika.sim.tasks import list_tasks
from mika.sim.world.hierarchy import dump_plain, dump_u2
from mika.sim.world.world import scenario_names

SCREENS = [(app.package, name) for app in load_apps().values() for name in app.screens]


@pytest.mark.parametrize(("package", "screen"), SCREENS, ids=[f"{p.rsplit('.', 1)[-1]}.{s}" for p, s in SCREENS])
def test_every_screen_builds_dumps_and_renders(package: str, screen: str) -> None:
    phone = make_device("files")
    world = phone.world
    world.launch(package, 0, screen=screen)
    world.clock.jump(5)  # past any loading state
    frame = build_frame(world, 0)
    ET.fromstring(dump_plain(frame))
    ET.fromstring(dump_u2([(0, frame)]).encode())
    image = Image.open(io.BytesIO(png_bytes(render(frame, (1080, 2400)))))
    assert image.size == (1080, 2400)


def test_scenarios_dialogs_and_task_scenarios_exist() -> None:
    names = scenario_names()
    assert {"default", "locked", "pin_locked", "empty", "surprise", "frozen"} <= set(names)
    for name in names:
        make_device("s", scenario=name)
    for name in dialog_names():
        d = make_device("s")
        d.world.show_system_dialog(name)
        assert build_frame(d.world, 0)[-1].kind == "dialog"
    assert {t.scenario for t in list_tasks()} <= set(names)


def test_frozen_scenario_keeps_screenshots_identical() -> None:
    a, b = make_device("f", scenario="frozen"), make_device("f", scenario="frozen")
    shot = lambda p: png_bytes(render(build_frame(p.world, 0), (1080, 2400)))  # noqa: E731
    assert shot(a) == shot(b)
