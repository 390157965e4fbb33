"""A small check of tool arguments against the declared JSON schema.

Only what the model gets wrong in practice: missing required keys, wrong basic types,
values outside an enum. The message names the parameter so the model can fix the call.
"""

from __future__ import annotations

import json
from typing import Any

from mika.tool.errors import BadArguments

# How much of a malformed argument text goes back to the model: enough to see the fault.
RAW_SHOWN = 200

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def check_raw_arguments(tool_name: str, raw: str | None) -> None:
    """The argument text exactly as the model sent it must be one JSON object. Adapters
    turn text that is not into {}, which would otherwise read as "missing parameter"."""
    if raw is None or not raw.strip():
        return
    try:
        value = json.loads(raw)
    except ValueError as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise BadArguments(
            f"{tool_name}: the arguments are malformed JSON ({reason}{where}): {_shown(raw)}. "
            "Send the arguments again as one JSON object.",
            code="malformed_arguments",
        ) from None
    if value is not None and not isinstance(value, dict):
        raise BadArguments(
            f"{tool_name}: the arguments must be one JSON object, got a JSON {type(value).__name__}: {_shown(raw)}.",
            code="malformed_arguments",
        )


def _shown(raw: str) -> str:
    if len(raw) <= RAW_SHOWN:
        return json.dumps(raw, ensure_ascii=False)
    return f"{json.dumps(raw[:RAW_SHOWN], ensure_ascii=False)}… (cut at {RAW_SHOWN} of {len(raw)} characters)"


def check_arguments(tool_name: str, schema: dict[str, Any], args: Any, *, raw: str | None = None) -> dict[str, Any]:
    """`raw`: the argument text as received, if any; checked first, so malformed JSON is
    reported as malformed, with the parser's words."""
    check_raw_arguments(tool_name, raw)
    if not isinstance(args, dict):
        raise BadArguments(f"{tool_name}: arguments must be a JSON object, got {type(args).__name__}")
    props: dict[str, Any] = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in args or args[key] is None:
            raise BadArguments(f"{tool_name}: missing required parameter '{key}'")
    for key, value in args.items():
        spec = props.get(key)
        if spec is None or value is None:
            continue
        kinds = spec.get("type")
        if kinds:
            names = kinds if isinstance(kinds, list) else [kinds]
            allowed = tuple(t for n in names for t in _TYPES.get(n, ()))
            ok = isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)
            if allowed and not ok:
                # Models often send numbers as strings; accept those that convert cleanly.
                if isinstance(value, str) and set(names) & {"integer", "number"}:
                    try:
                        args[key] = int(value) if "integer" in names else float(value)
                        continue
                    except ValueError:
                        pass
                # …and numbers where text is asked for (a wheel's "7", a code): the digits are the text.
                if "string" in names and isinstance(value, int | float) and not isinstance(value, bool):
                    args[key] = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
                    continue
                raise BadArguments(f"{tool_name}: parameter '{key}' must be {' or '.join(names)}, got {value!r}")
        if "enum" in spec and value not in spec["enum"]:
            raise BadArguments(f"{tool_name}: parameter '{key}' must be one of {spec['enum']}, got {value!r}")
    return args
