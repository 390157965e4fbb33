"""A small HTTP/1.1 server on 127.0.0.1 that replays recorded provider bodies.

It runs its own event loop in a thread, so both async adapter tests and sync CLI tests
can use it. Bodies go out chunked, split at SSE event boundaries (or per JSON-array
element), optionally slowly or cut off before the end, exactly as a real stream would
arrive. Every request's raw bytes are kept so tests can compare what the adapters sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field

from tests.real_fixtures import BUNDLED, real

# Every provider recording comes from an MIT or Apache-2.0 test suite, so all of them are
# bundled in the repo (tests/fixtures/real/PROVENANCE.md).
FIXTURES = BUNDLED / "llm_api"


@dataclass
class Reply:
    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    # Seconds between pieces (a slow stream).
    delay: float = 0.0
    # Send only this many pieces, then drop the connection without the final chunk.
    cut_after: int | None = None

    @staticmethod
    def recording(relative: str, **kw: object) -> Reply:
        """A real recording (`relative` to llm_api/), with the status and content type its
        .meta.json sidecar says the real server answered with."""
        path = real("llm_api/" + relative)
        meta_path = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        response = meta.get("response") or {}
        return Reply(
            body=path.read_bytes(),
            status=int(response.get("status", 200)),
            content_type=response.get("content_type", "application/json"),
            **kw,  # type: ignore[arg-type]
        )

    def pieces(self) -> list[bytes]:
        if "event-stream" in self.content_type:
            out, rest = [], self.body
            while rest:
                cut = rest.find(b"\n\n")
                if cut < 0:
                    out.append(rest)
                    break
                out.append(rest[: cut + 2])
                rest = rest[cut + 2 :]
            return out
        if self.body.lstrip().startswith(b"["):
            # The JSON-array stream form: one piece per top-level element boundary.
            return [p for p in _split_json_array(self.body) if p]
        return [self.body]


def _split_json_array(body: bytes) -> list[bytes]:
    pieces, depth, start, in_str, esc = [], 0, 0, False, False
    for i, ch in enumerate(body):
        c = chr(ch)
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
            continue
        if c == '"':
            in_str = True
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 1 and c == "}":
                pieces.append(body[start : i + 1])
                start = i + 1
    pieces.append(body[start:])
    return pieces


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)


class ReplayServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.default: Reply | None = None
        self.requests: list[Seen] = []
        self.disconnects: list[float] = []
        self.reply_started: list[float] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    # -- lifecycle
    def __enter__(self) -> ReplayServer:
        self._thread.start()
        self._ready.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            assert self._server is not None
            self._server.close()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, *replies: Reply) -> ReplayServer:
        self.replies.extend(replies)
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()

        self._loop.run_until_complete(start())
        self._loop.run_forever()

    # -- HTTP
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = b""
                if "content-length" in headers:
                    body = await reader.readexactly(int(headers["content-length"]))
                elif headers.get("transfer-encoding", "").lower() == "chunked":
                    body = await _read_chunked(reader)
                self.requests.append(Seen(method, path, headers, body))
                reply = self.replies.pop(0) if self.replies else self.default
                if reply is None:
                    reply = Reply(b'{"error":{"message":"no reply queued"}}', status=500)
                keep = await self._send(reader, writer, reply)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _send(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply) -> bool:
        self.reply_started.append(time.monotonic())
        # A client that goes away mid-reply shows up as EOF on its side of the socket.
        watcher = asyncio.ensure_future(reader.read(1))
        watcher.add_done_callback(
            lambda f: f.cancelled() or f.exception() or f.result() or self.disconnects.append(time.monotonic())
        )
        try:
            return await self._write(writer, reply)
        finally:
            if not watcher.done():
                watcher.cancel()

    async def _write(self, writer: asyncio.StreamWriter, reply: Reply) -> bool:
        reason = {
            200: "OK",
            400: "Bad Request",
            401: "Unauthorized",
            404: "Not Found",
            429: "Too Many Requests",
            500: "Internal Server Error",
            529: "Overloaded",
            503: "Service Unavailable",
        }.get(reply.status, "Status")
        head = [
            f"HTTP/1.1 {reply.status} {reason}",
            f"Content-Type: {reply.content_type}",
            "Transfer-Encoding: chunked",
            "Connection: close",
        ]
        head += [f"{k}: {v}" for k, v in reply.headers.items()]
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            await writer.drain()
            for n, piece in enumerate(reply.pieces()):
                if reply.cut_after is not None and n >= reply.cut_after:
                    writer.transport.abort()
                    return False
                if reply.delay and n:
                    await asyncio.sleep(reply.delay)
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            # One reply per connection keeps the EOF watcher from eating a next request.
            return False
        except (ConnectionError, RuntimeError):
            return False


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = b""
    while True:
        size = int((await reader.readline()).strip().split(b";")[0], 16)
        if size == 0:
            await reader.readline()
            return out
        out += await reader.readexactly(size)
        await reader.readline()
