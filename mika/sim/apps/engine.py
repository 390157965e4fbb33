"""What input does: hit-testing a frame and running the ops the app files attach to nodes
(go, back, set, toggle, append, dialog, toast, if, launch, …)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from mika.sim.apps import focus, notifications
from mika.sim.apps import template as tpl
from mika.sim.apps.frame import build_frame
from mika.sim.apps.layout import make_scope, turn_wheel
from mika.sim.world.node import Node, Window

if TYPE_CHECKING:
    from mika.sim.world.display import Activity
    from mika.sim.world.world import World

LONG_PRESS_MS = 500
WHEEL_FLING_MS = 450  # a 0.4 s flick counts as a fling
TOUCH_SLOP = 24
_ids = itertools.count(1000)


class OpError(ValueError):
    """An app file asked for something the engine can't do (a bug in the data)."""


def enter_screen(world: World, activity: Activity) -> None:
    spec = world.apps[activity.package].screens[activity.screen].spec
    scope = make_scope(world, activity)
    after = spec.get("after")
    if after and not int(after.get("dumps", 0)):
        activity.after_from = world.clock.now()
    for name, value in spec.get("fields", {}).items():
        if name not in activity.fields:
            activity.fields[name] = tpl.render(value, scope)
    if spec.get("loading_ms"):
        activity.loading_until = world.clock.now() + int(spec["loading_ms"]) / 1000
    if spec.get("focus") and activity.focus is None:
        activity.focus = spec["focus"]
    for op in spec.get("on_enter", []):
        run_op(world, 0, activity, op, scope)


# -- screens that change by themselves ------------------------------------------------------
def _after_spec(world: World, activity: Activity) -> dict[str, Any] | None:
    spec = world.apps[activity.package].screens[activity.screen].spec.get("after")
    return spec if isinstance(spec, dict) else None


def count_dump(world: World, display_id: int) -> None:
    """`"after": {"dumps": N}`: the countdown starts with the screen's Nth dump while on top."""
    activity = world.top_activity(display_id)
    if activity is None or activity.after_done:
        return
    spec = _after_spec(world, activity)
    if spec is None:
        return
    activity.dumps += 1
    if activity.after_from is None and activity.dumps >= int(spec.get("dumps", 0)):
        activity.after_from = world.clock.now()


def run_after(world: World, display_id: int) -> None:
    """`"after": {"ms": M, "if": COND, "do": [ops]}`: once the screen has been on top M ms
    (from its entry, or from its Nth dump), its ops run once — an app replacing its own
    screen shortly after it appeared."""
    activity = world.top_activity(display_id)
    if activity is None or activity.after_done or activity.after_from is None:
        return
    spec = _after_spec(world, activity)
    if spec is None or world.clock.now() < activity.after_from + int(spec.get("ms", 0)) / 1000:
        return
    activity.after_done = True
    scope = make_scope(world, activity)
    if spec.get("if") is not None and not tpl.check(spec["if"], scope):
        return
    run_ops(world, display_id, activity, list(spec.get("do", [])), scope)


# -- hit testing -------------------------------------------------------------------------
def _hit(node: Node, x: int, y: int, want: str) -> Node | None:
    if not node.contains(x, y):
        return None
    for child in reversed(node.children):
        found = _hit(child, x, y, want)
        if found is not None:
            return found
    if want == "tap" and (node.on_tap or node.role == "field"):
        return node
    if want == "long" and (node.on_long or node.role == "field"):
        return node
    if want == "scroll" and node.scrollable:
        return node
    if want == "wheel" and node.wheel is not None and node.role in ("wheel", "wheel_pixels"):
        return node
    if want == "text" and node.text:
        return node
    return None


def _target(world: World, display_id: int, x: int, y: int, want: str) -> tuple[Window | None, Node | None]:
    windows = build_frame(world, display_id)
    for window in reversed(windows):
        if window.kind == "status":
            if window.root.contains(x, y):
                return window, None
            continue
        if window.kind == "popup":
            if window.root.contains(x, y):
                return window, _hit(window.root, x, y, want)
            top = world.top_activity(display_id)
            if top is not None:
                top.popup = None  # a touch elsewhere only puts the toolbar away
                world.changed()
            return window, None
        if window.kind in ("dialog", "shade"):
            # A modal dialog (or the shade) swallows touches outside itself.
            return window, _hit(window.root, x, y, want)
        if window.kind == "toast":
            continue
        if window.root.contains(x, y):
            return window, _hit(window.root, x, y, want)
    return None, None


