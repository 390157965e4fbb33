"""Operating pace (seed §6 手势的节奏 / 操作节奏): the randomness and curves, pure.

Every class takes a `random.Random` so tests are deterministic. Nothing here touches the
phone: the tools ask these for timings and points, the action entry asks `AppDwell` how long
to wait before a screen-changing action and `ScreenCap` whether the app's screen budget is
spent. `fast` (and `GesturePacing.instant()` / `TypingPacing.instant()`) is exactly the old
behaviour: no pauses, no offsets, straight uniform strokes, text written in one go.
"""

from __future__ import annotations

import math
import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

PACES = ("fast", "standard", "human")

# A point of a timed stroke: milliseconds from touch-down, x, y.
TimedPoint = tuple[int, int, int]


def _u(rng: random.Random, low: float, high: float) -> float:
    return low + (high - low) * rng.random()


# ---------------------------------------------------------------- gestures


class GesturePacing:
    """Touch timing and placement. `rng=None` is Instant: today's behaviour exactly."""

    FLICK_MS = 800
    STEP_MS = 16  # one point per frame

    def __init__(self, rng: random.Random | None) -> None:
        self.rng = rng

    @classmethod
    def instant(cls) -> GesturePacing:
        return cls(None)

    @property
    def is_instant(self) -> bool:
        return self.rng is None

    def pre_touch_ms(self) -> int:
        """Pause before a finger goes down: 30–120 ms."""
        return 0 if self.rng is None else round(_u(self.rng, 30, 120))

    def tap_hold_ms(self) -> int:
        """How long a tap stays down: 50–120 ms (0 = the platform's own tap)."""
        return 0 if self.rng is None else round(_u(self.rng, 50, 120))

    def point_in(self, left: int, top: int, right: int, bottom: int) -> tuple[int, int]:
        """A touch point near the element's centre: off by at most a fifth of the side and
        12 px, not at all on a side narrower than 24 px, always inside the element."""
        cx, cy = (left + right) // 2, (top + bottom) // 2
        if self.rng is None:
            return cx, cy
        return (self._near(cx, left, right), self._near(cy, top, bottom))

    def _near(self, centre: int, low: int, high: int) -> int:
        assert self.rng is not None
        side = high - low
        if side < 24:
            return centre
        reach = min(side / 5, 12.0)
        value = round(centre + _u(self.rng, -reach, reach))
        return max(low + 1, min(high - 1, value))

    def point_at(self, x: int, y: int, width: int = 0, height: int = 0) -> tuple[int, int]:
        """A tap by coordinates: off by at most 3 px, kept on the screen when its size is known."""
        if self.rng is None:
            return x, y
        nx, ny = x + self.rng.randint(-3, 3), y + self.rng.randint(-3, 3)
        if width > 0:
            nx = max(0, min(width - 1, nx))
        if height > 0:
            ny = max(0, min(height - 1, ny))
        return nx, ny

    def hold_ms(self, duration_ms: int) -> int:
        """A press-and-hold only ever gets longer (up to 8 %)."""
        if self.rng is None:
            return duration_ms
        return round(duration_ms * (1 + _u(self.rng, 0, 0.08)))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> list[TimedPoint]:
        """The timed points of a one-finger swipe: same start and end, a small arc (≤ 6 % of
        the distance, ≤ 30 px), duration ±8 %, slow start. A flick (< 800 ms) lifts at about the
        old uniform speed so it throws as far; a drag settles before lifting."""
        if self.rng is None:
            return [(0, x1, y1), (duration_ms, x2, y2)]
        dx, dy = x2 - x1, y2 - y1
        dist = math.hypot(dx, dy)
        if dist < 10:  # pressing in place: only longer, never moved
            hold = self.hold_ms(duration_ms)
            return [(0, x1, y1), (hold, x2, y2)]
        total = max(1, round(duration_ms * (1 + _u(self.rng, -0.08, 0.08))))
        bow = min(0.06 * dist, 30.0) * _u(self.rng, 0.3, 1.0) * self.rng.choice((-1, 1))
        nx, ny = -dy / dist, dx / dist  # unit normal
        flick = duration_ms < self.FLICK_MS
        moving = total if flick else round(total * 0.85)
        steps = max(2, min(60, moving // self.STEP_MS))
        points: list[TimedPoint] = []
        for i in range(steps + 1):
            u = i / steps
            s = _flick_curve(u) if flick else _drag_curve(u)
            off = bow * math.sin(math.pi * s)
            points.append((round(u * moving), round(x1 + dx * s + nx * off), round(y1 + dy * s + ny * off)))
        points[-1] = (moving, x2, y2)
        if not flick:
            points.append((total, x2, y2))  # settle still, then lift
        return points

    def pinch_ms(self, duration_ms: int) -> int:
        """Two-finger gestures only vary their duration (±8 %)."""
        if self.rng is None:
            return duration_ms
        return max(1, round(duration_ms * (1 + _u(self.rng, -0.08, 0.08))))


def _flick_curve(u: float) -> float:
    # s(u) = u − k·u·(1−u)²: starts at speed 1−k (slow), ends at speed 1 — the uniform speed
    # of the old straight swipe, so a flick lifts as fast and scrolls as far.
    k = 0.7
    return u - k * u * (1 - u) ** 2


def _drag_curve(u: float) -> float:
    # Smoothstep: slow start, comes to rest at the end (speed 0) before the finger lifts.
    return u * u * (3 - 2 * u)


# ---------------------------------------------------------------- typing


def graphemes(text: str) -> list[str]:
    """User-perceived characters, enough for chunking: a piece is never split inside a
    surrogate pair, before a combining mark / variation selector / skin tone / tag / keycap,
    around a zero-width joiner, inside a regional-indicator flag, or between CR and LF."""
    out: list[str] = []
    for ch in text:
        if out and _extends(out[-1], ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _extends(prev: str, ch: str) -> bool:
    cp = ord(ch)
    last = ord(prev[-1])
    if 0xDC00 <= cp <= 0xDFFF and 0xD800 <= last <= 0xDBFF:  # lone surrogates kept as a pair
        return True
    if last == 0x200D or cp == 0x200D:  # zero-width joiner glues both sides
        return True
    if prev[-1] == "\r" and ch == "\n":
        return True
    if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:  # variation selectors
        return True
    if 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F or cp == 0x20E3:  # skin tone, tags, keycap
        return True
    if 0x1F1E6 <= cp <= 0x1F1FF and 0x1F1E6 <= last <= 0x1F1FF:
        flags = sum(1 for c in prev if 0x1F1E6 <= ord(c) <= 0x1F1FF)
        return flags % 2 == 1
    return unicodedata.category(ch) in ("Mn", "Me", "Mc")


def _is_cjk(g: str) -> bool:
    return unicodedata.east_asian_width(g[0]) in ("W", "F") and unicodedata.category(g[0]).startswith("L")


def _is_break(g: str) -> bool:
    return g.isspace() or unicodedata.category(g[0]).startswith("P")


@dataclass(frozen=True)
class TypingProfile:
    latin_ms: tuple[float, float]
    cjk_ms: tuple[float, float]
    pause_s: tuple[float, float]
    max_chunks: int
    max_total_s: float
    pause_chance: float = 0.3


STANDARD_TYPING = TypingProfile((60, 170), (160, 380), (0.3, 0.9), 40, 6.0)
CAREFUL_TYPING = TypingProfile((90, 230), (220, 520), (0.5, 1.4), 60, 12.0)


@dataclass(frozen=True)
class Chunk:
    """Write `prefix` into the field after waiting `delay_ms`."""

    prefix: str
    delay_ms: int


class TypingPacing:
    """Plans growing prefixes. `profile=None` is Instant: the whole text at once."""

    def __init__(self, rng: random.Random | None, profile: TypingProfile | None = STANDARD_TYPING) -> None:
        self.rng = rng
        self.profile = profile if rng is not None else None

    @classmethod
    def instant(cls) -> TypingPacing:
        return cls(None, None)

    @classmethod
    def for_pace(cls, pace: str, rng: random.Random, careful_app: bool = False) -> TypingPacing:
        if pace == "fast":
            return cls.instant()
        return cls(rng, CAREFUL_TYPING if (pace == "human" or careful_app) else STANDARD_TYPING)

    def plan(self, text: str, *, password: bool = False, paste_only: bool = False) -> list[Chunk]:
        """The chunks to write; one chunk (the whole text, no wait) when not paced, for a
        password field, for a field that only takes a paste, or for a single character."""
        pieces = graphemes(text)
        if self.profile is None or self.rng is None or password or paste_only or len(pieces) < 2:
            return [Chunk(text, 0)]
        p, rng = self.profile, self.rng
        units: list[tuple[str, float]] = []  # (text, ms)
        i = 0
        while i < len(pieces):
            g = pieces[i]
            if _is_cjk(g):
                run = rng.randint(1, 3)  # an IME commits 1–3 characters at a time
                group = [g]
                while len(group) < run and i + len(group) < len(pieces) and _is_cjk(pieces[i + len(group)]):
                    group.append(pieces[i + len(group)])
                ms = sum(_u(rng, *p.cjk_ms) for _ in group)
                units.append(("".join(group), ms))
                i += len(group)
                continue
            ms = _u(rng, *p.latin_ms)
            if i > 0 and _is_break(pieces[i - 1]) and rng.random() < p.pause_chance:
                ms += 1000 * _u(rng, *p.pause_s)
            units.append((g, ms))
            i += 1
        per = math.ceil(len(units) / p.max_chunks)
        merged = [
            ("".join(t for t, _ in units[j : j + per]), sum(m for _, m in units[j : j + per]))
            for j in range(0, len(units), per)
        ]
        total = sum(m for _, m in merged)
        scale = min(1.0, p.max_total_s * 1000 / total) if total > 0 else 1.0
        chunks: list[Chunk] = []
        prefix = ""
        for j, (piece, ms) in enumerate(merged):
            prefix += piece
            chunks.append(Chunk(prefix, 0 if j == 0 else int(ms * scale)))
        return chunks


# ---------------------------------------------------------------- dwell between actions


@dataclass(frozen=True)
class DwellProfile:
    same_s: tuple[float, float]
    new_s: tuple[float, float]
    extra_chance: float
    extra_s: tuple[float, float]
    cap_s: float
    per_char_ms: float = 0.0
    read_cap_s: float = 0.0


STANDARD_DWELL = DwellProfile((0.5, 1.2), (0.9, 2.0), 0.05, (0.6, 1.5), 3.5)
CAREFUL_DWELL = DwellProfile((0.9, 2.2), (2.5, 5.0), 0.10, (2.0, 5.0), 15.0, per_char_ms=15.0, read_cap_s=8.0)

# Effects of an action that land on a new screen (seed: `done` or `place_changed`).
NEW_SCREEN_EFFECTS = frozenset({"done", "place_changed"})


@dataclass
class AppDwell:
    """How long to wait before a screen-changing action, counted from the end of the
    previous one: time the model spent thinking and reading counts, only the rest is waited.
    `app_pace(package)` says whether an app's knowledge asks for `careful`."""

    pace: str
    rng: random.Random
    clock: Callable[[], float]
    app_pace: Callable[[str], str] = field(default=lambda _pkg: "")
    _last_end: float | None = None
    _new_screen: bool = False
    _screen_chars: int = 0

    def profile(self, app: str) -> DwellProfile | None:
        if self.pace == "fast":
            return None
        if self.pace == "human" or self.app_pace(app) == "careful":
            return CAREFUL_DWELL
        return STANDARD_DWELL

    def dwell_s(self, app: str) -> float:
        """The whole dwell for the next action (before subtracting time already passed)."""
        p = self.profile(app)
        if p is None:
            return 0.0
        base = _u(self.rng, *(p.new_s if self._new_screen else p.same_s))
        if p.per_char_ms:
            base += min(p.read_cap_s, self._screen_chars * p.per_char_ms / 1000)
        if self.rng.random() < p.extra_chance:
            base += _u(self.rng, *p.extra_s)
        return min(p.cap_s, base)

    def before(self, app: str) -> float:
        """Seconds still to wait now; 0 for the first action of a run and under `fast`."""
        if self._last_end is None or self.pace == "fast":
            return 0.0
        return max(0.0, self.dwell_s(app) - (self.clock() - self._last_end))

    def after(self, effect: str) -> None:
        self._last_end = self.clock()
        self._new_screen = effect in NEW_SCREEN_EFFECTS

    def screen_read(self, chars: int) -> None:
        """The model read a screen of this many characters (careful reading time)."""
        self._screen_chars = max(0, chars)


# ---------------------------------------------------------------- screen cap


@dataclass
class ScreenCap:
    """At most `limit` new screens per run in an app whose knowledge says `pace: careful`."""

    pace: str
    app_pace: Callable[[str], str] = field(default=lambda _pkg: "")
    limit: int = 24
    _count: dict[str, int] = field(default_factory=dict)
    _lifted: set[str] = field(default_factory=set)

    def applies(self, app: str) -> bool:
        return self.pace != "fast" and bool(app) and app not in self._lifted and self.app_pace(app) == "careful"

    def blocks(self, app: str, capped: bool) -> bool:
        """`capped`: the tool changes screens inside the app (tap, swipe, back, key, gesture;
        a tool says so with `page_capped = True`); typing, clearing, scrolling, wheels and
        opening another app are never stopped."""
        return capped and self.applies(app) and self._count.get(app, 0) >= self.limit

    def note(self, app: str, effect: str) -> None:
        if self.applies(app) and effect in NEW_SCREEN_EFFECTS:
            self._count[app] = self._count.get(app, 0) + 1

    def user_answered(self) -> None:
        self._count.clear()

    def outward_done(self, app: str) -> None:
        """An outward action succeeded in this app: no cap there for the rest of the run."""
        self._lifted.add(app)

    def count(self, app: str) -> int:
        return self._count.get(app, 0)


@dataclass
class ScreenPace:
    """What the action entry asks before and after each screen-changing action of a run."""

    dwell: AppDwell
    cap: ScreenCap

    @classmethod
    def for_run(
        cls,
        pace: str,
        clock: Callable[[], float],
        app_pace: Callable[[str], str],
        rng: random.Random | None = None,
    ) -> ScreenPace:
        rng = rng or random.Random()
        return cls(AppDwell(pace, rng, clock, app_pace), ScreenCap(pace, app_pace))
