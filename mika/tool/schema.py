"""A small check of tool arguments against the declared JSON schema.

Only what the model gets wrong in practice: missing required keys, wrong basic types,
values outside an enum. The message names the parameter so the model can fix the call.
"""

from __future__ import annotations

from typing import Any

from mika.tool.errors import BadArguments

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def check_arguments(tool_name: str, schema: dict[str, Any], args: Any) -> dict[str, Any]:
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
            ok = isinstance(value, allowed) and not (
                isinstance(value, bool) and bool not in allowed
            )
            if allowed and not ok:
                # Models often send numbers as strings; accept those that convert cleanly.
                if isinstance(value, str) and set(names) & {"integer", "number"}:
                    try:
                        args[key] = int(value) if "integer" in names else float(value)
                        continue
                    except ValueError:
                        pass
                raise BadArguments(f"{tool_name}: parameter '{key}' must be {' or '.join(names)}, got {value!r}")
        if "enum" in spec and value not in spec["enum"]:
            raise BadArguments(f"{tool_name}: parameter '{key}' must be one of {spec['enum']}, got {value!r}")
    return args
