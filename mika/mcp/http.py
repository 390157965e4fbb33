"""Streamable HTTP for `mika mcp --http HOST:PORT`: loopback by default; any other address
needs the bearer token `mika mcp` made at start (printed once, on stderr).

Loopback means what `ipaddress` calls loopback (127.0.0.0/8, ::1) or the name
"localhost"; 0.0.0.0, :: and every other address are not, so they need the token.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from typing import Any

from mika.mcp.texts import t


class BadHttpAddress(ValueError):
    pass


def parse_address(value: str) -> tuple[str, int]:
    """'HOST:PORT' (an IPv6 host in brackets: '[::1]:8765') → (host, port)."""
    host, sep, port = value.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadHttpAddress(t("bad_http", value=value))
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve anywhere


def new_token() -> str:
    return secrets.token_urlsafe(32)


class BearerGate:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`,
    compared in constant time; anything else is 401 before the MCP app sees it."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan: the app's own start and stop
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                given = value
                break
        if not hmac.compare_digest(given, self.expected):
            body = b'{"error": "unauthorized", "message": "this Mika MCP server needs its bearer token"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="mika"'),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
