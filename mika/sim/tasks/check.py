"""Success checks: small data predicates over the `simctl state` JSON.

  {"path": P, "eq": V}         value at P equals V
  {"path": P, "ne": V}
  {"path": P, "ge": N}         number at P >= N
  {"path": P, "contains": S}   text at P contains S (case-insensitive)
  {"path": P, "has": {…}}      list at P has an element matching every key; a key ending
                               in "~" matches text case-insensitively by containment
  {"path": P, "len": N}        list at P has N elements
  {"all": […]}, {"any": […]}, {"not": {…}}

Paths are dotted, with selectors: threads[name='Alice Chen'].messages.
The path `answer` is a question's final answer (SimTask.succeeded(state, answer)).
"""

from __future__ import annotations

from typing import Any

from mika.sim.apps.template import lookup


class CheckError(ValueError):
    """A malformed check in a task file."""


def _norm(text: Any) -> str:
    return " ".join(str(text).replace("’", "'").lower().split())


def _element_matches(element: Any, want: dict[str, Any]) -> bool:
    if not isinstance(element, dict):
        return False
    for key, value in want.items():
        if key.endswith("~"):
            if _norm(value) not in _norm(element.get(key[:-1], "")):
                return False
        elif element.get(key) != value:
            return False
    return True


def passes(check: dict[str, Any], state: dict[str, Any]) -> bool:
    if "all" in check:
        return all(passes(c, state) for c in check["all"])
    if "any" in check:
        return any(passes(c, state) for c in check["any"])
    if "not" in check:
        return not passes(check["not"], state)
    if "path" not in check:
        raise CheckError(f"a check needs 'path' (or all/any/not): {check!r}")
    value = lookup(check["path"], state)
    if "eq" in check:
        return value == check["eq"]
    if "ne" in check:
        return value != check["ne"]
    if "ge" in check:
        return isinstance(value, (int, float)) and value >= check["ge"]
    if "contains" in check:
        return value is not None and _norm(check["contains"]) in _norm(value)
    if "has" in check:
        return isinstance(value, list) and any(_element_matches(e, check["has"]) for e in value)
    if "len" in check:
        return isinstance(value, list) and len(value) == check["len"]
    raise CheckError(f"a check needs one of eq, ne, ge, contains, has, len: {check!r}")
