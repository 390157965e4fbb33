"""A bad config names the file, the key and what was expected."""

from __future__ import annotations

from pathlib import Path


class ConfigError(Exception):
    def __init__(self, file: Path | str | None, key: str, expected: str, got: object = None) -> None:
        self.file = str(file) if file else "<config>"
        self.key = key
        self.expected = expected
        self.got = got
        where = f"{self.file}: {key}" if key else self.file
        tail = f" (got {got!r})" if got is not None else ""
        super().__init__(f"{where}: expected {expected}{tail}")
