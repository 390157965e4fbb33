"""`dumpsys notification --noredact`: the posted notification records.

Each record starts with a `NotificationRecord(0x…: pkg=P user=… id=N tag=T … key=K: Notification(…))`
line; its `extras={ … }` block holds `android.title=String (…)` and `android.text=String (…)`,
and `when=` / `mCreationTimeMs=` the posting time in epoch milliseconds. Without `--noredact`
Android prints `String [length=N]` instead of the text: such a record parses with
`redacted=True` and empty strings, never with the placeholder as its text.
Records are returned in the order the dump lists them (posting order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = re.compile(
    r"^\s*NotificationRecord\(0x[0-9a-f]+: pkg=(?P<pkg>\S+) .*?\bid=(?P<id>-?\d+) tag=(?P<tag>\S+).*?\bkey=(?P<key>[^:\s]+)"
)
_EXTRA = re.compile(r"^\s*android\.(?P<name>title|text|bigText)=(?:String|SpannableString) (?P<val>.*)$")
_WHEN = re.compile(r"^\s*(?:when|mCreationTimeMs|postTime)=(?P<ms>\d{10,})")
_EXTRAS_LINE = re.compile(r"^ {8,}(?:android\.[\w.]+=|\})")
_REDACTED = re.compile(r"^\[length=\d+\]$")


@dataclass(frozen=True)
class NotificationRecord:
    package: str
    id: int
    key: str
    title: str = ""
    text: str = ""
    posted_ms: int = 0
    redacted: bool = False

    @property
    def identity(self) -> tuple[str, int]:
        """What tells one posting from another: an update re-posts the same key later."""
        return self.key, self.posted_ms


def _value(raw: str) -> tuple[str, bool]:
    raw = raw.rstrip()
    if _REDACTED.match(raw):
        return "", True
    if raw.startswith("(") and raw.endswith(")"):
        return raw[1:-1], False
    return raw, False


def parse_notifications(output: str) -> list[NotificationRecord]:
    records: list[NotificationRecord] = []
    current: dict[str, object] | None = None
    # A text with line breaks goes on over the next lines until its closing parenthesis.
    open_extra: tuple[str, list[str]] | None = None

    def close() -> None:
        if current is not None:
            records.append(NotificationRecord(**current))  # type: ignore[arg-type]

    for line in output.splitlines():
        if open_extra is not None:
            # A text with line breaks: it goes on until the next extras key or the end of
            # the extras block (a line of its own ending in ")" may be the text's).
            if not _EXTRAS_LINE.match(line):
                open_extra[1].append(line)
                continue
            name, parts = open_extra
            joined = "\n".join(parts).rstrip()
            if current is not None and not current.get(name):
                current[name] = joined[:-1] if joined.endswith(")") else joined
            open_extra = None
        head = _HEAD.match(line)
        if head:
            close()
            current = {"package": head["pkg"], "id": int(head["id"]), "key": head["key"]}
            continue
        if current is None:
            continue
        extra = _EXTRA.match(line)
        if extra:
            name = "text" if extra["name"] == "bigText" else extra["name"]
            raw = extra["val"].rstrip()
            if raw.startswith("(") and not raw.endswith(")"):
                open_extra = (name, [raw[1:]])
                continue
            value, redacted = _value(raw)
            if name not in current or not current[name]:
                current[name] = value
            if redacted:
                current["redacted"] = True
            continue
        when = _WHEN.match(line)
        if when and not current.get("posted_ms"):
            current["posted_ms"] = int(when["ms"])
    close()
    return records
