"""`mika inspect --device SERIAL [--json]`: the listing the model would see, for the live screen.

Wraps the saved-dump command (`mika inspect DUMP.xml`, in mika/cap/phone/inspect_command.py):
with a DUMP it does exactly that; with --device it reads the phone's screen through
the AdbPort (uiautomator2 when it starts, else `uiautomator dump`) as the phone reader
does, text read from the picture merged in where the tree is blind, and prints the
fenced listing the model gets (or the tree's JSON with --json). Errors go to stderr: exit 2 for a bad dump, 3 for device problems.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal


async def _read_live(serial: str | None, backend: str, *, as_listing: bool, ocr: bool) -> str:
    """The dump's XML (for --json), or the listing the model reads, OCR lines included."""
    from mika.cap.phone.adb.devices import pick_serial
    from mika.cap.phone.adb.port import AdbPort
    from mika.cap.phone.adb.server import adb_client
    from mika.cap.phone.inspect_command import live_listing

    client = adb_client()
    port = AdbPort(pick_serial(client, serial), client, backend=backend)
    try:
        if as_listing:
            from mika.cap.phone.ocr import read_text

            return await live_listing(port, read_text if ocr else None)
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
@click.option(
    "--no-ocr", "no_ocr", is_flag=True, help="Live screen: don't read text from the picture where the tree is blind."
)
@click.pass_context
def inspect_live_command(
    ctx: click.Context, dump: Path | None, device: str | None, backend: str, as_json: bool, no_ocr: bool
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
    serial = None if device == "-" else device
    try:
        read = asyncio.run(_read_live(serial, backend, as_listing=not as_json, ocr=not no_ocr))
    except (AdbServerError, DeviceChoiceError, ToolFault) as exc:
        echo(f"mika: {exc}", err=True)
        sys.exit(int(ExitCode.DEVICE))
    except HierarchyError as exc:
        echo(f"mika: the phone's screen could not be read: {exc.reason}", err=True)
        sys.exit(int(ExitCode.USAGE))
    if not as_json:
        echo(read)  # the listing the model reads: its fences and the OCR lines included
        return
    try:
        echo(json_for_terminal(elements_json_for_xml(read), indent=2))
    except HierarchyError as exc:
        echo(f"mika: the phone's screen could not be read: {exc.reason}", err=True)
        sys.exit(int(ExitCode.USAGE))
