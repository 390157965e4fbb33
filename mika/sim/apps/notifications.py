"""Notifications of the simulated phone: the ones a scenario starts with, and the ones an
app op schedules (`notify_later`) to arrive when the phone's clock reaches their time.

They belong to the apps layer: posting one is what an app does (an SMS also lands in the
Messages thread, a download's state changes); the world only keeps the records
(`data["notifications"]`, `scheduled`). Arrivals are delivered lazily: whatever reads the
world (a frame, `dumpsys`, `simctl state`, any shell command) ticks it, and the apps'
world (mika/sim/apps/live_world.py) calls `deliver_due` first, so a notification due at
t+5 s is there for every reader from t+5 s on, with no timer thread racing the adbd.
A delivered record carries what `dumpsys notification` prints: package, id, key, uid,
posted time (epoch seconds) and the posting order.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mika.sim.world.world import World

_MESSAGES = "com.google.android.apps.messaging"


def record_key(package: str, note_id: int, uid: int) -> str:
    # StatusBarNotification.key: userId|package|id|tag|uid
    return f"0|{package}|{note_id}|null|{uid}"


def _package_of(world: World, note: dict[str, Any]) -> str:
    if note.get("package"):
        return str(note["package"])
    opened = note.get("open") or {}
    if opened.get("package"):
        return str(opened["package"])
    label = str(note.get("app", ""))
    for app in world.apps.values():
        if label in (app.label, getattr(app, "label_zh", None)):
            return app.package
    return "android"


def _uid(world: World, package: str) -> int:
    app = world.apps.get(package)
    return int(app.uid) if app is not None else 1000


def _complete(world: World, note: dict[str, Any], posted: float) -> None:
    package = _package_of(world, note)
    note.setdefault("package", package)
    note.setdefault("id", world.next_note_id)
    world.next_note_id = max(world.next_note_id, int(note["id"])) + 1
    note.setdefault("posted", round(posted, 3))
    note.setdefault("key", record_key(package, int(note["id"]), _uid(world, package)))


def prepare(world: World) -> None:
    """Give the scenario's notifications their records; they were posted before the
    scenario's start, ten minutes apart, in list order."""
    world.scheduled = []
    world.next_note_id = 1
    notes = world.data.setdefault("notifications", [])
    start = world.clock.now()
    for i, note in enumerate(notes):
        _complete(world, note, start - 600 * (len(notes) - i))


def random_code(digits: int = 6) -> str:
    # A fresh code per send: tests must read it from `simctl state`, never assume it.
    return "".join(random.choice("0123456789") for _ in range(digits)).lstrip("0").rjust(digits, "1")


def schedule(world: World, spec: dict[str, Any], after_ms: int) -> None:
    world.scheduled.append({"due": world.clock.now() + after_ms / 1000, "note": dict(spec)})
    world.scheduled.sort(key=lambda s: s["due"])


def deliver_due(world: World) -> bool:
    """Post every scheduled notification whose time has come; True when any was posted."""
    now = world.clock.now()
    due = [s for s in world.scheduled if s["due"] <= now]
    if not due:
        return False
    world.scheduled = [s for s in world.scheduled if s["due"] > now]
    for item in due:
        note = dict(item["note"])
        thread = note.pop("thread", None)
        replaces = note.pop("replaces", None)
        # What the app shows once this arrives (a download's state): dotted data paths.
        for path, value in (note.pop("set", None) or {}).items():
            _set_path(world.data, str(path), value)
        notes = world.data.setdefault("notifications", [])
        if replaces is not None:
            # An update of an earlier notification (a download's progress → done): same
            # id and key, posted again.
            old = next((n for n in notes if n.get("tag") == replaces), None)
            if old is not None:
                notes.remove(old)
                note["id"], note["key"] = old["id"], old["key"]
            note["tag"] = replaces
        _complete(world, note, item["due"])
        notes.append(note)
        if thread and note.get("package") == _MESSAGES:
            _into_thread(world, str(thread), note)
    world.changed()
    return True


def _into_thread(world: World, thread_id: str, note: dict[str, Any]) -> None:
    """An SMS notification is also a message in the Messages app's thread."""
    threads = world.data.setdefault("threads", [])
    thread = next((t for t in threads if t.get("id") == thread_id), None)
    if thread is None:
        thread = {"id": thread_id, "name": note.get("title", ""), "number": note.get("title", ""), "messages": []}
        threads.append(thread)
    thread.setdefault("messages", []).append({"dir": "in", "text": note.get("text", "")})


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
