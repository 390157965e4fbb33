"""phone_event: wait for, or collect, what happens on the phone while Mika watches.

Kinds: `notification` (new records in `dumpsys notification --noredact`), `window` (the
run's display changed its front app, activity, dialog or windows), `content` (the
screen's text changed, e.g. a download finishing). What was there when the call began
is not new: notifications are snapshotted by key and posting time, screens by their
window set and texts. Notification and screen text is the apps' (an SMS can say
anything), so it comes back fenced; Mika's own lines name only sources and times.
The wait ends early when the user sends a message (`yields_to_steer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mika.cap.phone.adb.parse.notifications import NotificationRecord, parse_notifications
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool
from mika.observe.untrusted import defuse, fence
from mika.tool.context import SkippedForNewMessage, ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.uistate import Screen

MAX_TIMEOUT_S = 30.0
DEFAULT_TIMEOUT_S = 10.0
POLL_S = 0.4
KINDS = ("notification", "window", "content")
MODES = ("wait_for", "collect")
# A one-time code: 4 to 8 digits standing alone (not part of a phone number or an amount).
CODE_PATTERN = r"(?<![\d.,])(\d{4,8})(?![\d.,]*\d)"
MAX_EVENTS = 20
_PLAIN_MATCH = re.compile(r"[0-9A-Za-z_-]{1,32}")


class EventSpecError(ValueError):
    """Arguments phone_event can't use; the message names the field and what to give."""


@dataclass(frozen=True)
class EventSpec:
    kind: str
    mode: str
    timeout_s: float
    clamped: bool
    package: str | None
    text_contains: str | None
    pattern: re.Pattern[str] | None

    @staticmethod
    def parse(args: dict[str, Any]) -> EventSpec:
        kind = args.get("kind") or "notification"
        if kind not in KINDS:
            raise EventSpecError(f"phone_event: 'kind' must be one of {', '.join(KINDS)}; got {kind!r}.")
        mode = args.get("mode") or "wait_for"
        if mode not in MODES:
            raise EventSpecError(f"phone_event: 'mode' must be wait_for or collect; got {mode!r}.")
        raw = args.get("timeout_s", DEFAULT_TIMEOUT_S)
        try:
            timeout = float(raw if raw is not None else DEFAULT_TIMEOUT_S)
        except (TypeError, ValueError):
            raise EventSpecError(
                f"phone_event: 'timeout_s' must be a number of seconds (1 to 30); got {raw!r}."
            ) from None
        if timeout <= 0:
            raise EventSpecError(f"phone_event: 'timeout_s' must be more than 0 (at most 30); got {raw!r}.")
        pattern_text = args.get("pattern")
        if args.get("code"):
            pattern_text = CODE_PATTERN
        pattern = None
        if pattern_text:
            if not isinstance(pattern_text, str):
                raise EventSpecError("phone_event: 'pattern' must be a regular expression as a string.")
            try:
                pattern = re.compile(pattern_text)
            except re.error as exc:
                raise EventSpecError(
                    f"phone_event: 'pattern' is not a valid regular expression ({exc}); "
                    'give e.g. "\\\\d{6}", or code=true for a 4-8 digit code.'
                ) from None
        package = args.get("package") or None
        contains = args.get("text_contains") or None
        for name, value in (("package", package), ("text_contains", contains)):
            if value is not None and not isinstance(value, str):
                raise EventSpecError(f"phone_event: '{name}' must be a string.")
        return EventSpec(kind, mode, min(timeout, MAX_TIMEOUT_S), timeout > MAX_TIMEOUT_S, package, contains, pattern)

    def matches(self, text: str) -> tuple[bool, str | None]:
        """(does the text pass the filters, the pattern's match)."""
        if self.text_contains and self.text_contains.casefold() not in text.casefold():
            return False, None
        if self.pattern is None:
            return True, None
        m = self.pattern.search(text)
        if m is None:
            return False, None
        return True, m.group(1) if m.groups() else m.group(0)


