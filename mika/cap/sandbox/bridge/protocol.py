"""The bridge's wire: one JSON line in, one JSON line out, over a per-command Unix socket.

Request  {"token": "…", "capability": "phone", "op": "tap", "args": {"element": 3}}
         {"token": "…", "capability": "phone", "op": "help"}  (the callable ops)
Reply    {"ok": true, "text": "…"}  or  {"ok": false, "code": "…", "error": "…"}

The client inside the sandbox (`bin/mika`) speaks the same thing with the standard
library only; these names are written out there too, since it cannot import Mika.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# Inside the sandbox: the socket's folder, the client's folder (put first on PATH).
SOCKET_DIR_INSIDE = "/run/mika/bridge"
SOCKET_NAME = "bridge.sock"
BIN_INSIDE = "/opt/mika/bin"
ENV_SOCKET = "MIKA_BRIDGE"
ENV_TOKEN = "MIKA_BRIDGE_TOKEN"

REQUEST_MAX = 64 * 1024  # bytes of one request line
CALLS_MAX = 50  # calls one command may make (prompts/capabilities/sandbox.md says so)
HELP_OP = "help"


class BadRequest(Exception):
    """A request the bridge refuses before any tool runs; `code` names why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Request:
    token: str
    capability: str
    op: str
    args: dict[str, Any]


def parse_request(line: bytes) -> Request:
    try:
        raw = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest("bad_request", f"the request is not one line of JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise BadRequest("bad_request", "the request must be a JSON object with token, op and args")
    token = raw.get("token")
    if not isinstance(token, str) or not token:
        raise BadRequest("bad_token", "the request carries no token (MIKA_BRIDGE_TOKEN)")
    capability = raw.get("capability", "phone")
    op = raw.get("op")
    if not isinstance(capability, str) or not isinstance(op, str) or not op:
        raise BadRequest("bad_request", "'op' must name an operation, e.g. dump or tap")
    args = raw.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise BadRequest("bad_args", f"the arguments must be a JSON object like '{{\"element\": 3}}', not {args!r}")
    return Request(token, capability, op, args)


def reply(ok: bool, text: str, code: str = "") -> bytes:
    body: dict[str, Any] = {"ok": True, "text": text} if ok else {"ok": False, "code": code, "error": text}
    return (json.dumps(body, ensure_ascii=False) + "\n").encode("utf-8")
