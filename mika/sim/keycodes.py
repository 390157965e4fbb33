"""Android key codes by name and number (android.view.KeyEvent).

A low module of its own: the shell's `input keyevent`, scrcpy's control socket and the
uiautomator2 server all speak key codes, and none of them may import another."""

from __future__ import annotations

_NAMED = {
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "COMMA": 55,
    "PERIOD": 56,
    "TAB": 61,
    "SPACE": 62,
    "ENTER": 66,
    "DEL": 67,
    "AT": 77,
    "MENU": 82,
    "SEARCH": 84,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "NUMPAD_ENTER": 160,
    "APP_SWITCH": 187,
    "SLEEP": 223,
    "WAKEUP": 224,
    "PASTE": 279,
    "COPY": 278,
    "CUT": 277,
    "NOTIFICATION": 83,
}
for _i, _c in enumerate("0123456789"):
    _NAMED[_c] = 7 + _i
for _i, _c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
    _NAMED[_c] = 29 + _i

BY_CODE = {code: name for name, code in _NAMED.items()}


def key_name(arg: str) -> str | None:
    """ "KEYCODE_BACK", "BACK" or "4" -> "BACK"; None when unknown."""
    if arg.isdigit():
        return BY_CODE.get(int(arg))
    name = arg.upper()
    if name.startswith("KEYCODE_"):
        name = name[len("KEYCODE_") :]
    return name if name in _NAMED else None


def key_char(name: str) -> str | None:
    """The character a key types, for letter, digit, space and punctuation keys."""
    if len(name) == 1:
        return name.lower()
    # TAB types nothing: Android moves focus to the next view with it (engine.key).
    return {"SPACE": " ", "COMMA": ",", "PERIOD": ".", "AT": "@"}.get(name)