def _activity(world: World, display_id: int) -> Activity | None:
    return world.top_activity(display_id)


# -- input ---------------------------------------------------------------------------------
def tap(world: World, display_id: int, x: int, y: int) -> None:
    if not world.screen_on:
        return
    if world.locked:
        # a tap on the keyguard itself does nothing (it needs a swipe up); on the PIN pad
        # it presses a key
        if world.bouncer:
            _, node = _target(world, display_id, x, y, "tap")
            for op in (node.on_tap or []) if node is not None else []:
                if "pin" in op:
                    world.enter_pin(op["pin"])
        return
    world.count_tap()
    world.touch_focus(display_id)
    window, node = _target(world, display_id, x, y, "tap")
    activity = _activity(world, display_id)
    if activity is not None:
        activity.focus_node = None  # a touch leaves key focus (touch mode)
    if node is None or activity is None:
        world.changed()
        return
    if node.role == "field" and node.field:
        activity.focus = node.field
        if node.wheel is not None and node.field not in activity.fields:
            activity.fields[node.field] = node.text  # a NumberPicker's input starts with the value
        world.ime_visible = True
        world.changed()
        return
    if (
        window is not None
        and window.kind == "dialog"
        and (dialog := world.dialog_on(display_id))
        and window.package == dialog.get("package", "android")
    ):
        _run(world, display_id, activity, node.on_tap or [], node, system=True)
        return
    _run(world, display_id, activity, node.on_tap or [], node)


def long_press(world: World, display_id: int, x: int, y: int) -> None:
    if not world.screen_on or world.locked:
        return
    _, node = _target(world, display_id, x, y, "long")
    activity = _activity(world, display_id)
    if activity is None:
        return
    if node is None:
        # Long press on plain text offers Copy, as the selection toolbar does.
        _, shown = _target(world, display_id, x, y, "text")
        if shown is not None and shown.role != "field" and shown.package == activity.package:
            activity.popup = {"copy": shown.text, "x": x, "y": y}
            world.changed()
        return
    if node.role == "field" and node.field:
        activity.focus = node.field
        world.ime_visible = True
        activity.popup = {"field": node.field, "x": x, "y": y}
        world.changed()
        return
    _run(world, display_id, activity, node.on_long or [], node)


