"""`getprop`: the full `[key]: [value]` listing, or the bare value of `getprop KEY`.

Values may span lines (a vendor property with a newline inside); such a value runs
until the line that closes it with `]`. A damaged line (one real head unit prints
`]key]: [value` without the closing bracket) is read as best it can be, not dropped.
"""

from __future__ import annotations

import re

from mika.cap.phone.adb.parse.decode import shell_text

_LINE = re.compile(r"^[\[\]](?P<key>[^\]\[]+)\]:\s*\[(?P<value>.*)$")


def parse_getprop(data: bytes | str) -> dict[str, str]:
    """All properties of a listing; for a single-value output, `{"": value}`."""
    text = shell_text(data)
    lines = text.split("\n")
    if not any(_LINE.match(line) for line in lines[:50]):
        # `getprop ro.build.version.sdk` prints just the value.
        return {"": text.strip()}
    props: dict[str, str] = {}
    key: str | None = None
    buffer: list[str] = []
    for line in lines:
        if key is not None and not _LINE.match(line):
            # Continuation of a value that spans lines.
            buffer.append(line)
            if line.endswith("]"):
                props[key] = "\n".join(buffer)[:-1]
                key, buffer = None, []
            continue
        if key is not None:
            props[key] = "\n".join(buffer)  # an unclosed value: keep what it had
            key, buffer = None, []
        m = _LINE.match(line)
        if not m:
            continue
        value = m.group("value")
        if value.endswith("]"):
            props[m.group("key").strip()] = value[:-1]
        else:
            key, buffer = m.group("key").strip(), [value]
    if key is not None:
        props[key] = "\n".join(buffer)
    return props


def sdk_level(props: dict[str, str]) -> int | None:
    value = props.get("ro.build.version.sdk", props.get("", ""))
    return int(value) if value.strip().isdigit() else None
