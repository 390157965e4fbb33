"""The JSON-RPC methods uiautomator2 3.7.x calls, answered from the simulated world."""

from __future__ import annotations

import asyncio
import base64
import contextvars
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PIL import Image

from mika.sim.apps import engine, gestures
from mika.sim.apps.frame import build_frame
from mika.sim.keycodes import BY_CODE, key_char
from mika.sim.render.screen import render
from mika.sim.u2 import faults, objects
from mika.sim.u2.selector import find_all, find_one, obj_info
from mika.sim.world import rotation
from mika.sim.world.hierarchy import dump_u2
from mika.sim.world.props import sdk_int

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

NOT_FOUND = "androidx.test.uiautomator.UiObjectNotFoundException"
_KEYS = {
    "home": "HOME",
    "back": "BACK",
    "left": "DPAD_LEFT",
    "right": "DPAD_RIGHT",
    "up": "DPAD_UP",
    "down": "DPAD_DOWN",
    "center": "DPAD_CENTER",
    "menu": "MENU",
    "search": "SEARCH",
    "enter": "ENTER",
    "delete": "DEL",
    "del": "DEL",
    "recent": "APP_SWITCH",
    "volume_up": "VOLUME_UP",
    "volume_down": "VOLUME_DOWN",
    "volume_mute": "VOLUME_MUTE",
    "camera": "CAMERA",
    "power": "POWER",
}


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


# Set for one call while a null_root fault is in force: the bridge sees no windows.
_blind: contextvars.ContextVar[bool] = contextvars.ContextVar("u2_blind", default=False)


# UiAutomation.getWindowsOnAllDisplays (and AccessibilityWindowInfo.getDisplayId) came
# with API 30; before it the bridge sees the default display's windows only.
ALL_DISPLAYS_SDK = 30


def _frames(phone: PhoneState) -> list[tuple[int, list[Any]]]:
    if _blind.get():
        return []
    w = phone.world
    if sdk_int(w.props) < ALL_DISPLAYS_SDK:
        return [(0, build_frame(w, 0))]
    return [(d, build_frame(w, d)) for d in sorted(w.displays)]


def _dump(phone: PhoneState, compressed: bool = False) -> str:
    frames = _frames(phone)
    phone.world.note_dump()
    if not frames:
        return faults.EMPTY_HIERARCHY
    rotated = phone.world.displays[0].rotation
    return dump_u2(frames, rotated, display_ids=sdk_int(phone.world.props) >= ALL_DISPLAYS_SDK, compressed=compressed)


def _node(phone: PhoneState, selector: dict[str, Any]):
    windows = [win for _, wins in _frames(phone) for win in wins]
    node = find_one(windows, selector)
    if node is None:
        shown = {k: v for k, v in selector.items() if k not in ("mask", "childOrSibling", "childOrSiblingSelector")}
        raise RpcError(-32002, NOT_FOUND, f"{NOT_FOUND}: UiSelector{shown}")
    return node


def device_info(phone: PhoneState) -> dict[str, Any]:
    w = phone.world
    d = w.displays[0]
    width, height = d.size
    top = w.top_activity(0)
    dens = (d.override_density or d.density) / 160
    return {
        "currentPackageName": top.package if top else "",
        "displayHeight": height,
        "displayRotation": d.rotation,
        "displaySizeDpX": round(width / dens),
        "displaySizeDpY": round(height / dens),
        "displayWidth": width,
        "productName": w.props["ro.product.name"],
        "screenOn": w.screen_on,
        "sdkInt": int(w.props["ro.build.version.sdk"]),
        "naturalOrientation": True,
    }


def _screenshot(phone: PhoneState, scale: float = 1.0, quality: int = 80) -> str:
    w = phone.world
    display = w.displays[0]
    image = render(build_frame(w, 0), display.size, display.lit(w.screen_on))
    if scale and scale != 1:
        # The server scales the bitmap with filtering (Bitmap.createScaledBitmap), sizes truncated.
        size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
        image = image.resize(size, Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=int(quality or 80))
    return base64.b64encode(buf.getvalue()).decode()


def _key(phone: PhoneState, name: str) -> bool:
    w = phone.world
    ch = key_char(name)
    if ch is not None:
        engine.type_text(w, w.focused_display, ch)
    else:
        engine.key(w, w.focused_display, name)
    return True


def _paste(phone: PhoneState) -> None:
    w = phone.world
    engine.type_text(w, w.focused_display, str(w.data.get("clipboard") or ""))


