"""The uiautomator2 on-device server: HTTP/1.1 over the tcp:9008 stream.

`GET /ping` answers `pong`; `POST /jsonrpc/0` runs one JSON-RPC call (mika.sim.u2.rpc).
Requests may be pipelined on one connection; the stream ends when the host closes it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from mika.sim.device import SimStream, StreamClosed
from mika.sim.u2 import faults
from mika.sim.u2.rpc import call

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState


async def _response(stream: SimStream, status: str, body: bytes, ctype: str) -> None:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
    ).encode()
    await stream.write(head + body)


async def serve_http(phone: PhoneState, stream: SimStream) -> None:
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = await stream.read()
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            method, path = ([*parts, "", ""])[:2]
            headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
            length = int(headers.get("content-length", "0") or 0)
            while len(buf) < length:
                data = await stream.read()
                if not data:
                    return
                buf += data
            body, buf = buf[:length], buf[length:]
            if method == "GET" and path == "/ping":
                await _response(stream, "200 OK", b"pong", "text/plain")
            elif method == "POST" and path.startswith("/jsonrpc/0") and faults.http_500(phone.world):
                await _response(stream, "500 Internal Server Error", faults.HTTP_500_BODY, "text/plain")
            elif method == "POST" and path.startswith("/jsonrpc/0"):
                try:
                    request = json.loads(body or b"{}")
                except json.JSONDecodeError:
                    await _response(stream, "400 Bad Request", b'{"error":"bad json"}', "application/json")
                    continue
                reply = await call(phone, request)
                await _response(stream, "200 OK", json.dumps(reply, ensure_ascii=False).encode(), "application/json")
            else:
                await _response(stream, "404 Not Found", b"Not Found", "text/plain")
    except StreamClosed:
        return
