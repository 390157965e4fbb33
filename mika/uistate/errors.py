"""Errors of the screen model, each with a sentence a user (or the model) can act on."""

from __future__ import annotations


class HierarchyError(Exception):
    """A hierarchy dump could not be read as a UI tree (garbage, truncated, empty).

    `kind` lets the port decide what to do without parsing the message: `empty`,
    `null_root` and `idle_timeout` are transient on a real device (uiautomator's "null
    root node" while windows change, "could not get idle state" while something
    animates) and worth a bounded retry; the others mean the bytes are broken.
    """

    RETRYABLE = frozenset({"empty", "null_root", "idle_timeout"})

    def __init__(self, reason: str, *, excerpt: str = "", kind: str = "malformed") -> None:
        self.reason = reason
        self.excerpt = excerpt
        self.kind = kind  # empty | null_root | idle_timeout | no_hierarchy | truncated | malformed | doctype | too_deep
        tail = f" (starts with {excerpt!r})" if excerpt else ""
        super().__init__(
            f"The screen's UI hierarchy could not be read: {reason}{tail}. "
            "Read the screen again; if this keeps happening, the dump is broken on the device."
        )

    @property
    def retryable(self) -> bool:
        return self.kind in self.RETRYABLE


class StaleElement(Exception):
    """An element number came from a screen version that is no longer on the phone.

    Carries the fresh listing so the tool result can hand it to the model at once,
    instead of tapping whatever now has that number.
    """

    def __init__(self, number: int, seen_version: int | None, current_version: int, listing: str) -> None:
        self.number = number
        self.seen_version = seen_version
        self.current_version = current_version
        self.listing = listing
        seen = f"screen v{seen_version}" if seen_version is not None else "an earlier screen"
        super().__init__(
            f"Element {number} is from {seen}, but the screen has changed (now v{current_version}). "
            "Nothing was done. Pick the element again from the current listing."
        )


class UnknownElement(Exception):
    """An element number that the current screen does not have."""

    def __init__(self, number: int, version: int, count: int) -> None:
        self.number = number
        self.version = version
        self.count = count
        super().__init__(
            f"Screen v{version} has no element {number} (it has 1–{count}). Pick a number from the current listing."
            if count
            else f"Screen v{version} has no numbered elements; use coordinates or read the screen again."
        )
