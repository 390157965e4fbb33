"""How text reaches a field over ADB: `input text` for plain ASCII, otherwise a method
that can carry any language (uiautomator2's set-text, or the ADB Keyboard's base64
broadcast while it is borrowed as the input method).

`input text` goes through the device shell and its own parser: spaces must be `%s`,
and the shell's special characters must be quoted so they arrive as themselves.
"""

from __future__ import annotations

import base64
import shlex

ADB_KEYBOARD = "com.android.adbkeyboard/.AdbIME"


def is_plain_ascii(text: str) -> bool:
    """Text `input text` can type exactly: printable ASCII, no newlines, and no literal
    "%s" (Android turns every "%s" into a space and has no escape for it)."""
    return all(32 <= ord(ch) < 127 for ch in text) and "%s" not in text


def input_text_command(text: str, display_args: str = "") -> str:
    """`input text …` for plain ASCII: spaces become %s, the rest is shell-quoted."""
    if not is_plain_ascii(text):
        raise ValueError("input text can only type printable ASCII without a literal %s")
    return f"input{display_args} text {shlex.quote(text.replace(' ', '%s'))}"


def adb_keyboard_command(text: str) -> str:
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {payload}"


ADB_KEYBOARD_CLEAR = "am broadcast -a ADB_CLEAR_TEXT"
