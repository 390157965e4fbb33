"""The DeviceServer's HTTP: one request per connection, answered and closed.

HttpRpcServer.java reads the request line, the headers (only Content-Length matters) and
that many bytes of body, and writes `HTTP/1.1 200 OK` with a JSON body and
`Connection: close` whatever the path or method: mobilecli's readiness probe is any
answer at all to `POST /` with `{}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.sim.device import SimStream

# A request line and headers longer than this are not mobilecli's; stop reading.
MAX_HEAD = 64 * 1024


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes


async def read_request(stream: SimStream) -> Request | None:
    """The one request on this connection; None when the host closed before a whole one."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = await stream.read()
        if not data or len(buf) > MAX_HEAD:
            return None
        buf += data
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, path = ([*lines[0].split(" "), "", ""])[:2]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    while len(body) < length:
        data = await stream.read()
        if not data:
            break  # Java's read() takes what came; the dispatcher then sees a short body
        body += data
    return Request(method, path, body[:length])


def response(body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
