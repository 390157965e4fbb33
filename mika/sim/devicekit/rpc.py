"""The JSON-RPC 2.0 envelope around the DeviceServer's methods.

As the Java dispatcher answers: the request's `id` comes back as sent (a string from
mobilecli: "1"); a result is `{"jsonrpc":"2.0","id":…,"result":…}`; a failure is
`{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}` — still HTTP 200 — with -32700
for a body that isn't JSON, -32601 for an unknown method (the `{}` readiness probe gets
that), -32602 for a missing parameter and -32000 when the work itself failed.
mobilecli turns an error into "agent error CODE: MESSAGE".
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

PARSE_ERROR = -32700
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000

Method = Callable[[dict[str, Any]], Awaitable[Any]]


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def require_text(params: dict[str, Any], key: str) -> str:
    """JSONObject.optString(key) that must be there and non-empty, as requireParam checks."""
    value = params.get(key)
    if value is None or value == "":
        raise RpcError(INVALID_PARAMS, f"missing params.{key}")
    return value if isinstance(value, str) else json.dumps(value)


def require_int(params: dict[str, Any], key: str) -> int:
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RpcError(INVALID_PARAMS, f"params.{key} must be a number")
    if value != int(value):
        raise RpcError(INVALID_PARAMS, f"params.{key} must be a whole number that fits in an int, got {value}")
    return int(value)


def optional_int(params: dict[str, Any], key: str, default: int) -> int:
    return default if params.get(key) is None else require_int(params, key)


def _envelope(rid: Any, **part: Any) -> bytes:
    # org.json: put("id", null) leaves the key out, and toString() is compact.
    reply = {"jsonrpc": "2.0", **({} if rid is None else {"id": rid}), **part}
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def dispatch(body: bytes, methods: Mapping[str, Method]) -> bytes:
    """One request body in, one response body out; never raises for a bad request."""
    try:
        request = json.loads(body.decode("utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return _envelope(None, error={"code": PARSE_ERROR, "message": str(e)})
    if not isinstance(request, dict):
        return _envelope(None, error={"code": PARSE_ERROR, "message": "request is not a JSON object"})
    rid = request.get("id")
    raw_name, raw_params = request.get("method"), request.get("params")
    name = raw_name if isinstance(raw_name, str) else ""
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    method = methods.get(name)
    try:
        if method is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {name}")
        result = await method(params)
    except RpcError as e:
        return _envelope(rid, error={"code": e.code, "message": e.message})
    except Exception as e:  # a simulator bug is the server's error, never a dead server
        return _envelope(rid, error={"code": SERVER_ERROR, "message": f"{type(e).__name__}: {e}"})
    return _envelope(rid, result=result)
