"""Lays a screen's data out into Nodes with bounds: toolbar on top, body stacked down,
`bottom` stacked up from the keyboard or the screen's edge, lists filling what is left
and showing only the rows that fit at their scroll offset (like a RecyclerView)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mika.sim.apps import template as tpl
from mika.sim.world.node import Node

if TYPE_CHECKING:
    from mika.sim.world.display import Activity
    from mika.sim.world.installed import AppDef
    from mika.sim.world.world import World

STATUS_H = 100
TOOLBAR_H = 168
IME_H = 860
MARGIN = 48
FONT = 42
LINE = 56

STICKY_H = 96  # a section header (a letter, a day) in a list with sticky headers
WHEEL_ROW = 140  # a NumberPicker shows the value and one neighbour above and below
WHEEL_ROW_CUSTOM = 110  # a drawn wheel shows two neighbours each side
WHEEL_ROWS_CUSTOM = 5

_HEIGHTS = {"row": 180, "switch": 180, "check": 140, "field": 150, "button": 150, "hbar": 170, "iconbtn": 150}


# A list's rows in order: (spec, scope, group), the group being its sticky section.
Entry = tuple[dict[str, Any], dict[str, Any], str]
Entries = list[Entry]
Items = list[Any]


def text_width(s: str, size: int = FONT) -> float:
    # wide (CJK) glyphs are about one em, Latin about half; used only to wrap lines.
    return sum(size if ord(c) >= 0x2E80 else size * 0.56 for c in s)


def wrap_lines(s: str, width: int, size: int = FONT) -> int:
    lines = 0
    for para in s.split("\n") or [""]:
        lines += max(1, math.ceil(text_width(para, size) / max(width, 1)))
    return lines


class Builder:
    """Builds the nodes of one screen for one frame."""

    def __init__(self, world: World, app: AppDef, activity: Activity, width: int) -> None:
        self.world = world
        self.app = app
        self.activity = activity
        self.width = width
        self.pkg = app.package

    def scope(self, item: Any = None, index: int = 0) -> dict[str, Any]:
        return make_scope(self.world, self.activity, item, index)

    def rid(self, spec: dict[str, Any], scope: dict[str, Any]) -> str:
        rid = spec.get("id")
        if not rid:
            return ""
        rid = tpl.text(rid, scope)
        return rid if ":" in rid else f"{self.pkg}:id/{rid}"

    # -- measuring -------------------------------------------------------------------
    def measure(self, spec: dict[str, Any], scope: dict[str, Any], width: int) -> int:
        kind = spec.get("kind", "text")
        if "height" in spec:
            return int(spec["height"])
        if kind in ("text", "bubble"):
            size = 64 if spec.get("style") == "big" else FONT
            line = int(size * 1.34)
            avail = int(width * (0.7 if kind == "bubble" else 1)) - 2 * MARGIN
            lines = wrap_lines(tpl.text(spec.get("text", ""), scope), avail, size)
            extra = LINE if kind == "bubble" and spec.get("from") and tpl.text(spec["from"], scope) else 0
            if kind == "bubble":
                extra += _bubble_extra(spec, scope)
            return lines * line + (56 if kind == "bubble" else 40) + extra
        if kind == "field" and spec.get("lines"):
            return LINE * int(spec["lines"]) + 94
        if kind == "row" and not spec.get("sub"):
            return 150
        if kind == "grid":
            items = tpl.render(spec.get("items", []), scope) or []
            cols = int(spec.get("columns", 4))
            return math.ceil(len(items) / cols) * 300
        if kind in ("list", "canvas"):
            return -1  # fills what is left
        if kind == "wheel":
            custom = spec.get("style") == "custom"
            return (WHEEL_ROWS_CUSTOM if custom else 3) * (WHEEL_ROW_CUSTOM if custom else WHEEL_ROW)
        if kind == "image":
            return 400
        return _HEIGHTS.get(kind, 120)

    # -- building --------------------------------------------------------------------
    def column(
        self, specs: list[dict[str, Any]], scope: dict[str, Any], x0: int, x1: int, y0: int, y1: int
    ) -> list[Node]:
        """Stacks specs from y0 down; fill-height kinds share what is left above y1."""
        visible = [s for s in specs if tpl.check(s.get("if"), scope)]
        heights = [self.measure(s, scope, x1 - x0) for s in visible]
        fixed = sum(h for h in heights if h >= 0)
        fills = sum(1 for h in heights if h < 0)
        spare = max(0, (y1 - y0) - fixed)
        nodes = []
        y = y0
        for spec, h in zip(visible, heights, strict=False):
            if h < 0:
                h = spare // fills if fills else 0
            node = self.build(spec, scope, x0, y, x1, min(y + h, y1) if h >= 0 else y1)
            if node is not None:
                nodes.append(node)
            y += h
        return nodes

    def build(
        self, spec: dict[str, Any], scope: dict[str, Any], left: int, top: int, right: int, bottom: int
    ) -> Node | None:
        kind = spec.get("kind", "text")
        b = (left, top, right, bottom)
        rid = self.rid(spec, scope)
        pkg = self.pkg
        desc = tpl.text(spec.get("desc", ""), scope)
        taps = spec.get("tap")
        longs = spec.get("long")
        item = scope.get("item")
        if kind == "text":
            return Node(
                "android.widget.TextView",
                (left + MARGIN, top, right - MARGIN, bottom),
                pkg,
                text=tpl.text(spec.get("text", ""), scope),
                rid=rid,
                desc=desc,
                clickable=bool(taps),
                on_tap=taps,
                on_long=longs,
                long_clickable=bool(longs),
                role="text",
                style=spec.get("style", ""),
                item=item,
            )
        if kind == "bubble" and _bubble_extra(spec, scope):
            return self.message(spec, scope, b)
        if kind == "bubble":
            card_taps = taps if taps and tpl.text(spec.get("tap_if", ""), scope) else None
            side = tpl.text(spec.get("side", "in"), scope)
            sender = tpl.text(spec.get("from", ""), scope)
            body = tpl.text(spec.get("text", ""), scope)
            # bubbles hug their text, up to 70% of the row
            needed = max(max((text_width(ln) for ln in body.split("\n")), default=0), text_width(sender, 34)) + 72
            width = min(int((right - left) * 0.7), max(160, int(needed)))
            x0, x1 = (
                (right - MARGIN - width, right - MARGIN) if side == "out" else (left + MARGIN, left + MARGIN + width)
            )
            box = Node(
                "android.widget.LinearLayout",
                (x0, top + 8, x1, bottom - 8),
                pkg,
                rid=f"{pkg}:id/bubble",
                role="bubble",
                style=side,
                long_clickable=True,
                on_long=longs,
                # Only a card (a payment request, a link) takes a tap: `tap_if` names it,
                # so the plain messages around it stay unclickable as in a real chat.
                clickable=bool(card_taps),
                on_tap=card_taps,
                item=item,
            )
            y = top + 8
            if sender:
                box.children.append(
                    Node(
                        "android.widget.TextView",
                        (x0 + 24, y + 8, x1 - 24, y + LINE),
                        pkg,
                        text=sender,
                        rid=f"{pkg}:id/sender",
                        role="sender",
                    )
                )
                y += LINE
            box.children.append(
                Node(
                    "android.widget.TextView",
                    (x0 + 24, y + 16, x1 - 24, bottom - 24),
                    pkg,
                    text=tpl.text(spec.get("text", ""), scope),
                    rid=f"{pkg}:id/message_text",
                    role="bubble_text",
                    style=side,
                )
            )
            return box
        if kind == "row":
            row = Node(
                "android.widget.LinearLayout",
                b,
                pkg,
                rid=rid,
                desc=desc,
                clickable=bool(taps),
                focusable=bool(taps),
                on_tap=taps,
                on_long=longs,
                long_clickable=bool(longs),
                role="row",
                item=item,
            )
            title = tpl.text(spec.get("text", ""), scope)
            sub = tpl.text(spec.get("sub", ""), scope) if spec.get("sub") else ""
            mid = top + (bottom - top) // 2
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (left + MARGIN, top + 24, right - MARGIN, mid + (0 if sub else 50)),
                    pkg,
                    text=title,
                    rid=f"{pkg}:id/title" if not spec.get("title_id") else f"{pkg}:id/{spec['title_id']}",
                    role="row_title",
                )
            )
            if sub:
                row.children.append(
                    Node(
                        "android.widget.TextView",
                        (left + MARGIN, mid, right - MARGIN, bottom - 24),
                        pkg,
                        text=sub,
                        rid=f"{pkg}:id/summary",
                        role="row_sub",
                    )
                )
            return row
        if kind == "switch":
            bind = spec["bind"]
            on = bool(tpl.lookup(bind, scope))
            row = Node(
                "android.widget.LinearLayout",
                b,
                pkg,
                rid=rid,
                clickable=True,
                focusable=True,
                role="row",
                bind=bind,
                on_tap=[{"toggle": bind}, *list(taps or [])],
                item=item,
            )
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (left + MARGIN, top + 24, right - 260, bottom - 24),
                    pkg,
                    text=tpl.text(spec.get("text", ""), scope),
                    rid=f"{pkg}:id/title",
                    role="row_title",
                )
            )
            row.children.append(
                Node(
                    "android.widget.Switch",
                    (right - 220, top + 45, right - MARGIN, bottom - 45),
                    pkg,
                    text="",
                    rid="android:id/switch_widget",
                    checkable=True,
                    checked=on,
                    role="switch",
                    desc=tpl.text(spec.get("text", ""), scope),
                )
            )
            return row
        if kind == "check":
            field = spec.get("field")
            bind = spec.get("bind")
            on = bool(self.activity.fields.get(field)) if field else bool(bind and tpl.lookup(bind, scope))
            return Node(
                "android.widget.CheckBox",
                (left + MARGIN, top + 10, right - MARGIN, bottom - 10),
                pkg,
                text=tpl.text(spec.get("text", ""), scope),
                rid=rid,
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
                role="check",
                field=field,
                bind=bind,
                on_tap=[{"toggle": f"fields.{field}" if field else bind}, *list(taps or [])],
                item=item,
            )
        if kind == "field":
            field = spec["field"]
            value = str(self.activity.fields.get(field, "") or "")
            hint = tpl.text(spec.get("hint", ""), scope)
            password = bool(spec.get("password"))
            # TextView reports its hint as text while empty; a password's text is never exposed.
            shown = hint if not value else ("" if password else value)
            return Node(
                "android.widget.EditText",
                (left + MARGIN, top + 15, right - MARGIN, bottom - 15),
                pkg,
                text=shown,
                rid=rid,
                hint=hint,
                clickable=True,
                focusable=True,
                long_clickable=True,
                focused=self.activity.focus == field,
                password=password,
                role="field",
                field=field,
                paint=("•" * len(value) if password else value),
                on_submit=spec.get("submit"),
                style="empty" if not value else "",
            )
        if kind == "button":
            enabled = tpl.check(spec.get("enabled"), scope)
            return Node(
                "android.widget.Button",
                (left + MARGIN, top + 12, right - MARGIN, bottom - 12),
                pkg,
                text=tpl.text(spec.get("text", ""), scope),
                rid=rid,
                desc=desc,
                clickable=True,
                focusable=True,
                enabled=enabled,
                on_tap=taps if enabled else None,
                on_long=longs,
                role="button",
                style=spec.get("style", "primary"),
                item=item,
            )
        if kind == "iconbtn":
            return Node(
                "android.widget.ImageButton",
                (left + MARGIN, top + 12, right - MARGIN, bottom - 12),
                pkg,
                rid=rid,
                desc=desc,
                clickable=True,
                focusable=True,
                on_tap=taps,
                role="icon",
                paint=tpl.text(spec.get("glyph", desc[:1]), scope),
                item=item,
            )
        if kind == "hbar":
            bar = Node("android.widget.LinearLayout", b, pkg, rid=rid, role="hbar")
            kids = [s for s in spec.get("children", []) if tpl.check(s.get("if"), scope)]
            if kids:
                weights = [float(k.get("weight", 1)) for k in kids]
                unit = (right - left) / sum(weights)
                x = float(left)
                for child, weight in zip(kids, weights, strict=False):
                    x_end = x + weight * unit
                    node = self.build(child, scope, int(x), top, int(x_end), bottom)
                    if node:
                        bar.children.append(node)
                    x = x_end
            return bar
        if kind == "image":
            return Node(
                "android.widget.ImageView",
                (left + MARGIN, top, right - MARGIN, bottom),
                pkg,
                rid=rid,
                desc=desc,
                clickable=bool(taps),
                on_tap=taps,
                role="image",
                paint=tpl.text(spec.get("paint", ""), scope),
                style=spec.get("style", ""),
            )
        if kind == "canvas":
            # A WebView or a game: the pixels carry the text, the tree carries nothing.
            lines = [tpl.text(line, scope) for line in spec.get("lines", [])]
            return Node(
                spec.get("class", "android.webkit.WebView"),
                b,
                pkg,
                rid=rid,
                desc="",
                focusable=True,
                role="canvas",
                paint="\n".join(lines),
                on_tap=taps,
                clickable=False,
            )
        if kind == "progress":
            return Node(
                "android.widget.ProgressBar",
                ((left + right) // 2 - 60, top, (left + right) // 2 + 60, bottom),
                pkg,
                rid=rid or "android:id/progress",
                role="progress",
            )
        if kind == "spacer":
            return None
        if kind == "grid":
            return self.grid(spec, scope, b)
        if kind == "wheel":
            return self.wheel(spec, scope, b)
        if kind == "list":
            return self.list(spec, scope, b)
        raise tpl.TemplateError(f"unknown node kind {kind!r} in {self.pkg}")

    def grid(self, spec: dict[str, Any], scope: dict[str, Any], b: tuple[int, int, int, int]) -> Node:
        left, top, right, _bottom = b
        grid = Node("android.view.ViewGroup", b, self.pkg, rid=self.rid(spec, scope), role="grid")
        items = tpl.render(spec.get("items", []), scope) or []
        cols = int(spec.get("columns", 4))
        cell = (right - left) // cols
        for i, item in enumerate(items):
            s = self.scope(item, i)
            x = left + (i % cols) * cell
            y = top + (i // cols) * 300
            grid.children.append(
                self.build(spec["item"], s, x, y, x + cell, y + 300) or Node("android.view.View", (x, y, x, y))
            )
        return grid

    def message(self, spec: dict[str, Any], scope: dict[str, Any], b: tuple[int, int, int, int]) -> Node:
        """A chat message row as real chat apps lay it out: an optional day header, then
        the bubble with sender and time, the text or an image placeholder. The whole row
        is one child of the list, so a dump shows it as one item."""
        left, top, right, bottom = b
        pkg = self.pkg
        row = Node(
            "android.widget.LinearLayout", b, pkg, rid=f"{pkg}:id/message_item", role="message", item=scope.get("item")
        )
        day = tpl.text(spec["day"], scope) if spec.get("day") else ""
        y = top
        if day:
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (left + MARGIN, y + 8, right - MARGIN, y + LINE + 8),
                    pkg,
                    text=day,
                    rid=f"{pkg}:id/day_header",
                    role="text",
                    style="muted",
                )
            )
            y += LINE + 16
        plain = {k: v for k, v in spec.items() if k not in ("day", "time", "image")}
        bubble = self.build({**plain, "kind": "bubble"}, scope, left, y, right, bottom)
        if bubble is None:
            return row
        time = tpl.text(spec["time"], scope) if spec.get("time") else ""
        x0, _t, x1, _b = bubble.bounds
        at = bubble.children[-1].bounds[1] if bubble.children else y
        if time:
            bubble.children.insert(
                len(bubble.children) - 1,
                Node(
                    "android.widget.TextView",
                    (x0 + 24, at, x1 - 24, at + LINE),
                    pkg,
                    text=time,
                    rid=f"{pkg}:id/msg_time",
                    role="sender",
                ),
            )
            body = bubble.children[-1]
            bl, bt, br, bb = body.bounds
            body.bounds = (bl, bt + LINE, br, max(bb, bt + LINE))
        if spec.get("image") and tpl.check(spec["image"], scope):
            body = bubble.children[-1]
            bubble.children[-1] = Node(
                "android.widget.ImageView", body.bounds, pkg, desc="[图片]", rid=f"{pkg}:id/message_image", role="image"
            )
        row.children.append(bubble)
        return row

    def list(self, spec: dict[str, Any], scope: dict[str, Any], b: tuple[int, int, int, int]) -> Node:
        """A RecyclerView: only the rows in view are built. `horizontal` lays items side by
        side (`item_width` each) and scrolls sideways; `sticky` (a template of the item,
        such as its initial) puts a section header before each group and pins the current
        group's header over the list's top while it scrolls; `page` shows that many items
        and loads `page` more `more_ms` after its "Loading more" footer came into view,
        until `end_text` says there is no more."""
        left, top, right, bottom = b
        list_id = spec.get("id", "list")
        items = tpl.render(spec.get("items", []), scope) or []
        if spec.get("reverse"):
            items = list(reversed(items))
        items, footer = self._paged(spec, list_id, items)
        horizontal = bool(spec.get("horizontal"))
        entries = self._entries(spec, items, footer)
        sizes = [
            int(spec.get("item_width", 360)) if horizontal else self.measure(e_spec, e_scope, right - left)
            for e_spec, e_scope, _group in entries
        ]
        total = sum(sizes)
        view = (right - left) if horizontal else (bottom - top)
        max_off = max(0, total - view)
        stick_bottom = bool(spec.get("stick_bottom"))  # chats open at the newest message
        off = self.activity.scroll.get(list_id)
        if off is None:
            off = max_off if stick_bottom else 0
        off = max(0, min(off, max_off))
        self.activity.scroll[list_id] = off
        node = Node(
            spec.get("class", "androidx.recyclerview.widget.RecyclerView"),
            b,
            self.pkg,
            rid=self.rid(spec, scope) or f"{self.pkg}:id/{list_id}",
            scrollable=total > view,
            focusable=True,
            role="list",
            list_id=list_id,
            horizontal=horizontal,
        )
        if not items and spec.get("empty"):
            node.children.append(
                Node(
                    "android.widget.TextView",
                    (left + MARGIN, top + 40, right - MARGIN, top + 140),
                    self.pkg,
                    text=tpl.text(spec["empty"], scope),
                    rid=f"{self.pkg}:id/empty",
                    role="text",
                    style="muted",
                )
            )
            return node
        at = (left if horizontal else top) - off
        first_group = ""
        for (e_spec, e_scope, group), size in zip(entries, sizes, strict=True):
            if at + size > (left if horizontal else top) and at < (right if horizontal else bottom):
                box = (at, top, at + size, bottom) if horizontal else (left, at, right, at + size)
                child = self.build(e_spec, e_scope, *box)
                if child is not None:
                    _clip_x(child, left, right) if horizontal else _clip(child, top, bottom)
                    node.children.append(child)
                    if e_spec.get("id") == "load_more":
                        self._loading_seen(spec, list_id)
                first_group = first_group or group
            at += size
        if spec.get("sticky") and off > 0 and first_group:
            # Drawn over the rows, last in the tree, like a pinned-header layout's overlay.
            node.children.append(
                Node(
                    "android.widget.TextView",
                    (left, top, right, top + STICKY_H),
                    self.pkg,
                    text=first_group,
                    rid=f"{self.pkg}:id/pinned_header",
                    role="text",
                    style="muted",
                )
            )
        return node

    def _paged(self, spec: dict[str, Any], list_id: str, items: Items) -> tuple[Items, str]:
        """The items a list that loads more shows now, and its footer: "more" while it has
        more to load, "end" once everything is shown, "" for a list that shows all at once."""
        page = int(spec.get("page") or 0)
        if page <= 0 or len(items) <= page:
            return items, ""
        shown = self.activity.shown.get(list_id, page)
        due = self.activity.more_at.get(list_id)
        if due is not None and self.world.clock.now() >= due:
            shown += page
            del self.activity.more_at[list_id]
        self.activity.shown[list_id] = shown
        return (items, "end") if shown >= len(items) else (items[:shown], "more")

    def _loading_seen(self, spec: dict[str, Any], list_id: str) -> None:
        if list_id not in self.activity.more_at:
            self.activity.more_at[list_id] = self.world.clock.now() + int(spec.get("more_ms", 800)) / 1000

    def _entries(self, spec: dict[str, Any], items: Items, footer: str) -> Entries:
        """(spec, scope, group) of every row in order: items, section headers, the footer."""
        out: Entries = []
        last = None
        for i, item in enumerate(items):
            s = self.scope(item, i)
            group = tpl.text(spec["sticky"], s) if spec.get("sticky") else ""
            if spec.get("sticky") and group != last:
                header = {"kind": "text", "id": "section_header", "text": group, "style": "muted", "height": STICKY_H}
                out.append((header, s, group))
                last = group
            out.append((spec["item"], s, group))
        if footer == "more":
            loading = {
                "kind": "hbar",
                "id": "load_more",
                "height": 150,
                "children": [{"kind": "progress"}, {"kind": "text", "text": spec.get("more_text", "Loading more…")}],
            }
            out.append((loading, self.scope(), last or ""))
        elif footer == "end" and spec.get("end_text"):
            end = {"kind": "text", "id": "list_end", "text": spec["end_text"], "style": "muted", "height": 150}
            out.append((end, self.scope(), last or ""))
        return out

    def wheel(self, spec: dict[str, Any], scope: dict[str, Any], b: tuple[int, int, int, int]) -> Node:
        """A wheel picker. `style: "picker"` is Android's NumberPicker: scrollable, the
        value in an EditText (`android:id/numberpicker_input`, typing + focus away sets
        it), the neighbours as TextViews a tap moves to. `style: "custom"` is an app's own
        drawn wheel: a plain View with five TextViews, turned only by dragging."""
        left, top, right, _bottom = b
        field = spec["field"]
        lo, hi = int(tpl.render(spec.get("min", 0), scope)), int(tpl.render(spec.get("max", 59), scope))
        wrap = bool(spec.get("wrap", False))
        pad = int(spec.get("pad", 2))
        custom = spec.get("style") == "custom"
        row = WHEEL_ROW_CUSTOM if custom else WHEEL_ROW
        # reverse: the values get smaller down the column (a year wheel listing the newest first)
        step = -1 if spec.get("reverse") else 1
        info = {"field": field, "min": lo, "max": hi, "wrap": wrap, "row": row, "step": step}
        fields = self.activity.fields
        names = [str(n) for n in spec.get("labels", [])]  # a wheel of words: value lo shows names[0]
        edit = f"{field}__edit"
        if edit in fields and self.activity.focus != edit:
            # NumberPicker commits typed text when its EditText loses focus; out of range is dropped
            typed = str(fields.pop(edit) or "").strip()
            if typed.isdigit() and lo <= int(typed) <= hi and not names:
                fields[field] = int(typed)
            elif typed.casefold() in [n.casefold() for n in names]:
                fields[field] = lo + [n.casefold() for n in names].index(typed.casefold())
        value = _wheel_int(fields.get(field), lo)

        def at(offset: int) -> int | None:
            v = value + offset * step
            if wrap:
                return lo + (v - lo) % (hi - lo + 1)
            return v if lo <= v <= hi else None

        def label(v: int) -> str:
            return names[v - lo] if names and 0 <= v - lo < len(names) else str(v).zfill(pad)

        rid = self.rid(spec, scope)
        if custom and spec.get("pixels"):
            # drawn without any text in the tree: only the pixels show the values
            around = [at(offset) for offset in range(-2, 3)]
            return Node(
                spec.get("class", "android.view.View"),
                b,
                self.pkg,
                rid=rid,
                role="wheel_pixels",
                wheel=info,
                desc=tpl.text(spec.get("desc", ""), scope),
                focusable=True,
                paint="\n".join("" if v is None else label(v) for v in around),
            )
        if custom:
            node = Node(spec.get("class", "android.view.View"), b, self.pkg, rid=rid, role="wheel", wheel=info, desc="")
            for i, offset in enumerate(range(-2, 3)):
                v = at(offset)
                if v is None:
                    continue
                y = top + i * row
                node.children.append(
                    Node(
                        "android.widget.TextView",
                        (left + MARGIN, y, right - MARGIN, y + row),
                        self.pkg,
                        text=label(v),
                        role="text",
                        style="" if offset == 0 else "muted",
                    )
                )
            return node
        node = Node(
            "android.widget.NumberPicker",
            b,
            self.pkg,
            rid=rid,
            scrollable=True,
            focusable=True,
            role="wheel",
            wheel=info,
        )
        for i, offset in enumerate((-1, 0, 1)):
            y0, y1 = top + i * row, top + (i + 1) * row
            v = at(offset)
            if offset == 0:
                pending = fields.get(edit)
                shown = str(pending) if pending is not None and self.activity.focus == edit else label(value)
                node.children.append(
                    Node(
                        "android.widget.EditText",
                        (left + MARGIN, y0, right - MARGIN, y1),
                        self.pkg,
                        text=shown,
                        rid="android:id/numberpicker_input",
                        clickable=True,
                        focusable=True,
                        focused=self.activity.focus == edit,
                        role="field",
                        field=edit,
                        paint=shown,
                        wheel=info,
                    )
                )
            elif v is not None:
                turn = {"wheel_turn": field, "by": offset * step, "min": lo, "max": hi, "wrap": wrap}
                node.children.append(
                    Node(
                        "android.widget.Button",
                        (left + MARGIN, y0, right - MARGIN, y1),
                        self.pkg,
                        text=label(v),
                        clickable=True,
                        on_tap=[turn],
                        role="text",
                        style="muted",
                    )
                )
        return node


def _wheel_int(raw: Any, default: int) -> int:
    text = str(raw if raw is not None else "").strip()
    return int(text) if text.lstrip("-").isdigit() else default


def turn_wheel(fields: dict[str, Any], info: dict[str, Any], by: int) -> None:
    """Moves a wheel's value by `by` rows: round the range when it wraps, else to its end."""
    lo, hi = int(info["min"]), int(info["max"])
    value = _wheel_int(fields.get(info["field"]), lo) + by
    value = lo + (value - lo) % (hi - lo + 1) if info.get("wrap") else max(lo, min(hi, value))
    fields[info["field"]] = value