def _set_text(phone: PhoneState, selector: dict[str, Any], text: str) -> bool:
    node = _node(phone, selector)
    if node.role != "field":
        return False
    return engine.set_field_text(phone.world, phone.world.focused_display, node, text)


def _clear_focused(phone: PhoneState) -> None:
    w = phone.world
    top = w.top_activity(w.focused_display)
    if top and top.focus:
        top.fields[top.focus] = ""
        w.changed()


def _click_node(phone: PhoneState, selector: dict[str, Any], long: bool = False) -> bool:
    node = _node(phone, selector)
    x, y = node.center
    (engine.long_press if long else engine.tap)(phone.world, 0, x, y)
    return True


def _swipe(phone: PhoneState, fx: float, fy: float, tx: float, ty: float, steps: int) -> bool:
    engine.swipe(phone.world, 0, int(fx), int(fy), int(tx), int(ty), int(steps) * 5)
    return True


def _inject(phone: PhoneState, action: int, x: float, y: float, meta: int = 0) -> bool:
    w = phone.world
    touch = w.touches
    if action == 0:
        touch["u2"] = (int(x), int(y), w.clock.now())
    elif action == 1 and "u2" in touch:
        x0, y0, t0 = touch.pop("u2")
        engine.swipe(w, 0, x0, y0, int(x), int(y), int((w.clock.now() - t0) * 1000))
    return True


def _scroll_once(phone: PhoneState, selector: dict[str, Any], forward: bool, fraction: float = 0.6) -> bool:
    """One UiScrollable step on the list the selector names; False when it can't move."""
    w = phone.world
    node = _node(phone, selector)
    top = w.top_activity(0)
    if not node.scrollable or not node.list_id or top is None:
        return False
    before = top.scroll.get(node.list_id, 0)
    height = node.bounds[3] - node.bounds[1]
    top.scroll[node.list_id] = before + int(height * fraction) * (1 if forward else -1)
    w.changed()
    build_frame(w, 0)  # lays out again, which clamps the offset to the list's length
    return top.scroll.get(node.list_id, 0) != before


def _scroll_far(phone: PhoneState, selector: dict[str, Any], forward: bool, max_swipes: int) -> bool:
    return any(not _scroll_once(phone, selector, forward) for _ in range(int(max_swipes)))


def _scroll_to(phone: PhoneState, selector: dict[str, Any], target: dict[str, Any]) -> bool:
    windows = lambda: [x for _, ws in _frames(phone) for x in ws]  # noqa: E731
    _scroll_far(phone, selector, False, 50)
    for _ in range(50):
        if find_one(windows(), target) is not None:
            return True
        if not _scroll_once(phone, selector, True):
            return find_one(windows(), target) is not None
    return False


def _click_at(phone: PhoneState, x: Any, y: Any, ms: Any = 0) -> bool:
    """click(x, y[, ms]): a press of LONG_PRESS_MS or more is a long press, as on a phone."""
    press = engine.long_press if int(ms) >= engine.LONG_PRESS_MS else engine.tap
    press(phone.world, 0, int(x), int(y))
    return True


def _set_clipboard(phone: PhoneState, text: str) -> None:
    phone.world.data["clipboard"] = text
    phone.world.changed()


def _windows(phone: PhoneState) -> list[Any]:
    return [x for _, ws in _frames(phone) for x in ws]


def _child_by(
    phone: PhoneState, container: dict[str, Any], pattern: dict[str, Any], key: str, value: str, scroll: Any
) -> str:
    """childByText / childByDescription: a scrollable container is scrolled to the child
    first (UiScrollable's getChildBy… with scroll search), unless the client says not to."""
    box = find_one(_windows(phone), container)
    if box is not None and box.scrollable and scroll is not False:
        _scroll_to(phone, container, {key: value})
    attr = "text" if key == "text" else "desc"
    name = objects.child_by(phone, lambda: _windows(phone), container, pattern, lambda n: getattr(n, attr) == value)
    if name is None:
        raise RpcError(-32002, NOT_FOUND, f'{NOT_FOUND}: for {key}= "{value}"')
    return name


def _drag_to(phone: PhoneState, selector: dict[str, Any], rest: tuple[Any, ...]) -> bool:
    """dragTo(sel, x, y, steps) or dragTo(sel, destSel, steps): from the object's centre."""
    x0, y0 = _node(phone, selector).center
    if isinstance(rest[0], dict):
        (x1, y1), steps = _node(phone, rest[0]).center, rest[1] if len(rest) > 1 else 100
    else:
        (x1, y1), steps = (rest[0], rest[1]), rest[2] if len(rest) > 2 else 100
    return _swipe(phone, x0, y0, x1, y1, max(int(steps), 120))


