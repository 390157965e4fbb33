"""UiObjects the server hands out by name: what childByText / childByDescription /
childByInstance return (android-uiautomator-server keeps the UiObject and answers with
a string id, which uiautomator2 then passes wherever a Selector would go).

A named object is kept as the selector UiCollection builds for it (the container, then
the child pattern, then the instance among the container's matches), so like a UiObject
it finds its node afresh on every use.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mika.sim.u2.selector import find_all

if TYPE_CHECKING:
    from mika.sim.world.node import Window
    from mika.sim.world.phone_state import PhoneState

_PREFIX = "uiobject-"
_SKIP = ("mask", "childOrSibling", "childOrSiblingSelector")


def resolve(phone: PhoneState, value: Any) -> Any:
    """A parameter as the method should see it: an object's name becomes its selector."""
    if isinstance(value, str) and value.startswith(_PREFIX):
        return phone.u2_objects.get(value, value)
    return value


def _child_selector(container: dict[str, Any], pattern: dict[str, Any], instance: int) -> dict[str, Any]:
    chain = [*(container.get("childOrSibling") or []), "child"]
    subs = [*(container.get("childOrSiblingSelector") or []), {k: v for k, v in pattern.items() if k not in _SKIP}]
    return {**container, "childOrSibling": chain, "childOrSiblingSelector": subs, "instance": instance}


def _name(phone: PhoneState, selector: dict[str, Any]) -> str:
    name = f"{_PREFIX}{uuid.uuid4()}"
    phone.u2_objects[name] = selector
    return name


def child_by(
    phone: PhoneState,
    windows: Callable[[], list[Window]],
    container: dict[str, Any],
    pattern: dict[str, Any],
    wanted: Callable[[Any], bool],
) -> str | None:
    """UiCollection.getChildBy…: the first child matching `pattern` that is, or holds, a
    node `wanted` accepts; its name, or None when no child does."""
    rows = find_all(windows(), _child_selector(container, pattern, 0))
    for i, row in enumerate(rows):
        if any(wanted(n) for n in row.walk()):
            return _name(phone, _child_selector(container, pattern, i))
    return None


def child_by_instance(phone: PhoneState, container: dict[str, Any], pattern: dict[str, Any], instance: int) -> str:
    return _name(phone, _child_selector(container, pattern, int(instance)))
