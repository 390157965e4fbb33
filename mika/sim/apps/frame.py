"""One frame of a display: its windows bottom to top (app, status bar, keyboard, dialogs,
toast; or the keyguard), built from the world and the app files. The system's own
windows are drawn up in systemui.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mika.sim.apps import focus, systemui
from mika.sim.apps import template as tpl
from mika.sim.apps.layout import IME_H, MARGIN, STATUS_H, TOOLBAR_H, Builder, make_scope
from mika.sim.world.node import Node, Window

if TYPE_CHECKING:
    from mika.sim.world.display import Activity
    from mika.sim.world.world import World

IME_PKG = systemui.IME_PKG


def is_loading(world: World, activity: Activity) -> bool:
    return activity.loading_until > world.clock.now()


def build_frame(world: World, display_id: int = 0) -> list[Window]:
    world.tick()
    display = world.displays[display_id]
    key = (world.version, display_id, int(world.clock.now() // 60), _transient_key(world, display_id))
    cache = world.frame_cache
    if cache.get(display_id, (None,))[0] == key:
        return cache[display_id][1]
    width, height = display.size
    windows: list[Window] = []
    if world.locked and display_id == 0:
        windows.append(systemui.keyguard(world, width, height))
        windows.append(systemui.status_bar(world, width))
    else:
        task = display.top_task
        if task is not None:
            windows.append(_app_window(world, task.top, len(task.stack), width, height))
            cover = _overlay_window(world, task.top, windows[-1])
            if cover is not None:
                windows.append(cover)
        if display_id == 0:
            windows.append(systemui.status_bar(world, width))
        if task is not None and task.top.focus and world.ime_visible and display_id == world.focused_display:
            windows.append(systemui.keyboard(width, height))
        if task is not None and task.top.popup:
            windows.append(
                systemui.text_toolbar(
                    task.top.popup, task.top, task.package, width, str(world.data.get("clipboard") or "")
                )
            )
        if task is not None and task.top.dialog:
            windows.append(systemui.dialog(task.top.dialog, task.package, width, height, make_scope(world, task.top)))
    if world.shade_open and not world.locked and display_id == 0:
        windows.append(systemui.shade(world, width, height))
    dialog = world.dialog_on(display_id)
    if dialog:
        windows.append(systemui.dialog(dialog, dialog.get("package", "android"), width, height, dict(world.data)))
    toast = world.current_toast()
    if toast and display_id == 0:
        windows.append(systemui.toast(toast, width, height))
    cache[display_id] = (key, windows)
    return windows


def _transient_key(world: World, display_id: int) -> tuple[Any, ...]:
    task = world.displays[display_id].top_task
    loading = bool(task and is_loading(world, task.top))
    # A screen marked "ticks" (a splash ad's countdown) changes every second, not every minute.
    ticks = bool(task and world.apps[task.top.package].screens[task.top.screen].spec.get("ticks"))
    return (loading, world.current_toast(), int(world.clock.now()) if ticks else 0)


def _app_window(world: World, activity: Activity, depth: int, width: int, height: int) -> Window:
    app = world.apps[activity.package]
    spec = app.screens[activity.screen].spec
    builder = Builder(world, app, activity, width)
    scope = builder.scope()
    pkg = app.package
    root = Node("android.widget.FrameLayout", (0, 0, width, height), pkg, role="window")
    decor = Node("android.widget.LinearLayout", (0, 0, width, height), pkg, role="plain")
    content = Node(
        "android.widget.FrameLayout", (0, STATUS_H, width, height), pkg, rid="android:id/content", role="plain"
    )
    root.children.append(decor)
    decor.children.append(content)
    page = Node(
        "android.view.ViewGroup",
        (0, STATUS_H, width, height),
        pkg,
        rid=f"{pkg}:id/root",
        role="page",
        style=spec.get(
            "theme", "dark" if world.data["settings"].get("dark_mode") and spec.get("follow_dark", True) else ""
        ),
    )
    content.children.append(page)
    y = STATUS_H
    if spec.get("toolbar", True):
        bar = Node("android.view.ViewGroup", (0, y, width, y + TOOLBAR_H), pkg, rid=f"{pkg}:id/toolbar", role="bar")
        x = MARGIN
        if spec.get("up", depth > 1):
            bar.children.append(
                Node(
                    "android.widget.ImageButton",
                    (0, y, TOOLBAR_H, y + TOOLBAR_H),
                    pkg,
                    desc="Navigate up",
                    clickable=True,
                    focusable=True,
                    on_tap=[{"back": True}],
                    role="icon",
                    paint="←",
                )
            )
            x = TOOLBAR_H
        actions = [a for a in spec.get("actions", []) if tpl.check(a.get("if"), scope)]
        right = width - len(actions) * 144
        bar.children.append(
            Node(
                "android.widget.TextView",
                (x, y, right, y + TOOLBAR_H),
                pkg,
                text=tpl.text(spec.get("title", app.label), scope),
                rid=f"{pkg}:id/title_bar",
                role="title",
            )
        )
        for i, action in enumerate(actions):
            ax = right + i * 144
            bar.children.append(
                Node(
                    "android.widget.ImageButton",
                    (ax, y + 12, ax + 144, y + TOOLBAR_H - 12),
                    pkg,
                    desc=tpl.text(action.get("desc", ""), scope),
                    rid=builder.rid(action, scope),
                    clickable=True,
                    focusable=True,
                    on_tap=action.get("tap"),
                    role="icon",
                    paint=action.get("glyph", "+"),
                )
            )
        page.children.append(bar)
        y += TOOLBAR_H
    # "ime_resize": false is adjustPan/adjustNothing: the keyboard covers the page's bottom
    # instead of the page shrinking above it.
    resize = spec.get("ime_resize", True)
    bottom_edge = height - IME_H if (activity.focus and world.ime_visible and resize) else height
    if is_loading(world, activity):
        mid = (y + bottom_edge) // 2
        page.children.append(
            Node(
                "android.widget.ProgressBar",
                (width // 2 - 70, mid - 140, width // 2 + 70, mid),
                pkg,
                rid="android:id/progress",
                role="progress",
            )
        )
        page.children.append(
            Node(
                "android.widget.TextView",
                (0, mid + 20, width, mid + 100),
                pkg,
                text=spec.get("loading_text", "Loading…"),
                role="text",
                style="center",
            )
        )
    else:
        bottom_specs = [s for s in spec.get("bottom", []) if tpl.check(s.get("if"), scope)]
        heights = [builder.measure(s, scope, width) for s in bottom_specs]
        bottom_top = bottom_edge - sum(heights)
        page.children.extend(builder.column(spec.get("body", []), scope, 0, width, y, bottom_top))
        page.children.extend(builder.column(bottom_specs, scope, 0, width, bottom_top, bottom_edge))
    focus.mark(activity, root, width, height)
    return Window("app", root, f"{pkg}/{app.screens[activity.screen].activity}", pkg, secure=bool(spec.get("secure")))


def _overlay_window(world: World, activity: Activity, app_window: Window) -> Window | None:
    """A screen's "overlay": another app's transparent, clickable floating view laid over one
    of the page's nodes (by id), as a chat head or tips bubble sits over a button. Touches
    there land on it and do nothing."""
    spec = world.apps[activity.package].screens[activity.screen].spec.get("overlay")
    if not spec or not tpl.check(spec.get("if"), make_scope(world, activity)):
        return None
    suffix = f":id/{spec['over']}"
    under = next((n for n in app_window.root.walk() if n.rid.endswith(suffix)), None)
    if under is None:
        return None
    pkg = spec.get("package", "com.mika.tips")
    left, top, right, bottom = under.bounds
    pad = int(spec.get("pad", 20))
    box = (max(0, left - pad), max(0, top - pad), right + pad, bottom + pad)
    root = Node("android.widget.FrameLayout", box, pkg, role="plain")
    root.children.append(
        Node("android.view.View", box, pkg, desc=spec.get("desc", ""), clickable=True, focusable=True, role="plain")
    )
    close = spec.get("close")
    if close:
        # its own small close button at the bubble's top-right corner
        cb = (box[2] - 120, box[1], box[2], box[1] + 120)
        root.children.append(
            Node(
                "android.widget.ImageButton",
                cb,
                pkg,
                desc=close.get("desc", "Close"),
                clickable=True,
                focusable=True,
                on_tap=close.get("tap"),
                role="icon",
                paint="×",
            )
        )
    return Window("overlay", root, spec.get("window", f"{pkg}/Overlay"), pkg)