# UiObject's two pointers stop (pinch in) or start (pinch out) this far either side of the centre.
FINGER_TOUCH_HALF_WIDTH = 20


def _pinch(phone: PhoneState, selector: dict[str, Any], percent: Any, inward: bool) -> bool:
    """UiObject.pinchIn/pinchOut: two fingers on the object's horizontal centre line."""
    left, top, right, bottom = _node(phone, selector).bounds
    cx, cy = (left + right) // 2, (top + bottom) // 2
    reach = int((right - left) / 2 * float(percent) / 100)
    edges = ((cx - reach, cy), (cx + reach, cy))
    centre = ((cx - FINGER_TOUCH_HALF_WIDTH, cy), (cx + FINGER_TOUCH_HALF_WIDTH, cy))
    gestures.two_fingers(phone.world, 0, edges if inward else centre, centre if inward else edges)
    return True


def _gesture(phone: PhoneState, s1: dict[str, Any], s2: dict[str, Any], e1: dict[str, Any], e2: dict[str, Any]) -> bool:
    def at(p: dict[str, Any]) -> tuple[int, int]:
        return int(p["x"]), int(p["y"])

    gestures.two_fingers(phone.world, 0, (at(s1), at(s2)), (at(e1), at(e2)))
    return True


# What the server's setOrientation takes (UiDevice.setOrientationLeft… freeze it there).
_ORIENTATIONS = {"n": 0, "natural": 0, "l": 1, "left": 1, "u": 2, "upsidedown": 2, "r": 3, "right": 3}


def _set_orientation(phone: PhoneState, value: str) -> bool:
    wanted = _ORIENTATIONS.get(value.lower())
    if wanted is None:
        raise RpcError(-32602, f"Invalid orientation: {value}")
    rotation.freeze(phone.world, wanted)
    return True


def _pull_shade(phone: PhoneState) -> bool:
    # UiDevice.openNotification/openQuickSettings expand the status bar panel; the sim's
    # shade holds the quick settings tiles above the notifications, so both open it.
    phone.world.shade_open = True
    phone.world.changed()
    return True


