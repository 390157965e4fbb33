"""The system's own windows: status bar, keyguard and PIN pad, notification shade,
on-screen keyboard, dialogs and toasts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mika.sim.apps import template as tpl
from mika.sim.apps.layout import IME_H, MARGIN, STATUS_H
from mika.sim.world.node import Node, Window

if TYPE_CHECKING:
    from mika.sim.world.world import World

SYSTEMUI = "com.android.systemui"
IME_PKG = "com.android.inputmethod.latin"
_KEY_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def status_bar(world: World, width: int) -> Window:
    now = world.clock.local().strftime("%H:%M")
    root = Node(
        "android.widget.FrameLayout", (0, 0, width, STATUS_H), SYSTEMUI, rid=f"{SYSTEMUI}:id/status_bar", role="status"
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            (MARGIN, 0, 260, STATUS_H),
            SYSTEMUI,
            text=now,
            desc=now,
            rid=f"{SYSTEMUI}:id/clock",
            role="status_text",
        )
    )
    icons = Node(
        "android.widget.LinearLayout",
        (width - 360, 0, width - MARGIN, STATUS_H),
        SYSTEMUI,
        rid=f"{SYSTEMUI}:id/system_icons",
        role="status_icons",
    )
    if world.data["settings"].get("wifi"):
        icons.children.append(
            Node(
                "android.widget.ImageView",
                (width - 360, 20, width - 300, 80),
                SYSTEMUI,
                desc="Wifi signal full.",
                rid=f"{SYSTEMUI}:id/wifi_signal",
                role="glyph",
                paint="wifi",
            )
        )
    if world.data["settings"].get("bluetooth"):
        icons.children.append(
            Node(
                "android.widget.ImageView",
                (width - 290, 20, width - 240, 80),
                SYSTEMUI,
                desc="Bluetooth on.",
                rid=f"{SYSTEMUI}:id/bluetooth",
                role="glyph",
                paint="bt",
            )
        )
    icons.children.append(
        Node(
            "android.widget.ImageView",
            (width - 220, 20, width - MARGIN, 80),
            SYSTEMUI,
            desc="Battery 100 percent.",
            rid=f"{SYSTEMUI}:id/battery",
            role="glyph",
            paint="100%",
        )
    )
    root.children.append(icons)
    return Window("status", root, "StatusBar", SYSTEMUI)


# Quick settings tiles: (label, data path under settings)
_TILES = (
    ("Internet", "wifi"),
    ("Bluetooth", "bluetooth"),
    ("Do Not Disturb", "dnd"),
    ("Airplane mode", "airplane"),
    ("Dark theme", "dark_mode"),
    ("Location", "location"),
)


def shade(world: World, width: int, height: int) -> Window:
    """The pulled-down notification shade: quick settings tiles, then notifications."""
    root = Node(
        "android.widget.FrameLayout",
        (0, 0, width, height),
        SYSTEMUI,
        rid=f"{SYSTEMUI}:id/notification_panel",
        role="shade",
    )
    now = world.clock.local()
    root.children.append(
        Node(
            "android.widget.TextView",
            (MARGIN, 20, 400, 120),
            SYSTEMUI,
            text=now.strftime("%H:%M"),
            rid=f"{SYSTEMUI}:id/clock",
            role="text",
            style="shade",
        )
    )
    tile_w = (width - 2 * MARGIN) // 3
    for i, (label, key) in enumerate(_TILES):
        on = bool(world.data["settings"].get(key))
        x = MARGIN + (i % 3) * tile_w
        y = 160 + (i // 3) * 200
        root.children.append(
            Node(
                "android.widget.Switch",
                (x + 10, y, x + tile_w - 10, y + 180),
                SYSTEMUI,
                text=label,
                desc=f"{label},{'On' if on else 'Off'}",
                rid=f"{SYSTEMUI}:id/tile",
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
                role="tile",
                on_tap=[{"toggle": f"settings.{key}"}],
            )
        )
    y = 600
    notes = world.data.get("notifications", [])
    if not notes:
        root.children.append(
            Node(
                "android.widget.TextView",
                (MARGIN, y, width - MARGIN, y + 100),
                SYSTEMUI,
                text="No notifications",
                role="text",
                style="shade_muted",
            )
        )
    for note in notes:
        row = Node(
            "android.widget.FrameLayout",
            (MARGIN, y, width - MARGIN, y + 220),
            SYSTEMUI,
            rid=f"{SYSTEMUI}:id/expandableNotificationRow",
            desc=f"{note.get('app', '')} notification: {note.get('title', '')}",
            clickable=True,
            role="notification",
            on_tap=[{"close_shade": True}, {"remove": "notifications", "id": note.get("id")}]
            + ([{"start": note["open"]}] if note.get("open") else []),
        )
        row.children.append(
            Node(
                "android.widget.TextView",
                (MARGIN + 40, y + 20, width - MARGIN - 40, y + 70),
                SYSTEMUI,
                text=str(note.get("app", "")),
                rid="android:id/app_name_text",
                role="text",
                style="shade_muted",
            )
        )
        row.children.append(
            Node(
                "android.widget.TextView",
                (MARGIN + 40, y + 75, width - MARGIN - 40, y + 135),
                SYSTEMUI,
                text=str(note.get("title", "")),
                rid="android:id/title",
                role="text",
                style="shade",
            )
        )
        row.children.append(
            Node(
                "android.widget.TextView",
                (MARGIN + 40, y + 140, width - MARGIN - 40, y + 200),
                SYSTEMUI,
                text=str(note.get("text", "")),
                rid="android:id/text",
                role="text",
                style="shade",
            )
        )
        root.children.append(row)
        y += 240
    if notes:
        root.children.append(
            Node(
                "android.widget.Button",
                (width - 360, y + 20, width - MARGIN, y + 140),
                SYSTEMUI,
                text="Clear all",
                rid=f"{SYSTEMUI}:id/dismiss_text",
                clickable=True,
                role="button",
                style="flat",
                on_tap=[{"set": "notifications", "value": []}, {"close_shade": True}],
            )
        )
    return Window("shade", root, "NotificationShade", SYSTEMUI)


def bouncer(world: World, width: int, height: int) -> Window:
    root = Node(
        "android.widget.FrameLayout",
        (0, 0, width, height),
        SYSTEMUI,
        rid=f"{SYSTEMUI}:id/keyguard_pin_view",
        role="keyguard",
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            (0, 400, width, 500),
            SYSTEMUI,
            text="Enter your PIN",
            rid=f"{SYSTEMUI}:id/keyguard_message_area",
            role="text",
            style="center",
        )
    )
    root.children.append(
        Node(
            "android.widget.EditText",
            (240, 540, width - 240, 660),
            SYSTEMUI,
            text="",
            password=True,
            rid=f"{SYSTEMUI}:id/pinEntry",
            desc="PIN area",
            focusable=True,
            focused=True,
            role="field",
            paint="•" * len(world.pin_entry),
        )
    )
    keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "DEL", "0", "ENTER"]
    for i, k in enumerate(keys):
        x = 140 + (i % 3) * 280
        y = 820 + (i // 3) * 260
        label = {"DEL": "Delete", "ENTER": "Enter"}.get(k, k)
        root.children.append(
            Node(
                "android.widget.TextView" if k.isdigit() else "android.widget.ImageButton",
                (x, y, x + 240, y + 220),
                SYSTEMUI,
                text=k if k.isdigit() else "",
                desc=label,
                rid=f"{SYSTEMUI}:id/key{k.lower()}"
                if k.isdigit()
                else f"{SYSTEMUI}:id/{'delete_button' if k == 'DEL' else 'key_enter'}",
                clickable=True,
                role="key",
                paint=k if k.isdigit() else ("Del" if k == "DEL" else "OK"),
                on_tap=[{"pin": k}],
            )
        )
    return Window("keyguard", root, "NotificationShade", SYSTEMUI)


def keyguard(world: World, width: int, height: int) -> Window:
    if world.bouncer:
        return bouncer(world, width, height)
    now = world.clock.local()
    root = Node(
        "android.widget.FrameLayout",
        (0, 0, width, height),
        SYSTEMUI,
        rid=f"{SYSTEMUI}:id/notification_panel",
        role="keyguard",
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            (0, 500, width, 760),
            SYSTEMUI,
            text=now.strftime("%H:%M"),
            rid=f"{SYSTEMUI}:id/clock_view",
            role="text",
            style="huge",
        )
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            (0, 780, width, 860),
            SYSTEMUI,
            text=now.strftime("%A, %B %-d"),
            rid=f"{SYSTEMUI}:id/date_view",
            role="text",
            style="center",
        )
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            (0, height - 300, width, height - 200),
            SYSTEMUI,
            text="Swipe up to unlock" if not world.pin else "Swipe up, then enter PIN",
            rid=f"{SYSTEMUI}:id/keyguard_indication_text",
            role="text",
            style="center",
        )
    )
    return Window("keyguard", root, "NotificationShade", SYSTEMUI)


def keyboard(width: int, height: int) -> Window:
    top = height - IME_H
    root = Node(
        "android.widget.FrameLayout",
        (0, top, width, height),
        IME_PKG,
        rid=f"{IME_PKG}:id/keyboard_holder",
        role="keyboard",
    )
    key_h = 150
    y = top + 60
    for row in _KEY_ROWS:
        w = width // 10
        x = (width - w * len(row)) // 2
        for ch in row:
            root.children.append(
                Node(
                    "android.widget.TextView",
                    (x, y, x + w, y + key_h),
                    IME_PKG,
                    desc=ch,
                    clickable=True,
                    role="key",
                    paint=ch,
                    on_tap=[{"type": ch}],
                )
            )
            x += w
        y += key_h + 20
    specials = [
        ("Delete", "Del", [{"key": "DEL"}], 0, 160),
        ("Space", "space", [{"type": " "}], 200, width - 360),
        ("Enter", "Go", [{"key": "ENTER"}], width - 160, width),
    ]
    for desc, glyph, ops, x0, x1 in specials:
        root.children.append(
            Node(
                "android.widget.TextView",
                (x0 + 10, y, x1 - 10, y + key_h),
                IME_PKG,
                desc=desc,
                clickable=True,
                role="key",
                paint=glyph,
                on_tap=ops,
            )
        )
    return Window("ime", root, "InputMethod", IME_PKG)


def dialog(spec: dict[str, Any], pkg: str, width: int, height: int, scope: dict[str, Any]) -> Window:
    title = tpl.text(spec.get("title", ""), scope)
    message = tpl.text(spec.get("text", ""), scope)
    buttons = spec.get("buttons", [{"text": "OK", "do": []}])
    labels = [tpl.text(b.get("text", "OK"), scope) for b in reversed(buttons)]
    widths = [max(200, int(len(label) * 30) + 80) for label in labels]
    # Buttons that don't fit side by side are stacked, full width, as Android does.
    stacked = sum(widths) + 20 * (len(widths) - 1) > width - 180 - 80
    box_h = (560 if message else 400) + (130 * (len(buttons) - 1) if stacked else 0)
    top = (height - box_h) // 2
    left, right = 90, width - 90
    root = Node("android.widget.FrameLayout", (left, top, right, top + box_h), pkg, role="dialog")
    panel = Node(
        "android.widget.LinearLayout",
        (left, top, right, top + box_h),
        pkg,
        rid=f"{pkg}:id/parentPanel" if pkg == "android" else "android:id/parentPanel",
        role="plain",
    )
    root.children.append(panel)
    panel.children.append(
        Node(
            "android.widget.TextView",
            (left + 60, top + 50, right - 60, top + 140),
            pkg,
            text=title,
            rid=spec.get("title_id", "android:id/alertTitle"),
            role="text",
            style="bold",
        )
    )
    if message:
        panel.children.append(
            Node(
                "android.widget.TextView",
                (left + 60, top + 160, right - 60, top + 380),
                pkg,
                text=message,
                rid="android:id/message",
                role="text",
            )
        )
    bx = right - 40
    first_y = top + box_h - 150 - 130 * (len(buttons) - 1) if stacked else 0
    for i, button in enumerate(reversed(buttons)):
        label, w = labels[i], widths[i]
        box = (
            (left + 40, first_y + 130 * i, right - 40, first_y + 130 * i + 110)
            if stacked
            else (bx - w, top + box_h - 150, bx, top + box_h - 40)
        )
        panel.children.append(
            Node(
                "android.widget.Button",
                box,
                pkg,
                text=label,
                rid=button.get("id") or f"android:id/button{i + 1}",  # a permission dialog has its own ids
                clickable=True,
                focusable=True,
                role="button",
                style="flat",
                on_tap=[{"close_dialog": True}, *button.get("do", [])],
            )
        )
        bx -= w + 20
    return Window("dialog", root, spec.get("window", "AlertDialog"), pkg)


def toast(text: str, width: int, height: int) -> Window:
    w = min(width - 200, int(len(text) * 28) + 120)
    root = Node(
        "android.widget.FrameLayout",
        ((width - w) // 2, height - 400, (width + w) // 2, height - 280),
        "android",
        role="toast",
    )
    root.children.append(
        Node(
            "android.widget.TextView",
            ((width - w) // 2 + 40, height - 390, (width + w) // 2 - 40, height - 290),
            "android",
            text=text,
            rid="android:id/message",
            role="text",
            style="center_light",
        )
    )
    return Window("toast", root, "Toast", "android")


def text_toolbar(popup: dict[str, Any], activity: Any, pkg: str, width: int, clipboard: str) -> Window:
    """The floating selection toolbar: Cut / Copy / Paste on a field, Copy on text."""
    buttons: list[tuple[str, list[dict[str, Any]]]] = []
    if "field" in popup:
        value = str(activity.fields.get(popup["field"], "") or "")
        if value:
            buttons += [("Cut", [{"cut": popup["field"]}]), ("Copy", [{"copy": value}])]
        if clipboard:
            buttons.append(("Paste", [{"paste": True}]))
    else:
        buttons.append(("Copy", [{"copy": popup.get("copy", "")}]))
    w = 220 * max(1, len(buttons))
    x0 = max(MARGIN, min(int(popup.get("x", 0)) - w // 2, width - MARGIN - w))
    y0 = max(STATUS_H + 10, int(popup.get("y", 0)) - 200)
    root = Node(
        "android.widget.LinearLayout",
        (x0, y0, x0 + w, y0 + 130),
        pkg,
        rid="android:id/floating_toolbar_menu_item_text",
        role="toolbar",
    )
    for i, (label, ops) in enumerate(buttons):
        root.children.append(
            Node(
                "android.widget.Button",
                (x0 + i * 220, y0, x0 + (i + 1) * 220, y0 + 130),
                pkg,
                text=label,
                desc=label,
                clickable=True,
                focusable=True,
                role="button",
                style="flat",
                on_tap=[{"close_popup": True}, *ops],
            )
        )
    return Window("popup", root, "FloatingToolbar", pkg)
