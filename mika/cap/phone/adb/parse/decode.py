"""Turning raw shell output into clean text.

Real captures arrive as UTF-8, as UTF-16LE with a BOM and CRLF (a PowerShell redirect),
or with CRLF line ends (old adb's pty). All become `\\n`-separated str here.
"""

from __future__ import annotations


class ShellOutputError(ValueError):
    """Output that cannot be what the command prints."""

    def __init__(self, command: str, reason: str, excerpt: str = "") -> None:
        self.command = command
        self.reason = reason
        tail = f" (got {excerpt[:60]!r})" if excerpt else ""
        super().__init__(f"Could not read the output of `{command}`: {reason}{tail}.")


def shell_text(data: bytes | str) -> str:
    if isinstance(data, bytes):
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            text = data.decode("utf-16")
        elif data.startswith(b"\xef\xbb\xbf"):
            text = data[3:].decode("utf-8", errors="replace")
        elif len(data) >= 4 and data[1:2] == b"\x00" and data[3:4] == b"\x00":
            text = data.decode("utf-16-le", errors="replace")  # UTF-16LE without a BOM
        else:
            text = data.decode("utf-8", errors="replace")
    else:
        text = data
    text = text.lstrip("\ufeff")
    return text.replace("\r\r\n", "\n").replace("\r\n", "\n").replace("\r", "\n")
