"""phone_set_wheel: turn a wheel picker (time, date, region) to a value in one call.

The methods, tried in order (a `method` argument forces one):
- text: the wheel holds an EditText (Android's NumberPicker does): tap it, replace its
  text, press Enter (Done takes the focus away, which commits), read back.
- steps: one-row moves. Over ADB there is no ACTION_SCROLL_FORWARD to send, so a "step"
  here is a tap on the item just below (forward) or above (backward) the middle, which
  moves a NumberPicker by exactly one row. Batches of at most 5, read back after each.
- drag: for wheels an app draws itself. Row height from the visible items, a slow drag
  (at least 1 s, so it does not fling past) from the column's centre, read back,
  recalibrate the row height from the rows it really turned, at most 5 rounds; a fast
  flick when a slow drag does not move it.

Every touch goes through the port like phone_tap's, so pacing applies; every read
waits for the wheel to settle (two equal reads 0.35 s apart).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool, current_screen, quoted, resolve_element, stale_outcome, target_for
from mika.cap.phone.wheel_math import (
    Column,
    WheelRead,
    column_items,
    column_of,
    number_of,
    plan_steps,
    read_column,
    row_height,
    same_value,
    value_part,
)
from mika.observe.untrusted import defuse
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate import Screen, StaleElement, UnknownElement
from mika.uistate.tree import Bounds, UiNode

METHODS = ("auto", "text", "steps", "drag")
STEP_BATCH = 5
MAX_STEPS = 80
MAX_DRAG_ROUNDS = 5
SLOW_DRAG_MS = 1000
FLICK_MS = 400
MAX_STILL = 3  # drags in a row that did not move the wheel
MAX_CROSSINGS = 3  # times the steps may pass the target before the drag takes over
SETTLE_READS = 6
VALUE_MAX = 40


def _shown(value: str) -> str:
    # screen text, cut to the value and fenced: it is never an instruction
    return quoted(value_part(value)[:24])


def _asked(value: str) -> str:
    # the value the model asked for, in Mika's sentence
    return '"' + defuse(value_part(value))[:24] + '"'


def _path_to(screen: Screen, target: UiNode) -> list[UiNode]:
    def walk(node: UiNode, path: list[UiNode]) -> list[UiNode] | None:
        path = [*path, node]
        if node is target:
            return path
        for child in node.children:
            found = walk(child, path)
            if found:
                return found
        return None

    for window in screen.tree.windows:
        found = walk(window.root, [])
        if found:
            return found
    return []


def _refind(screen: Screen, col: Column) -> Column | None:
    """The same wheel on a newer read: same class and bounds."""
    for node in screen.tree.nodes():
        if node.class_name == col.node.class_name and node.bounds == col.node.bounds:
            return Column(node, col.left, col.right)
    return None


async def read_pixels(session: PhoneSession, col: Column) -> WheelRead:
    """A wheel with nothing in the tree: the OCR lines inside it stand in for its items."""
    ocr = session.reader.ocr
    if ocr is None:
        return WheelRead("", (), -1, None, None)
    picture = await session.port.screenshot(session.display)
    lines = await asyncio.to_thread(ocr, picture)
    b = col.node.bounds
    items = tuple(
        UiNode("ocr", text=line.text, bounds=line.box)
        for line in lines
        if b.contains(*line.box.centre) and line.text.strip()
    )
    # OCR boxes hug the glyphs: widen each to the column so the middle line is covered
    rows = sorted(items, key=lambda n: n.bounds.centre[1])
    gap = row_height(list(rows)) or 0.0
    padded = tuple(
        replace(n, bounds=Bounds(b.left, int(n.bounds.centre[1] - gap / 2), b.right, int(n.bounds.centre[1] + gap / 2)))
        for n in rows
    )
    stand_in = replace(col.node, children=padded, scrollable=False)
    return read_column(Column(stand_in, b.left, b.right))


class WheelGone(Exception):
    """The wheel is no longer on screen."""


@dataclass
class _Turn:
    session: PhoneSession
    col: Column
    read: WheelRead
    target: str
    attempts: int = 0
    modulus: int | None = None
    settle_s: float = 0.35

    def note(self, read: WheelRead) -> None:
        self.read = read
        if read.modulus and (self.modulus is None or read.modulus > self.modulus):
            self.modulus = read.modulus

    pixels: bool = False  # the wheel shows its values only in pixels: read them with OCR
    sweep: int = 1  # a word wheel whose target is out of sight is swept this way first

    async def read_now(self, col: Column) -> WheelRead:
        if not self.pixels:
            return read_column(col)
        return await read_pixels(self.session, col)

    @property
    def reached(self) -> bool:
        return same_value(self.read.value, self.target)

    async def settle(self) -> WheelRead:
        """Reads until two reads 0.35 s apart agree (an animation has ended)."""
        last: str | None = None
        for _ in range(SETTLE_READS):
            screen = await self.session.reader.read()
            col = _refind(screen, self.col)
            if col is None:
                raise WheelGone
            self.col = col
            read = await self.read_now(col)
            if last is not None and read.value == last:
                break
            last = read.value
            await asyncio.sleep(self.settle_s)  # the settle interval itself, not test synchronisation
        self.note(read)
        return read

    # -- text ---------------------------------------------------------------------------
    def editable(self) -> UiNode | None:
        for n in self.col.node.walk():
            if n.editable and n.enabled:
                return n
        return None

    async def by_text(self) -> bool:
        field = self.editable()
        if field is None:
            return False
        port, display = self.session.port, self.session.display
        await port.tap(display, *field.bounds.centre)
        self.attempts += 1
        wanted = value_part(self.target)
        number = number_of(wanted)
        text = str(number) if number is not None else wanted
        await port.clear_text(display, len(field.text or "") + 2)
        await port.type_text(display, text)
        await port.key(display, "ENTER")
        await self.settle()
        return self.reached

    # -- steps --------------------------------------------------------------------------
    def neighbour(self, forward: bool) -> UiNode | None:
        items = column_items(self.col)
        mid = self.col.node.bounds.centre[1]
        if forward:
            below = [n for n in items if n.bounds.top > mid and n.clickable]
            return below[0] if below else None
        above = [n for n in items if n.bounds.bottom <= mid and n.clickable]
        return above[-1] if above else None

    async def by_steps(self) -> str:
        """ "" when reached, else why not: at_end, not_moving, unfit."""
        if not (self.col.node.scrollable or self.col.node.class_name.endswith("NumberPicker")):
            return "unfit"
        goal = number_of(self.target)
        if goal is None or self.read.number is None:
            return "unfit"
        sign = 1  # +1: a tap below the middle makes the value bigger; corrected on the first read back
        calibrated = False
        steps = 0
        crossings = 0
        last_need: int | None = None
        while steps < MAX_STEPS:
            current = self.read.number
            if current is None:
                return "unreadable"
            need = plan_steps(current, goal, self.modulus)
            if need == 0:
                await self.settle()
                if self.reached:
                    return ""
                continue
            if last_need is not None and (need > 0) != (last_need > 0):
                crossings += 1
                if crossings >= MAX_CROSSINGS:
                    return "not_moving"
            last_need = need
            forward = (need > 0) == (sign > 0)
            item = self.neighbour(forward)
            if item is None:
                # no row on that side: the end of a wheel that does not wrap
                return "at_end" if self.modulus is None else "not_moving"
            batch = min(STEP_BATCH, abs(need), MAX_STEPS - steps)
            x, y = item.bounds.centre
            for _ in range(batch):
                await self.session.port.tap(self.session.display, x, y)
            steps += batch
            self.attempts += 1
            before = current
            read = await self.settle()
            if read.number is None:
                return "unreadable"
            moved = plan_steps(before, read.number, self.modulus)
            if moved == 0:
                return "at_end" if self.modulus is None else "not_moving"
            if not calibrated:
                calibrated = True
                if (moved > 0) != (need > 0):
                    sign = -sign
        return "" if self.reached else "not_moving"

    # -- drag ---------------------------------------------------------------------------
    async def by_drag(self) -> str:
        goal = number_of(self.target)
        row = self.read.row
        if row is None or row <= 0:
            return "unreadable"
        still = 0
        sign = 1  # +1: dragging up makes the value bigger; corrected from what a drag did
        frame = self.session.reader.current.frame if self.session.reader.current else None
        top_limit = (frame.top if frame else 0) + 8
        bottom_limit = (frame.bottom if frame else 100000) - 8
        fast = False
        swept_back = False
        for _ in range(MAX_DRAG_ROUNDS + MAX_STILL):
            if self.reached:
                return ""
            need = self._need(goal)
            if need is None:
                return "unreadable"
            rows = need * sign  # rows to drag up
            b = self.col.node.bounds
            x = self.col.x
            cy = b.centre[1]
            if rows > 0:
                y1 = int(cy + row * 0.5)  # from the lower item, upwards
                y2 = max(top_limit, int(y1 - rows * row))
            else:
                y1 = int(cy - row * 0.5)  # from the upper item, downwards
                y2 = min(bottom_limit, int(y1 - rows * row))
            if abs(rows) == 1:
                y2 += int(0.2 * row) * (1 if y2 > y1 else -1)  # a single row: drag a bit further
            ms = FLICK_MS if fast else max(SLOW_DRAG_MS, int(abs(y2 - y1) / row * 120))
            before = self.read
            await self.session.port.swipe(self.session.display, x, y1, x, y2, ms)
            self.attempts += 1
            await self.settle()
            if before.number is not None and self.read.number is not None:
                moved = plan_steps(before.number, self.read.number, self.modulus)
            else:
                moved = self._moved_words(before)
            if moved == 0 and goal is None and not swept_back and self._need(goal) == need:
                # a word not in sight and the wheel at its end: sweep the other way once
                swept_back, self.sweep = True, -self.sweep
                continue
            if moved == 0:
                still += 1
                if self.modulus is None and self._no_rows_towards(need):
                    return "at_end"
                if still >= MAX_STILL:
                    return "not_moving"
                fast = True
                continue
            still = 0
            was_fast, fast = fast, False
            dragged_up = y2 < y1
            if (moved > 0) != (dragged_up == (sign > 0)):
                sign = -sign  # this wheel turns the other way round
            elif not was_fast and not (self.modulus is None and self._no_rows_towards(moved)):
                # recalibrate from the rows it really turned (not when it stopped at its end)
                row = max(8.0, abs(y1 - y2) / abs(moved))
        return "" if self.reached else "not_reached"

    def _need(self, goal: int | None) -> int | None:
        if goal is not None and self.read.number is not None:
            return plan_steps(self.read.number, goal, self.modulus)
        # words: by position among the shown items, else a sweep forward
        shown = self.read.shown
        here = self.read.index if self.read.index >= 0 else len(shown) // 2
        for i, s in enumerate(shown):
            if same_value(s, self.target):
                return i - here
        return self.sweep * max(1, len(shown) - 1)

    def _moved_words(self, before: WheelRead) -> int:
        """Rows a word wheel turned (+: later items came to the middle), from where the
        old value sits now; 0 when it shows the same."""
        if before.value == self.read.value:
            return 0
        here = self.read.index if self.read.index >= 0 else len(self.read.shown) // 2
        for i, s in enumerate(self.read.shown):
            if s == before.value:
                return here - i
        return max(1, len(self.read.shown) - 1) * self.sweep  # out of sight: it went the way we swept

    def _no_rows_towards(self, need: int) -> bool:
        """No item beyond the selected one on the side the value has to go."""
        idx = self.read.index
        if idx < 0:
            return False
        shown = self.read.shown
        nums = [number_of(s) for s in shown]
        here = self.read.number
        if here is None:
            return idx == (len(shown) - 1 if need > 0 else 0)
        if need > 0:
            return not any(n is not None and n > here for n in nums)
        return not any(n is not None and n < here for n in nums)


class PhoneSetWheel(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_set_wheel"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    batchable = True
    changes_screen = True
    settle_s: ClassVar[float] = 0.35
    parameters = {
        "type": "object",
        "properties": {
            "element": {"type": "integer", "description": "The wheel, or an item it shows, from the latest listing."},
            "value": {
                "type": "string",
                "description": 'The value to show, as the wheel writes it: "7", "45", "March".',
            },
            "method": {
                "type": "string",
                "enum": list(METHODS),
                "description": "auto (default): text entry, then steps, then drags.",
            },
        },
        "required": ["element", "value"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        return await target_for({"element": args.get("element")}, self.session(ctx), "set_wheel")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        if args.get("element") is None:
            raise BadArguments(
                "phone_set_wheel: element is missing; give the number of the wheel or of an item it shows."
            )
        wanted = str(args.get("value") if args.get("value") is not None else "").strip()
        if not wanted or len(wanted) > VALUE_MAX:
            raise BadArguments(f'phone_set_wheel: value must be 1–{VALUE_MAX} characters, e.g. "7" or "March".')
        method = str(args.get("method") or "auto")
        if method not in METHODS:
            raise BadArguments(f"phone_set_wheel: method must be one of {', '.join(METHODS)}.")
        screen = await current_screen(session)
        try:
            el = resolve_element(session, int(args["element"]))
        except (StaleElement, UnknownElement) as exc:
            return stale_outcome(exc, session)
        except (TypeError, ValueError):
            raise BadArguments("phone_set_wheel: element must be a number from the listing.") from None
        col = column_of(_path_to(screen, el.node))
        pixels = False
        if (
            col is None
            and session.reader.ocr is not None
            and not el.node.text
            and not el.node.editable
            and not any(n.text or n.content_desc for n in el.node.walk() if n is not el.node)
        ):
            # a wheel the app draws itself, nothing of it in the tree: read its pixels
            col, pixels = Column(el.node, el.node.bounds.left, el.node.bounds.right), True
        if col is None:
            return ToolOutcome(
                text=f"Element {el.number} is not a wheel and no wheel column lines up with it; "
                "give the wheel or one of its items.",
                ok=False,
                code="wheel_unreadable",
            )
        turn = _Turn(session, col, read_column(col), wanted, settle_s=self.settle_s, pixels=pixels)
        if pixels:
            turn.read = await turn.read_now(col)
            if len(turn.read.shown) < 3:
                # the picture shows no column of values there either
                return ToolOutcome(
                    text=f"Element {el.number} is not a wheel: neither the tree nor the picture shows "
                    "a column of values in it; give the wheel or one of its items.",
                    ok=False,
                    code="wheel_unreadable",
                )
        turn.note(turn.read)
        if not turn.read.value:
            return ToolOutcome(text="The wheel shows no value that can be read.", ok=False, code="wheel_unreadable")
        start = turn.read.value
        if number_of(wanted) is None and turn.read.number is not None and number_of(start) is not None:
            raise BadArguments(
                f"phone_set_wheel: this wheel shows numbers (now {_shown(start)}); give value as a number."
            )
        used = "none"
        why = ""
        try:
            if turn.reached:
                return self._done(turn, start, used)
            if method in ("auto", "text") and turn.editable() is not None:
                used = "text"
                if await turn.by_text():
                    return self._done(turn, start, used)
                why = "not_reached"
            if method in ("auto", "steps"):
                why = await turn.by_steps()
                if why != "unfit":
                    used = "actions"
                if not why:
                    return self._done(turn, start, used)
                if why == "at_end":
                    return self._fail(turn, start, used, "wheel_at_end")
            if method in ("auto", "drag"):
                used = "drag"
                why = await turn.by_drag()
                if not why:
                    return self._done(turn, start, used)
        except WheelGone:
            return ToolOutcome(
                text=f"The wheel left the screen while turning (it showed {_shown(turn.read.value)}).",
                ok=False,
                code="wheel_unreadable",
                data=self._data(turn, start, used),
            )
        code = {
            "at_end": "wheel_at_end",
            "unreadable": "wheel_unreadable",
            "not_moving": "wheel_not_moving",
        }.get(why, "wheel_not_reached")
        if method == "steps" and why == "unfit":
            return ToolOutcome(
                text=f"This wheel takes no one-row steps (no rows to tap beside its middle); it shows "
                f"{_shown(turn.read.value)}. Use method drag or auto.",
                ok=False,
                code="wheel_not_moving",
                data=self._data(turn, start, used),
            )
        return self._fail(turn, start, used, code)

    @staticmethod
    def _data(turn: _Turn, start: str, used: str) -> dict[str, Any]:
        return {
            "value": value_part(turn.read.value),
            "from": value_part(start),
            "attempts": turn.attempts,
            "method": used,
        }

    def _done(self, turn: _Turn, start: str, used: str) -> ToolOutcome:
        if used == "none":
            return ToolOutcome(text=f"The wheel already shows {_shown(start)}.", data=self._data(turn, start, used))
        return ToolOutcome(
            text=f"Wheel set to {_shown(turn.read.value)} (was {_shown(start)}) by {used}, {turn.attempts} attempt(s).",
            data=self._data(turn, start, used),
        )

    def _fail(self, turn: _Turn, start: str, used: str, code: str) -> ToolOutcome:
        now = _shown(turn.read.value)
        reason = {
            "wheel_at_end": f"the wheel reached its end at {now}; {_asked(turn.target)} is not in its range.",
            "wheel_not_moving": f"the wheel stopped moving at {now}; try phone_swipe along this column.",
            "wheel_unreadable": f"its value could not be read after turning (last read {now}).",
        }.get(code, f"it shows {now} after {turn.attempts} attempt(s).")
        return ToolOutcome(
            text=f"Could not set the wheel to {_asked(turn.target)}: {reason}",
            ok=False,
            code=code,
            data=self._data(turn, start, used),
        )