@dataclass(frozen=True)
class Event:
    kind: str
    package: str
    # Mika's line about it (source, time); never app text.
    head: str
    # The app's text, fenced when shown.
    body: str
    match: str | None = None
    data: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "package": self.package, **(self.data or {})}
        if self.match is not None:
            out["match"] = self.match
        return out

    def render(self) -> str:
        text = self.head
        if self.match is not None:
            # The match is the app's text too: only a short code-like token stands outside
            # the fence (a pattern like ".*" must not carry an SMS's sentences out of it).
            if _PLAIN_MATCH.fullmatch(self.match):
                text += f"\nMatch: {self.match}"
            else:
                text += "\nMatch: " + fence(self.match, {"source": self.kind, "app": self.package}, block=False)
        if self.body:
            text += "\n" + fence(self.body, {"source": self.kind, "app": self.package})
        return text


def _clock(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%H:%M:%S") if ms else "unknown time"


class _Notifications:
    def __init__(self, session: PhoneSession, spec: EventSpec) -> None:
        self.session, self.spec = session, spec
        self.seen: set[tuple[str, int]] = set()

    async def records(self) -> list[NotificationRecord]:
        result = await self.session.port.shell("dumpsys notification --noredact", timeout=10.0)
        return parse_notifications(result.output)

    async def start(self) -> None:
        self.seen = {r.identity for r in await self.records()}

    async def poll(self) -> list[Event]:
        out = []
        for r in await self.records():
            if r.identity in self.seen:
                continue
            self.seen.add(r.identity)
            if self.spec.package and r.package != self.spec.package:
                continue
            body = f"{r.title}\n{r.text}" if r.title else r.text
            ok, match = self.spec.matches(body)
            if not ok:
                continue
            head = f"New notification from {r.package} (id {r.id}) posted {_clock(r.posted_ms)}:"
            data = {"title": r.title, "text": r.text, "key": r.key, "time": _clock(r.posted_ms)}
            out.append(Event("notification", r.package, head, body, match, data))
        return out


def _window_sig(screen: Screen) -> tuple[Any, ...]:
    return (
        screen.foreground_package,
        screen.activity,
        screen.has_dialog,
        tuple(sorted((w.package, w.kind) for w in screen.windows if not w.is_bar)),
    )


class _Screens:
    """Window and content events, read from the run's own display."""

    def __init__(self, session: PhoneSession, spec: EventSpec) -> None:
        self.session, self.spec = session, spec
        self.last: Screen | None = None

    async def start(self) -> None:
        self.last = await self.session.reader.read()

    async def poll(self) -> list[Event]:
        screen = await self.session.reader.read()
        before, self.last = self.last, screen
        if before is None:
            return []
        if self.spec.kind == "window":
            return self._window(before, screen)
        return self._content(before, screen)

    def _window(self, before: Screen, now: Screen) -> list[Event]:
        if _window_sig(before) == _window_sig(now):
            return []
        pkg = now.foreground_package
        if self.spec.package and pkg != self.spec.package:
            return []
        texts = " | ".join(t.strip() for t in now.texts() if t.strip())[:600] if now.has_dialog else ""
        ok, match = self.spec.matches(texts) if (self.spec.text_contains or self.spec.pattern) else (True, None)
        if not ok:
            return []
        what = "a dialog came up" if now.has_dialog and not before.has_dialog else "the front window changed"
        head = (
            f"Window event: {what}; front app {before.foreground_package or '-'} → {pkg or '-'}"
            + (f", activity {now.activity}" if now.activity else "")
            + "."
        )
        data = {
            "from": before.foreground_package,
            "to": pkg,
            "activity": now.activity,
            "dialog": now.has_dialog,
            "windows": [f"{w.package}:{w.kind}" for w in now.windows if not w.is_bar],
        }
        return [Event("window", pkg, head, texts, match, data)]

    def _content(self, before: Screen, now: Screen) -> list[Event]:
        old = [t.strip() for t in before.texts() if t.strip()]
        new = [t.strip() for t in now.texts() if t.strip()]
        added = [t for t in dict.fromkeys(new) if t not in old]
        gone = [t for t in dict.fromkeys(old) if t not in new]
        if not added and not gone:
            return []
        if self.spec.package and now.foreground_package != self.spec.package:
            return []
        body = "\n".join(added[:40])
        ok, match = self.spec.matches(body) if (self.spec.text_contains or self.spec.pattern) else (True, None)
        if not ok:
            return []
        head = f"Screen text changed in {now.foreground_package or '-'}: {len(added)} new, {len(gone)} gone." + (
            " New text:" if added else ""
        )
        return [Event("content", now.foreground_package, head, body, match, {"added": added[:40], "gone": len(gone)})]


class PhoneEvent(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_event"
    risk = Risk.READ
    control = True
    yields_to_steer = True
    batchable = True
    parameters = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(KINDS), "description": "Default notification."},
            "mode": {
                "type": "string",
                "enum": list(MODES),
                "description": "wait_for: return the first new event (default); collect: every new event until the timeout.",
            },
            "package": {"type": "string", "description": "Only events of this package."},
            "text_contains": {"type": "string", "description": "Only events whose text contains this."},
            "pattern": {
                "type": "string",
                "description": "A regular expression the text must match; its match (group 1 if any) is returned.",
            },
            "code": {"type": "boolean", "description": "True: match a 4-8 digit one-time code and return it."},
            "timeout_s": {"type": "number", "description": "Default 10, at most 30."},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            spec = EventSpec.parse(args)
        except EventSpecError as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        session = self.session(ctx)
        source: _Notifications | _Screens = (
            _Notifications(session, spec) if spec.kind == "notification" else _Screens(session, spec)
        )
        start = ctx.clock()
        await source.start()
        events: list[Event] = []
        stopped = "timeout"
        try:
            while True:
                events.extend(await source.poll())
                if events and spec.mode == "wait_for":
                    stopped = "arrived"
                    break
                if len(events) >= MAX_EVENTS:
                    stopped = "limit"
                    break
                left = spec.timeout_s - (ctx.clock() - start)
                if left <= 0:
                    break
                await ctx.wait_or_steer(min(POLL_S, left))
        except SkippedForNewMessage:
            stopped = "new_message"
        waited = int((ctx.clock() - start) * 1000)
        return self._outcome(spec, events, stopped, waited)

    @staticmethod
    def _outcome(spec: EventSpec, events: list[Event], stopped: str, waited_ms: int) -> ToolOutcome:
        lines = []
        if spec.clamped:
            lines.append(f"timeout_s was cut to {MAX_TIMEOUT_S:g} s, the most phone_event waits.")
        secs = f"{waited_ms / 1000:.1f} s"
        match = next((e.match for e in events if e.match is not None), None)
        data: dict[str, Any] = {
            "kind": spec.kind,
            "events": [e.as_dict() for e in events],
            "stopped": stopped,
            "waited_ms": waited_ms,
        }
        if match is not None:
            data["match"] = match
        if stopped == "new_message":
            lines.append(f"Stopped watching after {secs}: the user sent a new message; read it first.")
        elif not events:
            filters = _filters(spec)
            lines.append(f"Nothing new arrived in {secs} ({spec.kind}{filters}).")
        else:
            lines.append(
                f"{len(events)} new {spec.kind} event{'s' if len(events) != 1 else ''} in {secs}"
                + (f" (stopped at {MAX_EVENTS})" if stopped == "limit" else "")
                + ":"
            )
        lines.extend(e.render() for e in events)
        if stopped == "new_message":
            code = "skipped_for_new_message"
        elif events:
            code = "done"
        else:
            code = "event_timeout"
        ok = bool(events) or (spec.mode == "collect" and stopped == "timeout") or stopped == "new_message"
        return ToolOutcome(text="\n".join(lines), ok=ok, code=code, wait_ms=waited_ms, data=data)


def _filters(spec: EventSpec) -> str:
    parts: list[str] = []
    if spec.package:
        parts.append(f"package {spec.package}")
    if spec.text_contains:
        parts.append(f"text containing {defuse(spec.text_contains)!r}")
    if spec.pattern is not None:
        parts.append(
            "a 4-8 digit code" if spec.pattern.pattern == CODE_PATTERN else f"pattern {defuse(spec.pattern.pattern)!r}"
        )
    return (" matching " + ", ".join(parts)) if parts else ""


__all__ = ["EventSpec", "EventSpecError", "PhoneEvent", "parse_notifications"]
