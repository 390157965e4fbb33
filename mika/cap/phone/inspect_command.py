"""`mika inspect DUMP.xml [--json]`: the listing the model would see for a saved dump.

It is what users reach for when an app behaves oddly: save a dump (`adb shell
uiautomator dump`, or uiautomator2's `dump_hierarchy()`), inspect it, see what Mika
sees. The live `--device SERIAL` mode belongs to the ADB port; it should read the
hierarchy and call `listing_for_xml` / `elements_json_for_xml` like this command does.
stdout carries the data only; errors go to stderr with exit status 2.

`live_listing` is the live screen as the model reads it: the phone reader's own read
(OCR merged in when TreeAdequacy says the tree can't be trusted) and the same fenced
listing the phone tools hand the model.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from mika.terminal_text import echo, json_for_terminal
from mika.uistate import HierarchyError, Screen, TreeAdequacy, build_screen, parse_hierarchy

_MESSAGES = {
    "unreadable_file": {
        "en": "Cannot read {path}: {error}",
        "zh": "无法读取文件 {path}：{error}",
    },
    "bad_dump": {
        "en": "{path} is not a UI hierarchy dump: {error}",
        "zh": "{path} 不是界面层级文件（uiautomator dump）：{error}",
    },
}


def _say(key: str, **values: object) -> str:
    texts = _MESSAGES[key]
    return "\n".join(texts[lang].format(**values) for lang in ("en", "zh"))


def screen_for_xml(xml: str | bytes) -> Screen:
    """Parse a dump and number it as screen v1, as a first read would."""
    from dataclasses import replace

    return replace(build_screen(parse_hierarchy(xml)), version=1)


def listing_for_xml(xml: str | bytes) -> str:
    """The compact listing for a dump; raises HierarchyError for a broken one."""
    return screen_for_xml(xml).listing()


async def live_listing(port: Any, ocr: Callable[[Any], tuple] | None) -> str:
    """What phone_observe would show for display 0 of `port` now, OCR lines included."""
    from mika.cap.phone.fenced import fenced_listing
    from mika.cap.phone.reader import ScreenReader

    screen = await ScreenReader(port, 0, ocr=ocr).read()
    return fenced_listing(screen)


def elements_json_for_xml(xml: str | bytes) -> dict[str, object]:
    screen = screen_for_xml(xml)
    adequacy = TreeAdequacy.assess(screen)
    frame = screen.frame
    return {
        "version": screen.version,
        "package": screen.foreground_package,
        "size": [frame.right, frame.bottom],
        "rotation": screen.tree.rotation,
        "format": screen.tree.format,
        "tree": {"level": adequacy.level, "reasons": list(adequacy.reasons)},
        "windows": [
            {
                "index": w.index,
                "package": w.package,
                "kind": w.kind,
                "bounds": w.bounds.as_list(),
                "display_id": w.display_id,
            }
            for w in screen.windows
        ],
        "elements": [e.as_dict() for e in screen.elements],
    }


@click.command("inspect")
@click.argument("dump", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--json", "as_json", is_flag=True, help="Print the elements as JSON (number, role, label, bounds, flags)."
)
def inspect_command(dump: Path, as_json: bool) -> None:
    """Show the screen listing Mika's model would read for a saved UI dump.

    显示模型会读到的界面列表（来自保存的 uiautomator 层级文件）。
    """
    try:
        data = dump.read_bytes()
    except OSError as exc:
        echo(_say("unreadable_file", path=dump, error=exc.strerror or exc), err=True)
        sys.exit(2)
    try:
        if as_json:
            echo(json_for_terminal(elements_json_for_xml(data), indent=2))
        else:
            echo(listing_for_xml(data))
    except HierarchyError as exc:
        echo(_say("bad_dump", path=dump, error=exc.reason), err=True)
        sys.exit(2)