def _methods(phone: PhoneState) -> dict[str, Callable[..., Any]]:
    w = phone.world
    return {
        "deviceInfo": lambda *a: device_info(phone),
        "dumpWindowHierarchy": lambda compressed=False, max_depth=50, root_in_active=None: _dump(
            phone, bool(compressed)
        ),
        "takeScreenshot": lambda scale=1, quality=80: _screenshot(phone, scale, quality),
        "click": lambda *a: (
            _click_node(phone, a[0])
            if isinstance(a[0], dict)
            else _click_at(phone, a[0], a[1], a[2] if len(a) > 2 else 0)
        ),
        "longClick": lambda *a: (
            _click_node(phone, a[0], long=True)
            if isinstance(a[0], dict)
            else _click_at(phone, a[0], a[1], engine.LONG_PRESS_MS)
        ),
        "swipe": lambda fx, fy, tx, ty, steps=10: _swipe(phone, fx, fy, tx, ty, steps),
        "swipePoints": lambda pts, steps=10: _swipe(phone, pts[0], pts[1], pts[-2], pts[-1], steps),
        "drag": lambda sx, sy, ex, ey, steps=100: _swipe(phone, sx, sy, ex, ey, max(steps, 120)),
        "injectInputEvent": lambda action, x, y, meta=0: _inject(phone, int(action), x, y, meta),
        "pressKey": lambda name: _key(phone, _KEYS.get(str(name).lower(), str(name).upper())),
        "pressKeyCode": lambda code, meta=0: _key(phone, BY_CODE.get(int(code), "UNKNOWN")),
        "setClipboard": lambda label, text: _set_clipboard(phone, text),
        "getClipboard": lambda: w.data.get("clipboard"),
        "pasteClipboard": lambda: _paste(phone),
        "clearInputText": lambda: _clear_focused(phone),
        "wakeUp": lambda: w.set_screen(True),
        "sleep": lambda: w.set_screen(False),
        "setOrientation": lambda value: _set_orientation(phone, str(value)),
        "freezeRotation": lambda freeze=True: rotation.freeze(w) if freeze else rotation.thaw(w),
        "getLastToast": lambda: w.last_toast,
        "clearLastToast": lambda: setattr(w, "last_toast", None),
        "makeToast": lambda text, duration=1000: w.show_toast(str(text)),
        "openNotification": lambda: _pull_shade(phone),
        "openQuickSettings": lambda: _pull_shade(phone),
        "getLastTraversedText": lambda: None,
        "clearLastTraversedText": lambda: None,
        "exist": lambda sel: find_one([x for _, ws in _frames(phone) for x in ws], sel) is not None,
        "count": lambda sel: len(find_all([x for _, ws in _frames(phone) for x in ws], sel)),
        "objInfo": lambda sel: obj_info(_node(phone, sel)),
        "objInfoOfAllInstances": lambda sel: [
            obj_info(n) for n in find_all([x for _, ws in _frames(phone) for x in ws], sel)
        ],
        "scrollForward": lambda sel, vertical=True, steps=55: _scroll_once(phone, sel, True),
        "scrollBackward": lambda sel, vertical=True, steps=55: _scroll_once(phone, sel, False),
        "scrollToBeginning": lambda sel, vertical=True, max_swipes=500, steps=55: _scroll_far(
            phone, sel, False, max_swipes
        ),
        "scrollToEnd": lambda sel, vertical=True, max_swipes=500, steps=55: _scroll_far(phone, sel, True, max_swipes),
        "scrollTo": lambda sel, target, vertical=True: _scroll_to(phone, sel, target),
        "flingForward": lambda sel, vertical=True: _scroll_once(phone, sel, True, 1.5),
        "flingBackward": lambda sel, vertical=True: _scroll_once(phone, sel, False, 1.5),
        "flingToBeginning": lambda sel, vertical=True, max_swipes=500: _scroll_far(phone, sel, False, max_swipes),
        "flingToEnd": lambda sel, vertical=True, max_swipes=500: _scroll_far(phone, sel, True, max_swipes),
        "childByText": lambda sel, child, text, scroll=None: _child_by(phone, sel, child, "text", text, scroll),
        "childByDescription": lambda sel, child, desc, scroll=None: _child_by(
            phone, sel, child, "description", desc, scroll
        ),
        "childByInstance": lambda sel, child, inst: objects.child_by_instance(phone, sel, child, inst),
        "dragTo": lambda sel, *rest: _drag_to(phone, sel, rest),
        "pinchIn": lambda sel, percent=100, steps=50: _pinch(phone, sel, percent, inward=True),
        "pinchOut": lambda sel, percent=100, steps=50: _pinch(phone, sel, percent, inward=False),
        "gesture": lambda sel, s1, s2, e1, e2, steps=100: _gesture(phone, s1, s2, e1, e2),
        "getText": lambda sel: _node(phone, sel).text,
        "setText": lambda sel, text: _set_text(phone, sel, text),
        "clearTextField": lambda sel: _set_text(phone, sel, ""),
    }


async def _wait(phone: PhoneState, selector: dict[str, Any], timeout_ms: float, gone: bool) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + float(timeout_ms) / 1000
    while True:
        present = find_one([x for _, ws in _frames(phone) for x in ws], selector) is not None
        if present != gone:
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.1)


async def call(phone: PhoneState, request: dict[str, Any]) -> dict[str, Any]:
    rid = request.get("id", 1)
    method = request.get("method", "")
    params = request.get("params") or []
    if isinstance(params, dict):
        params = [params]
    params = [objects.resolve(phone, p) for p in params]
    token = None
    try:
        if faults.before_call(phone.world, method):
            token = _blind.set(True)
        if method in ("waitForExists", "waitUntilGone"):
            result: Any = await _wait(phone, params[0], params[1] if len(params) > 1 else 0, method == "waitUntilGone")
        else:
            fn = _methods(phone).get(method)
            if fn is None:
                raise RpcError(-32601, f"Method not found: {method}")
            result = faults.after_call(phone.world, method, fn(*params))
    except (RpcError, faults.RpcFault) as e:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message, "data": e.data}}
    except (TypeError, ValueError, IndexError, KeyError) as e:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"Invalid params for {method}: {e}"}}
    except Exception as e:  # a simulator bug answers as an RPC error, never kills the server
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {"code": -32001, "message": f"simulator error in {method}: {type(e).__name__}: {e}"},
        }
    finally:
        if token is not None:
            _blind.reset(token)
    return {"jsonrpc": "2.0", "id": rid, "result": result}
