"""The run-start memory block: a few active items relevant to the goal, plus the user's
preferences, placed once in the opening context (the stable zone, so it never breaks the
cache prefix during the run)."""

from __future__ import annotations

from mika.memory.store import MemoryFileError, MemoryItem, MemoryKind, MemoryStatus, MemoryStore

MAX_ITEMS = 8
MAX_CHARS = 800
HEAD = "What the user told you in earlier tasks (their own words; use it where it fits this task):"


def pick(store: MemoryStore, goal: str, limit: int = MAX_ITEMS) -> list[MemoryItem]:
    """Goal matches first, then the newest preferences; active items only."""
    picked = store.search(goal, limit=limit)
    prefs = [i for i in reversed(store.items()) if i.kind is MemoryKind.PREFERENCE and i.status is MemoryStatus.ACTIVE]
    for item in prefs:
        if len(picked) >= limit:
            break
        if item not in picked:
            picked.append(item)
    return picked


def memory_block(store: MemoryStore | None, goal: str) -> tuple[str, str, str, str] | None:
    """`("memory", "memory", "trusted", body)` for `ContextBuilder(extra_context=…)`, or
    None when nothing is remembered (or the file can't be read: a run never stops for it)."""
    if store is None:
        return None
    try:
        items = pick(store, goal)
    except MemoryFileError:
        return None
    lines: list[str] = []
    size = len(HEAD)
    for item in items:
        line = f"- {item.kind.value}: {item.text}"
        if size + len(line) + 1 > MAX_CHARS:
            break
        lines.append(line)
        size += len(line) + 1
    if not lines:
        return None
    return ("memory", "memory", "trusted", "\n".join([HEAD, *lines]))