def _bubble_extra(spec: dict[str, Any], scope: dict[str, Any]) -> int:
    """Height a chat message adds for its day header and time line (0: a plain bubble)."""
    day = tpl.text(spec["day"], scope) if spec.get("day") else ""
    time = tpl.text(spec["time"], scope) if spec.get("time") else ""
    return (LINE + 16 if day else 0) + (LINE if time else 0)


def _clip_x(node: Node, left: int, right: int) -> None:
    l, t, r, b = node.bounds  # noqa: E741 (left, top, right, bottom)
    node.bounds = (max(l, left), t, max(min(r, right), max(l, left)), b)
    for c in node.children:
        _clip_x(c, left, right)


def _clip(node: Node, top: int, bottom: int) -> None:
    l, t, r, b = node.bounds  # noqa: E741 (left, top, right, bottom)
    node.bounds = (l, max(t, top), r, max(min(b, bottom), max(t, top)))
    for c in node.children:
        _clip(c, top, bottom)


def make_scope(world: World, activity: Activity, item: Any = None, index: int = 0) -> dict[str, Any]:
    scope: dict[str, Any] = dict(world.data)
    scope["params"] = activity.params
    scope["fields"] = activity.fields
    scope["item"] = item
    scope["index"] = index
    chinese = str(world.data.get("settings", {}).get("language", "")).startswith("中文")
    scope["apps"] = [
        {"package": a.package, "label": a.label_zh if chinese else a.label, "color": a.color}
        for a in sorted(world.apps.values(), key=lambda a: a.label.lower())
        if a.launcher
    ]
    now = world.clock.local()
    scope["now"] = {
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M"),
        "weekday": now.strftime("%A"),
        "epoch": int(world.clock.now()),
        "year": now.year,
        "month": now.month,
        "day": now.day,
    }
    return scope
