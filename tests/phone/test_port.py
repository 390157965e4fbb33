"""AdbPort details on the simulated phone: shell-safe ASCII typing, displays, the
knowledge hook, the device facts read once per connection."""

from __future__ import annotations

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort, PortError
from mika.cap.phone.adb.text_input import input_text_command, is_plain_ascii
from mika.uistate import build_screen, parse_hierarchy


def port_for(phone, backend="dump") -> AdbPort:
    return AdbPort(phone.serial, phone.server.client(), backend=backend)


@pytest.mark.parametrize("text", ['it\'s "ok" & $HOME; `x` | y', "100% sure", "a\\b*c?(d)"])
async def test_ascii_with_shell_characters_arrives_as_typed(sim_phone, text):
    port = port_for(sim_phone)
    cap = PhoneCapability(port)
    await port.launch_app(0, "com.mika.notes")
    screen = await cap.reader.read()
    # Open a new note and type into its first field.
    new = next(e for e in screen.elements if (e.role == "button" and "New" in e.label) or "新" in e.label)
    await port.tap(0, *new.centre)
    screen = await cap.reader.read()
    field = next(e for e in screen.elements if e.node.editable)
    await port.tap(0, *field.centre)
    method = await port.type_text(0, text)
    assert method == "input_text"
    screen = await cap.reader.read()
    typed = next(e for e in screen.elements if e.node.editable and e.node.focused)
    assert typed.node.text == text
    await cap.close()


def test_input_text_escaping():
    assert input_text_command("a b") == "input text a%sb"
    assert input_text_command("it's") == "input text 'it'\"'\"'s'"
    assert not is_plain_ascii("你好") and not is_plain_ascii("line\nbreak") and not is_plain_ascii("50%s")
    with pytest.raises(ValueError, match="printable ASCII"):
        input_text_command("你好")


async def test_device_facts_are_read_once(sim_phone):
    port = port_for(sim_phone)
    info = await port.info()
    assert info.model == "Mika Sim Phone" and info.sdk >= 29 and info.size == (1080, 2400)
    assert info.transport == "tcp" and info.input_takes_display
    assert await port.info() is info


async def test_a_second_display_is_read_and_touched_by_its_id(sim_phone):
    out = sim_phone.shell("simctl display add 720x1280 320 agent")
    display_id = int(next(w for w in out.split() if w.isdigit()))
    sim_phone.shell(f"am start --display {display_id} -n com.android.settings/.Settings")
    port = port_for(sim_phone, backend="u2")
    xml = await port.dump_hierarchy(display_id)
    screen = build_screen(parse_hierarchy(xml), display_id=display_id)
    assert screen.foreground_package == "com.android.settings"
    main = build_screen(parse_hierarchy(xml), display_id=0)
    assert main.foreground_package == "com.android.launcher3"
    await port.tap(display_id, 10, 10)  # accepted with -d on Android 10+
    # uiautomator dump sees only the default display: asking it for another is refused clearly.
    with pytest.raises(PortError, match="Display"):
        await port_for(sim_phone, backend="dump").dump_hierarchy(display_id)


async def test_the_knowledge_hook_hears_each_app_once(sim_phone):
    seen: list[str] = []
    port = port_for(sim_phone)
    cap = PhoneCapability(port, on_app_seen=seen.append)
    await cap.reader.read()
    await cap.reader.read()
    await port.launch_app(0, "com.google.android.deskclock")
    await cap.reader.read()
    await port.key(0, "HOME")
    await cap.reader.read()
    assert seen == ["com.android.launcher3", "com.google.android.deskclock"]
