"""What each DeviceServer method does to the simulated world, and what it answers.

Shapes as DeviceServer.java answers them: a plain success is `{"ok": true}`;
`device.version` is `{"dexSha256": …}` (of the dex the process started from, so mobilecli
can tell a server of another build); `device.clipboard.get` is `{"text": …}` ("" when
empty); `device.apps.list` is PackageLister's array of
`{"packageName", "appName", "version", "versionCode"}` for every installed package
(appName falls back to the package name when there is no label); `device.dump.ui` is
ui_tree.py's, `device.screenshot` screenshot.py's. Keys are KEYCODE_* names.
`device.io.text` types through the virtual keyboard's key map, which has printable ASCII,
newline and tab only: anything else is INVALID_PARAMS. (mobilecli 1.0.9 itself types
ASCII with `input text` and anything else by `device.clipboard.set`, `input keyevent
KEYCODE_PASTE`, `device.clipboard.clear`; its taps, swipes and keys are `input` too.
The touch and key methods here are the DeviceServer's all the same, for builds that use
them.)
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from mika.sim.apps import engine
from mika.sim.apps.frame import build_frame
from mika.sim.devicekit import screenshot, ui_tree
from mika.sim.devicekit.rpc import INVALID_PARAMS, Method, RpcError, optional_int, require_int, require_text
from mika.sim.keycodes import key_char, key_name
from mika.sim.world.packages import installed_packages, version_code, version_name

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

OK = {"ok": True}


def _typeable(ch: str) -> bool:
    return 32 <= ord(ch) < 127 or ch in "\n\t"


def _press(phone: PhoneState, keycode: str) -> dict[str, bool]:
    name = key_name(keycode) if keycode.upper().startswith("KEYCODE_") else None
    if name is None:
        raise RpcError(INVALID_PARAMS, f"unknown keycode {keycode}")
    world = phone.world
    display = world.focused_display
    ch = key_char(name)
    if ch is not None:
        engine.type_text(world, display, ch)
    else:
        engine.key(world, display, name)
    return OK


def _type(phone: PhoneState, text: str) -> dict[str, bool]:
    if not all(_typeable(ch) for ch in text):
        raise RpcError(INVALID_PARAMS, "text has characters the keyboard cannot type")
    world = phone.world
    display = world.focused_display
    # Each character is its own key event; a run of printable ones lands as one insert.
    run = ""
    for ch in text:
        if ch in "\n\t":
            if run:
                engine.type_text(world, display, run)
                run = ""
            engine.key(world, display, "ENTER" if ch == "\n" else "TAB")
        else:
            run += ch
    if run:
        engine.type_text(world, display, run)
    return OK


def _apps(phone: PhoneState) -> list[dict[str, Any]]:
    world = phone.world
    out = []
    for package, _system in installed_packages(world):
        app = world.apps.get(package)
        out.append(
            {
                "packageName": package,
                # PackageLister: the label when the package has one, else its name.
                "appName": app.label if app is not None else package,
                "version": version_name(app) if app is not None else "",
                "versionCode": version_code(app) if app is not None else 0,
            }
        )
    return out


def _set_clipboard(phone: PhoneState, text: str) -> dict[str, bool]:
    phone.world.data["clipboard"] = text
    phone.world.changed()
    return OK


def _dump(phone: PhoneState, params: dict[str, Any]) -> dict[str, Any]:
    world = phone.world
    windows = build_frame(world, 0)
    world.note_dump()
    return ui_tree.dump(windows, full=bool(params.get("full", False)))


def _hide_keyboard(phone: PhoneState) -> dict[str, bool]:
    world = phone.world
    if not world.ime_visible:
        return {"dismissed": False}
    engine.key(world, world.focused_display, "BACK")  # what DeviceServer injects
    return {"dismissed": True}


def _location(phone: PhoneState, params: dict[str, Any] | None) -> dict[str, bool]:
    # A test provider the server holds; the sim keeps where it says the phone is.
    if params is None:
        phone.world.data.pop("mock_location", None)
    else:
        for key in ("lat", "lon"):
            if not isinstance(params.get(key), (int, float)):
                raise RpcError(INVALID_PARAMS, f"missing params.{key}")
        phone.world.data["mock_location"] = {"lat": float(params["lat"]), "lon": float(params["lon"])}
    phone.world.changed()
    return OK


def _tap(phone: PhoneState, p: dict[str, Any]) -> dict[str, bool]:
    engine.tap(phone.world, 0, require_int(p, "x"), require_int(p, "y"))
    return OK


def _long_press(phone: PhoneState, p: dict[str, Any]) -> dict[str, bool]:
    x, y = require_int(p, "x"), require_int(p, "y")
    duration = optional_int(p, "duration", engine.LONG_PRESS_MS)
    (engine.long_press if duration >= engine.LONG_PRESS_MS else engine.tap)(phone.world, 0, x, y)
    return OK


def _swipe(phone: PhoneState, p: dict[str, Any]) -> dict[str, bool]:
    x1, y1, x2, y2 = (require_int(p, k) for k in ("x1", "y1", "x2", "y2"))
    engine.swipe(phone.world, 0, x1, y1, x2, y2, optional_int(p, "duration", 1000))
    return OK


def _keys(phone: PhoneState, p: dict[str, Any]) -> dict[str, bool]:
    keys = p.get("keys")
    if not isinstance(keys, list) or not keys:
        raise RpcError(INVALID_PARAMS, "missing params.keys")
    for key in keys:
        _press(phone, require_text(key if isinstance(key, dict) else {}, "keycode"))
    return OK


def table(phone: PhoneState, dex_sha256: str) -> dict[str, Method]:
    """The methods of one server process, bound to its phone."""

    def sync(fn: Any) -> Method:
        async def call(params: dict[str, Any]) -> Any:
            # The work is quick and in memory; yielding once keeps calls in arrival order.
            await asyncio.sleep(0)
            return fn(params)

        return call

    return {
        "device.version": sync(lambda p: {"dexSha256": dex_sha256}),
        "device.dump.ui": sync(lambda p: _dump(phone, p)),
        "device.screenshot": sync(lambda p: screenshot.capture(phone, p)),
        "device.io.keyboard.hide": sync(lambda p: _hide_keyboard(phone)),
        "device.io.tap": sync(lambda p: _tap(phone, p)),
        "device.io.longpress": sync(lambda p: _long_press(phone, p)),
        "device.io.swipe": sync(lambda p: _swipe(phone, p)),
        "device.io.button": sync(lambda p: _press(phone, require_text(p, "button"))),
        "device.io.keys": sync(lambda p: _keys(phone, p)),
        "device.io.text": sync(lambda p: _type(phone, require_text(p, "text"))),
        "device.clipboard.get": sync(lambda p: {"text": str(phone.world.data.get("clipboard") or "")}),
        "device.clipboard.set": sync(lambda p: _set_clipboard(phone, require_text(p, "text"))),
        "device.clipboard.clear": sync(lambda p: _set_clipboard(phone, "")),
        "device.apps.list": sync(lambda p: _apps(phone)),
        "device.location.set": sync(lambda p: _location(phone, p)),
        "device.location.clear": sync(lambda p: _location(phone, None)),
    }
