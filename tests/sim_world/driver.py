"""Drives a simulated phone the way a client would: shell commands in, text out.

`Local` calls the Phone directly (unit tests); `OverAdb` sends the same commands through
the real adb server (end-to-end). Both find elements by parsing `uiautomator dump`.
"""

from __future__ import annotations

import asyncio
import json
import re
import xml.etree.ElementTree as ET
from typing import Any, Protocol

from mika.sim.phone import Phone

_BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


class _Sink:
    def __init__(self) -> None:
        self.out = bytearray()
        self.closed = False

    async def read(self) -> bytes:
        return b""

    async def write(self, data: bytes) -> None:
        self.out += data


class Driver(Protocol):
    def shell(self, command: str) -> str: ...


class Local:
    def __init__(self, phone: Phone) -> None:
        self.phone = phone
        self.last_code = 0

    def shell_bytes(self, command: str) -> bytes:
        sink = _Sink()
        self.last_code = asyncio.run(self.phone.run_shell(command, sink))
        return bytes(sink.out)

    def shell(self, command: str) -> str:
        return self.shell_bytes(command).decode("utf-8", errors="replace")


class OverAdb:
    def __init__(self, sim_phone: Any) -> None:
        self.sim = sim_phone

    def shell(self, command: str) -> str:
        return self.sim.shell(command)


def dump(d: Driver) -> ET.Element:
    text = d.shell("uiautomator dump /dev/tty")
    xml = text[: text.rindex("</hierarchy>") + len("</hierarchy>")]
    return ET.fromstring(xml)


def find(
    d: Driver, text: str | None = None, desc: str | None = None, rid: str | None = None, cls: str | None = None
) -> ET.Element | None:
    for node in dump(d).iter("node"):
        if text is not None and node.get("text") != text:
            continue
        if desc is not None and node.get("content-desc") != desc:
            continue
        if rid is not None and not node.get("resource-id", "").endswith(rid):
            continue
        if cls is not None and node.get("class") != cls:
            continue
        return node
    return None


def center(node: ET.Element) -> tuple[int, int]:
    m = _BOUNDS.fullmatch(node.get("bounds", ""))
    assert m, node.attrib
    l, t, r, b = map(int, m.groups())  # noqa: E741 (left, top, right, bottom)
    return (l + r) // 2, (t + b) // 2


def tap(
    d: Driver, text: str | None = None, desc: str | None = None, rid: str | None = None, cls: str | None = None
) -> None:
    node = find(d, text=text, desc=desc, rid=rid, cls=cls)
    assert node is not None, f"nothing on screen with text={text!r} desc={desc!r} rid={rid!r}"
    x, y = center(node)
    d.shell(f"input tap {x} {y}")


def scroll_to(d: Driver, text: str, tries: int = 8) -> None:
    for _ in range(tries):
        if find(d, text=text) is not None:
            return
        d.shell("input swipe 540 1900 540 900 300")
    raise AssertionError(f"{text!r} never scrolled into view")


def state(d: Driver, key: str = "") -> Any:
    return json.loads(d.shell(f"simctl state {key}".strip()))


def texts(d: Driver) -> list[str]:
    return [n.get("text", "") for n in dump(d).iter("node") if n.get("text")]


def quote(text: str) -> str:
    """Double-quoted for the phone's sh (the adb CLI passes our string through as is)."""
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in text) + '"'


def type_into(d: Driver, text: str, rid: str | None = None, hint: str | None = None) -> None:
    """Focus a field (by resource-id or by the hint it shows while empty), then type ASCII."""
    if rid is not None or hint is not None:
        if rid is not None:
            tap(d, rid=rid)
        else:
            tap(d, text=hint)
    d.shell(f"input text {quote(text)}")


def wait_for(d: Driver, text: str, timeout: float = 5.0) -> ET.Element:
    import time

    deadline = time.monotonic() + timeout
    while True:
        node = find(d, text=text)
        if node is not None:
            return node
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} did not appear within {timeout}s")
        time.sleep(0.2)
