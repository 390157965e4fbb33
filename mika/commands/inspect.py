"""`mika inspect --device SERIAL [--json]`: the listing the model would see, for the live screen.

Wraps the saved-dump command (`mika inspect DUMP.xml`, in mika/cap/phone/inspect_command.py):
with a DUMP it does exactly that; with --device it reads the phone's hierarchy through
the AdbPort (uiautomator2 when it starts, else `uiautomator dump`) and prints the same
listing or JSON. Errors go to stderr: exit 2 for a bad dump, 3 for device problems.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal


async def _read_live(serial: str | None, backend: str) -> str:
    from mika.cap.phone.adb.devices import pick_serial
    from mika.cap.phone.adb.port import AdbPort
    from mika.cap.phone.adb.server import adb_client

    client = adb_client()
    port = AdbPort(pick_serial(client, serial), client, backend=backend)
    try:
        return await port.dump_hierarchy(0)
    finally:
        await port.close()


@click.command("inspect")
@click.argument("dump", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option(
    "--device", "device", default=None, help="Read the live screen of this phone (a serial; '-' for the only one)."
)
@click.option(
    "--backend",
    type=click.Choice(["auto", "u2", "dump"]),
    default="auto",
    show_default=True,
    help="How to read the live screen.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the elements as JSON (number, role, label, bounds, flags)."
)
@click.pass_context
def inspect_live_command(
    ctx: click.Context, dump: Path | None, device: str | None, backend: str, as_json: bool
) -> None:
    """Show the screen listing Mika's model reads: for a saved dump, or a phone's live screen.

    显示模型会读到的界面列表：保存的层级文件，或 --device 指定手机的当前屏幕。
    """
    # The phone layer loads adbutils and Pillow: imported here so `mika --help` stays cheap.
    from mika.cap.phone.adb.devices import DeviceChoiceError
    from mika.cap.phone.adb.server import AdbServerError
    from mika.cap.phone.inspect_command import (
        elements_json_for_xml,
        inspect_command,
        listing_for_xml,
    )
    from mika.tool.errors import ToolFault
    from mika.uistate import HierarchyError

    if device is None:
        if dump is None:
            echo(
                "mika: give a saved dump (DUMP.xml) or --device SERIAL for the live screen.\n"
                "mika：请给出层级文件（DUMP.xml），或用 --device SERIAL 读取手机当前屏幕。",
                err=True,
            )
            sys.exit(int(ExitCode.USAGE))
        ctx.invoke(inspect_command, dump=dump, as_json=as_json)
        return
    try:
        xml = asyncio.run(_read_live(None if device == "-" else device, backend))
    except (AdbServerError, DeviceChoiceError, ToolFault) as exc:
        echo(f"mika: {exc}", err=True)
        sys.exit(int(ExitCode.DEVICE))
    try:
        echo(json_for_terminal(elements_json_for_xml(xml), indent=2) if as_json else listing_for_xml(xml))
    except HierarchyError as exc:
        echo(f"mika: the phone's screen could not be read: {exc.reason}", err=True)
        sys.exit(int(ExitCode.USAGE))