def swipe(world: World, display_id: int, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
    if not world.screen_on:
        return
    dx, dy = x2 - x1, y2 - y1
    world.touch_focus(display_id)
    if abs(dx) < TOUCH_SLOP and abs(dy) < TOUCH_SLOP:
        if duration_ms >= LONG_PRESS_MS:
            long_press(world, display_id, x1, y1)
        else:
            tap(world, display_id, x1, y1)
        return
    if world.locked:
        height = world.displays[display_id].size[1]
        if dy < -height // 5:
            if world.pin:
                world.bouncer = True
            else:
                world.locked = False
            world.changed()
        return
    if display_id == 0 and world.shade_open:
        if dy < -TOUCH_SLOP * 4:
            world.shade_open = False  # swiping up puts the shade away
            world.changed()
        return
    if display_id == 0 and y1 < 120 and dy > 300:
        world.shade_open = True  # pulled down from the status bar
        world.ime_visible = False
        world.changed()
        return
    _, wheel = _target(world, display_id, x1, y1, "wheel")
    activity = _activity(world, display_id)
    if wheel is not None and wheel.wheel is not None and activity is not None and abs(dy) >= abs(dx):
        # dragging up brings the later values to the middle; a fling carries on twice as far
        rows = round(-dy / wheel.wheel["row"]) * int(wheel.wheel.get("step", 1))
        if duration_ms < WHEEL_FLING_MS:
            rows *= 2
        turn_wheel(activity.fields, wheel.wheel, rows)
        world.changed()
        return
    _, node = _target(world, display_id, x1, y1, "scroll")
    if node is not None and node.list_id and activity is not None:
        activity.scroll[node.list_id] = activity.scroll.get(node.list_id, 0) - (dx if node.horizontal else dy)
        world.changed()
        return
    width = world.displays[display_id].size[0]
    if x1 < 40 and dx > width // 4:
        key(world, display_id, "BACK")  # the back gesture from the left edge


def type_text(world: World, display_id: int, text: str) -> bool:
    """Inserts text into the focused field; False when nothing has focus."""
    activity = _activity(world, display_id)
    if world.locked:
        if world.bouncer:
            for ch in text:
                world.enter_pin(ch)
            return True
        return False
    if activity is None or not activity.focus:
        return False
    value = str(activity.fields.get(activity.focus, "") or "")
    activity.fields[activity.focus] = value + text
    world.field_history.append((activity.focus, value + text))
    world.changed()
    return True


def set_field_text(world: World, display_id: int, node: Node, text: str) -> bool:
    activity = _activity(world, display_id)
    if activity is None or node.role != "field" or not node.field:
        return False
    activity.fields[node.field] = text
    world.field_history.append((node.field, text))
    world.changed()
    return True


def key(world: World, display_id: int, name: str) -> None:
    activity = _activity(world, display_id)
    if name in ("POWER",):
        world.set_screen(not world.screen_on)
        return
    if name == "WAKEUP":
        world.set_screen(True) if not world.screen_on else None
        return
    if name == "SLEEP":
        world.set_screen(False)
        return
    if not world.screen_on:
        return
    if name == "MENU" and world.locked and not world.pin:
        world.locked = False
        world.changed()
        return
    if world.locked:
        if world.bouncer and name in ("DEL", "ENTER", "NUMPAD_ENTER"):
            world.enter_pin("ENTER" if name != "DEL" else "DEL")
        elif world.bouncer and name == "BACK":
            world.bouncer = False
            world.pin_entry = ""
            world.changed()
        return
    if name == "BACK":
        if world.dialog_on(display_id):
            world.dialog = None
        elif activity is not None and activity.popup:
            activity.popup = None
        elif world.shade_open:
            world.shade_open = False
        elif world.ime_visible and activity is not None and activity.focus:
            world.ime_visible = False
        elif activity is not None and activity.dialog:
            activity.dialog = None
        else:
            world.back(display_id)
        world.changed()
    elif name == "HOME":
        world.ime_visible = False
        world.shade_open = False
        if world.dialog_on(display_id):
            world.dialog = None
        world.home(display_id)
    elif name == "APP_SWITCH":
        world.changed()
    elif name == "PASTE":
        # KEYCODE_PASTE: a focused EditText pastes the clipboard (TextView.onKeyShortcut).
        type_text(world, display_id, str(world.data.get("clipboard") or ""))
    elif name == "DEL" and activity is not None and activity.focus:
        value = str(activity.fields.get(activity.focus, "") or "")
        activity.fields[activity.focus] = value[:-1]
        world.changed()
    elif name == "FORWARD_DEL":
        world.changed()
    elif (
        name in ("ENTER", "NUMPAD_ENTER")
        and activity is not None
        and activity.focus
        and activity.focus.endswith("__edit")
    ):
        activity.focus = None  # a NumberPicker's input: Done takes the focus away, which commits it
        world.ime_visible = False
        world.changed()
    elif name in focus.FORWARD + focus.BACKWARD + focus.PRESS and _key_focus(world, display_id, activity, name):
        pass
    elif name in ("ENTER", "NUMPAD_ENTER") and activity is not None and activity.focus:
        spec = _field_spec(world, activity, activity.focus)
        if spec and spec.get("submit"):
            _run(world, display_id, activity, spec["submit"], None)
        elif spec and spec.get("lines"):
            type_text(world, display_id, "\n")
    elif name == "ESCAPE" and world.ime_visible:
        world.ime_visible = False
        world.changed()


def _key_focus(world: World, display_id: int, activity: Activity | None, name: str) -> bool:
    """DPAD/TAB move key focus over the app's screen, ENTER/DPAD_CENTER press the focused
    view; True when the key did that. Only the app itself: with a dialog, the shade or the
    text toolbar over it, or on a field (ENTER submits it), the key does what it did before."""
    if activity is None or activity.dialog or activity.popup or world.dialog_on(display_id) or world.shade_open:
        return False
    windows = [w for w in build_frame(world, display_id) if w.kind == "app"]
    if not windows:
        return False
    width, height = world.displays[display_id].size
    root = windows[-1].root
    if name in focus.PRESS:
        node = focus.focused_view(activity, root, width, height)
        if node is None:
            return False
        _run(world, display_id, activity, node.on_tap or [], node)
        return True
    if focus.move(activity, root, width, height, name):
        world.changed()
    return True


def _field_spec(world: World, activity: Activity, field: str) -> dict[str, Any] | None:
    spec = world.apps[activity.package].screens[activity.screen].spec

    def find(specs: list[dict[str, Any]]) -> dict[str, Any] | None:
        for s in specs:
            if s.get("kind") == "field" and s.get("field") == field:
                return s
            found = find(s.get("children", []))
            if found:
                return found
        return None

    return find(spec.get("body", []) + spec.get("bottom", []))


# -- ops -------------------------------------------------------------------------------------
def _run(
    world: World,
    display_id: int,
    activity: Activity,
    ops: list[dict[str, Any]],
    node: Node | None,
    system: bool = False,
) -> None:
    scope = make_scope(world, activity, node.item if node is not None else None)
    for op in ops:
        if run_op(world, display_id, activity, op, scope) == "stop":
            break
    world.changed()


def run_ops(
    world: World, display_id: int, activity: Activity, ops: list[dict[str, Any]], scope: dict[str, Any]
) -> None:
    for op in ops:
        if run_op(world, display_id, activity, op, scope) == "stop":
            break
    world.changed()


def _write(world: World, activity: Activity, path: str, value: Any, scope: dict[str, Any]) -> None:
    if path.startswith("fields."):
        activity.fields[path[len("fields.") :]] = value
        return
    if path.startswith("params."):
        activity.params[path[len("params.") :]] = value
        return
    if "." not in path and "[" not in path:
        world.data[path] = value
        return
    head = tpl.split_path(path)[0]
    if head.isidentifier() and head not in ("params", "fields", "item") and head not in world.data:
        # An app's own data appears on its first write (the merged view below is a copy).
        world.data[head] = {}
    container, key = tpl.parent_and_key(
        path, world.data | {"params": activity.params, "fields": activity.fields, "item": scope.get("item")}
    )
    if isinstance(container, list) and key.lstrip("-").isdigit():
        container[int(key)] = value
    elif isinstance(container, dict):
        container[key] = value
    else:
        raise OpError(f"can't write {path!r}")


def _read(world: World, activity: Activity, path: str, scope: dict[str, Any]) -> Any:
    return tpl.lookup(path, scope)


def run_op(world: World, display_id: int, activity: Activity, op: dict[str, Any], scope: dict[str, Any]) -> str | None:
    if "if" in op and ("then" in op or "else" in op):
        branch = op.get("then", []) if tpl.check(op["if"], scope) else op.get("else", [])
        for sub in branch:
            if run_op(world, display_id, activity, sub, scope) == "stop":
                return "stop"
        return None
    if "go" in op:
        params = tpl.render(op.get("params", {}), scope)
        fields = tpl.render(op.get("fields", {}), scope)
        world.ime_visible = False
        if op.get("replace"):
            task = world.displays[display_id].top_task
            if task and task.stack:
                task.stack.pop()
        world.push(display_id, tpl.text(op["go"], scope), params, fields)
    elif "back" in op:
        world.ime_visible = False
        world.back(display_id)
    elif "home" in op:
        world.home(display_id)
    elif "start" in op:
        spec = op["start"]
        world.ime_visible = False
        world.launch(
            tpl.text(spec["package"], scope),
            display_id,
            screen=spec.get("screen"),
            params=tpl.render(spec.get("params", {}), scope),
            fields=tpl.render(spec.get("fields", {}), scope),
        )
    elif "pick_copy" in op:
        spec = op["pick_copy"]
        world.pick_copy(display_id, tpl.text(spec["package"], scope), int(tpl.text(str(spec["user"]), scope)))
    elif "launch" in op:
        world.ime_visible = False
        world.launch(tpl.text(op["launch"], scope), display_id)
    elif "toggle" in op:
        path = op["toggle"]
        _write(world, activity, path, not bool(_read(world, activity, path, scope)), scope)
    elif "set" in op:
        _write(world, activity, op["set"], tpl.render(op.get("value"), scope), scope)
    elif "wheel_turn" in op:
        turn_wheel(activity.fields, {"field": op["wheel_turn"], **op}, int(op.get("by", 1)))
    elif "inc" in op:
        path = op["inc"]
        current = _read(world, activity, path, scope) or 0
        _write(world, activity, path, current + int(op.get("by", 1)), scope)
    elif "append" in op:
        value = tpl.render(op["value"], scope)
        if isinstance(value, dict) and "id" not in value and op.get("with_id", True):
            value = {"id": next(_ids), **value}
        target = _read(world, activity, op["append"], scope)
        if target is None:
            _write(world, activity, op["append"], [], scope)
            target = _read(world, activity, op["append"], scope)
        if not isinstance(target, list):
            raise OpError(f"append: {op['append']!r} is not a list")
        target.append(value)
    elif "remove" in op:
        target = _read(world, activity, op["remove"], scope)
        want = tpl.render(op.get("id"), scope)
        if isinstance(target, list):
            target[:] = [t for t in target if not (isinstance(t, dict) and str(t.get("id")) == str(want))]
    elif "clear" in op:
        for name in op["clear"]:
            activity.fields[name] = ""
    elif "focus" in op:
        activity.focus = op["focus"] or None
        world.ime_visible = bool(op["focus"])
    elif "dialog" in op:
        activity.dialog = tpl.render(op["dialog"], scope) if op.get("render") else op["dialog"]
    elif "paste" in op:
        activity.popup = None
        type_text(world, display_id, str(world.data.get("clipboard") or ""))
    elif "copy" in op:
        activity.popup = None
        world.data["clipboard"] = tpl.text(op["copy"], scope)
        world.show_toast("Copied")
    elif "cut" in op:
        activity.popup = None
        world.data["clipboard"] = str(activity.fields.get(op["cut"], "") or "")
        activity.fields[op["cut"]] = ""
    elif "close_popup" in op:
        activity.popup = None
    elif "close_shade" in op:
        world.shade_open = False
    elif "open_shade" in op:
        world.shade_open = True
    elif "close_dialog" in op:
        if world.dialog:
            world.dialog = None
        else:
            activity.dialog = None
    elif "system_dialog" in op:
        world.show_system_dialog(op["system_dialog"], display_id)
    elif "toast" in op:
        world.show_toast(tpl.text(op["toast"], scope))
    elif "notify_later" in op:
        spec = tpl.render(op["notify_later"], scope)
        notifications.schedule(world, {k: v for k, v in spec.items() if k != "after_ms"}, int(spec.get("after_ms", 0)))
    elif "random_code" in op:
        _write(world, activity, op["random_code"], notifications.random_code(int(op.get("digits", 6))), scope)
    elif "type" in op:
        type_text(world, display_id, op["type"])
    elif "key" in op:
        key(world, display_id, op["key"])
    elif "scroll_top" in op:
        activity.scroll.pop(op["scroll_top"], None)
    elif "stop" in op:
        return "stop"
    else:
        raise OpError(f"unknown op {op!r}")
    world.changed()
    return None


# -- intents ---------------------------------------------------------------------------------
def resolve_intent(
    world: World, action: str | None, data: str | None, mime: str | None, category: str | None
) -> tuple[str, dict[str, Any]] | None:
    """(package, intent rule) for the first app whose file claims the intent."""
    for app in world.apps.values():
        for rule in app.intents:
            if rule.get("action") and rule["action"] != action:
                continue
            if rule.get("data") and not (data or "").startswith(rule["data"]):
                continue
            if rule.get("type") and rule["type"] != mime and not (data or "").startswith(rule.get("data", "\0")):
                continue
            if not rule.get("action") and not rule.get("data"):
                continue
            return app.package, rule
    return None


def start_intent(
    world: World, display_id: int, package: str, rule: dict[str, Any], extras: dict[str, Any], data: str | None
) -> None:
    app = world.apps[package]
    screen = rule.get("screen", app.main)
    activity = world.launch(package, display_id)
    scope = make_scope(world, activity)
    scope["extra"] = extras
    scope["data"] = data or ""
    if activity.package != package:
        # The system asks which copy of an app installed twice: the page opens after the pick.
        fields = tpl.render(rule.get("fields", {}), scope)
        world.defer_launch(display_id, screen, tpl.render(rule.get("params", {}), scope), fields)
        return
    for op in rule.get("do", []):
        run_op(world, display_id, world.top_activity(display_id) or activity, op, scope)
    if "do" not in rule or rule.get("screen"):
        fields = tpl.render(rule.get("fields", {}), scope)
        params = tpl.render(rule.get("params", {}), scope)
        top = world.top_activity(display_id)
        if top is None or top.screen != screen or fields or params:
            world.push(display_id, screen, params, fields)
    world.changed()
