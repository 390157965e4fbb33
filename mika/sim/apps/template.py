"""The small expression language of app files: `{path|filter}` templates, paths with
selectors (`threads[id=params.thread].messages`) and conditions (`{"eq": [a, b]}`).

A template that is exactly one `{…}` yields the raw value (a list stays a list);
otherwise each `{…}` is formatted into the string.
"""

from __future__ import annotations

import re
from datetime import UTC
from typing import Any

from mika.sim.world.clock import WEEKDAYS

_EXPR = re.compile(r"\{([^{}]+)\}")
_SEGMENT = re.compile(r"^([^\[\]]*)(?:\[([^=\]]+)=([^\]]+)\])?$")

_DAY_NAMES = {"mon": "Mon", "tue": "Tue", "wed": "Wed", "thu": "Thu", "fri": "Fri", "sat": "Sat", "sun": "Sun"}
# java.util.Calendar day numbers, as the SET_ALARM intent's DAYS extra uses them.
_CALENDAR_DAYS = {2: "mon", 3: "tue", 4: "wed", 5: "thu", 6: "fri", 7: "sat", 1: "sun"}


class TemplateError(ValueError):
    """A broken expression in an app file (a bug in the data, named precisely)."""


def split_path(path: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "." and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _step(value: Any, segment: str, scope: dict[str, Any]) -> Any:
    m = _SEGMENT.match(segment)
    if not m:
        raise TemplateError(f"bad path segment {segment!r}")
    name, key, want = m.groups()
    if name:
        if isinstance(value, dict):
            value = value.get(name)
        elif isinstance(value, list) and name.lstrip("-").isdigit():
            idx = int(name)
            value = value[idx] if -len(value) <= idx < len(value) else None
        else:
            return None
    if key is not None:
        target = lookup(want, scope) if not want.startswith("'") else want.strip("'")
        if not isinstance(value, list):
            return None
        for element in value:
            if isinstance(element, dict) and str(element.get(key)) == str(target):
                return element
        return None
    return value


def lookup(path: str, scope: dict[str, Any]) -> Any:
    value: Any = scope
    for segment in split_path(path.strip()):
        value = _step(value, segment, scope)
        if value is None:
            return None
    return value


def parent_and_key(path: str, scope: dict[str, Any]) -> tuple[Any, str]:
    """For writes: the container holding the last segment, and that segment's key."""
    parts = split_path(path.strip())
    container: Any = scope
    for segment in parts[:-1]:
        nxt = _step(container, segment, scope)
        if nxt is None and isinstance(container, dict) and _SEGMENT.match(segment).group(2) is None:  # type: ignore[union-attr]
            nxt = container.setdefault(segment, {})
        if nxt is None:
            raise TemplateError(f"path {path!r}: {segment!r} does not exist")
        container = nxt
    return container, parts[-1]


def _fmt_days(days: Any) -> str:
    if not days:
        return "Once"
    days = list(days)
    if days == WEEKDAYS[:5]:
        return "Weekdays"
    if days == WEEKDAYS:
        return "Every day"
    if days == WEEKDAYS[5:]:
        return "Weekends"
    return ", ".join(_DAY_NAMES.get(d, str(d)) for d in days)


def _to_int(value: Any) -> Any:
    try:
        return int(str(value).strip())
    except ValueError:
        return value


def apply_filter(value: Any, name: str, scope: dict[str, Any]) -> Any:
    name, _, arg = name.partition(":")
    if name == "int":
        return _to_int(value)
    if name == "float":
        try:
            return float(str(value).strip())
        except ValueError:
            return value
    if name == "02":
        return f"{_to_int(value):02d}" if isinstance(_to_int(value), int) else str(value)
    if name == "money":
        return f"¥{float(value or 0):.2f}"
    if name == "days":
        return _fmt_days(value)
    if name == "caldays":
        # "2,3,4" or [2, 3, 4] from SET_ALARM's DAYS extra
        items = value if isinstance(value, list) else str(value or "").split(",")
        got = {_CALENDAR_DAYS.get(_to_int(d)) for d in items if str(d).strip()}
        return [d for d in WEEKDAYS if d in got]
    if name == "checked_days":
        # the day checkboxes of an alarm editor, fields mon … sun
        return [d for d in WEEKDAYS if isinstance(value, dict) and value.get(d)]
    if name == "onoff":
        return "On" if value else "Off"
    if name == "len":
        return len(value or [])
    if name == "total":
        return sum(float(i.get("price", 0)) * int(i.get("qty", 1)) for i in (value or []))
    if name == "last":
        return value[-1] if value else None
    if name == "initial":
        # a list's section letter: the first character, upper-cased
        return str(value or "")[:1].upper()
    if name == "lower":
        return str(value or "").lower()
    if name == "strip":
        return str(value or "").strip()
    if name == "dots":
        return "•" * len(str(value or ""))
    if name == "default":
        return value if value not in (None, "") else arg
    if name == "search":
        # items whose name contains the query (arg is the path of the query)
        query = str(lookup(arg, scope) or "").lower()
        return [i for i in (value or []) if query in str(i.get("name", "")).lower()]
    if name == "time":
        h, m = value.get("hour", 0), value.get("minute", 0)
        return f"{int(h):02d}:{int(m):02d}"
    if name == "mmss":
        seconds = int(value or 0)
        return f"{seconds // 60:02d}:{seconds % 60:02d}"
    if name == "not":
        return not value
    if name == "timer_seconds":
        m = _to_int(value.get("minutes") or 0)
        sec = _to_int(value.get("seconds") or 0)
        return (m if isinstance(m, int) else 0) * 60 + (sec if isinstance(sec, int) else 0)
    if name == "full_name":
        return " ".join(str(value.get(k) or "").strip() for k in ("first", "last") if str(value.get(k) or "").strip())
    if name in ("ms_date", "ms_time"):
        from datetime import datetime

        try:
            dt = datetime.fromtimestamp(int(value) / 1000, tz=UTC)
        except (TypeError, ValueError):
            return ""
        return dt.strftime("%Y-%m-%d") if name == "ms_date" else dt.strftime("%H:%M")
    if name == "count_qty":
        return sum(int(i.get("qty", 1)) for i in (value or []))
    if name == "preview":
        text = str(value or "").replace("\n", " ")
        return text if len(text) <= 40 else text[:39] + "…"
    if name == "chat_last":
        # the preview line of a chat: group chats prefix the sender
        msgs = (value or {}).get("messages") or []
        if not msgs:
            return ""
        m = msgs[-1]
        if not value.get("group") or m.get("from") in (None, "我"):
            return m.get("text", "")
        return f"{m.get('from')}: {m.get('text', '')}"
    if name == "group_count":
        return f"({len(value.get('members', []))})" if isinstance(value, dict) and value.get("group") else ""
    if name == "group_sender":
        # sender names show above others' messages in group chats only
        chat = lookup("chats[id=params.chat]", scope) or {}
        return value.get("from", "") if chat.get("group") and value.get("from") != "我" else ""
    if name == "side":
        return "out" if value == "我" else "in"
    if name == "last_text":
        return value[-1].get("text", "") if value else ""
    if name == "after_colon":
        return str(value or "").split(":", 1)[-1]
    if name == "name_or":
        # a contact's name for a number or name typed in a "To" field, else what was typed
        typed = str(value or "").strip()
        for c in scope.get("contacts", []):
            if typed and (
                typed.lower() == str(c.get("name", "")).lower()
                or typed.replace(" ", "") == str(c.get("phone", "")).replace(" ", "")
            ):
                return c["name"]
        return typed
    raise TemplateError(f"unknown filter {name!r}")


def evaluate(expr: str, scope: dict[str, Any]) -> Any:
    path, *filters = [p.strip() for p in expr.split("|")]
    if path.startswith("'") and path.endswith("'"):
        value: Any = path[1:-1]
    elif path.lstrip("-").isdigit():
        value = int(path)
    else:
        value = lookup(path, scope)
    for f in filters:
        value = apply_filter(value, f, scope)
    return value


def _stringify(value: Any) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def render(value: Any, scope: dict[str, Any]) -> Any:
    """Templates inside strings, lists and dicts, recursively."""
    if isinstance(value, str):
        m = _EXPR.fullmatch(value)
        if m:
            return evaluate(m.group(1), scope)
        return _EXPR.sub(lambda mm: _stringify(evaluate(mm.group(1), scope)), value)
    if isinstance(value, list):
        return [render(v, scope) for v in value]
    if isinstance(value, dict):
        return {k: render(v, scope) for k, v in value.items()}
    return value


def text(value: Any, scope: dict[str, Any]) -> str:
    return _stringify(render(value, scope))


def check(cond: Any, scope: dict[str, Any]) -> bool:
    """Conditions: eq, ne, gt, lt, ge, empty, nonempty, contains, not, all, any, or a
    template whose value is truthy."""
    if cond is None:
        return True
    if isinstance(cond, (bool, int)):
        return bool(cond)
    if isinstance(cond, str):
        return bool(render(cond, scope))
    if not isinstance(cond, dict) or len(cond) != 1:
        raise TemplateError(f"a condition is one operator, got {cond!r}")
    ((op, arg),) = cond.items()
    if op == "not":
        return not check(arg, scope)
    if op == "all":
        return all(check(c, scope) for c in arg)
    if op == "any":
        return any(check(c, scope) for c in arg)
    if op in ("empty", "nonempty"):
        v = render(arg, scope)
        is_empty = v in (None, "", [], {}) or (isinstance(v, str) and not v.strip())
        return is_empty if op == "empty" else not is_empty
    if op == "elapsed_gt":
        # [a timestamp (epoch seconds), N]: more than N seconds have passed since it
        since, seconds = (render(x, scope) for x in arg)
        now = float((scope.get("now") or {}).get("epoch", 0))
        return now - float(since or 0) > float(seconds)
    a, b = (render(x, scope) for x in arg)
    if op == "eq":
        return _stringify(a) == _stringify(b)
    if op == "ne":
        return _stringify(a) != _stringify(b)
    if op == "contains":
        return _stringify(b).lower() in _stringify(a).lower()
    fa, fb = float(a or 0), float(b or 0)
    if op == "gt":
        return fa > fb
    if op == "lt":
        return fa < fb
    if op == "ge":
        return fa >= fb
    raise TemplateError(f"unknown condition operator {op!r}")
