"""The loopback server that takes the browser's redirect: `GET /auth/callback` on
127.0.0.1, answered once (seed: LoopbackCallback).

Only the callback path counts (anything else is a 404 and the sign-in keeps waiting);
the first callback decides the sign-in: a state that is not this sign-in's, an error
from the issuer or a missing code end it with that error; a second callback (a replay,
a reload) is refused. The browser's page is sent after the code was exchanged, so it
can say whether the sign-in worked.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
from urllib.parse import parse_qs, urlsplit

from mika.model.chatgpt.copy import t
from mika.model.chatgpt.endpoints import CALLBACK_PATH
from mika.model.chatgpt.errors import LoginError

HOST = "127.0.0.1"
READ_TIMEOUT_S = 10.0
PAGE_TIMEOUT_S = 60.0


def check_answer(query: str, state: str) -> str:
    """The code from a callback's query, or the LoginError it means. The state is compared
    in constant time (it is what keeps another site from finishing our sign-in)."""
    params = parse_qs(query, keep_blank_values=True)

    def one(name: str) -> str:
        values = params.get(name) or [""]
        return values[0]

    if one("error"):
        raise LoginError("denied", error=one("error_description") or one("error"))
    if not secrets.compare_digest(one("state").encode(), state.encode()):
        raise LoginError("state_mismatch")
    if not one("code"):
        raise LoginError("missing_code")
    return one("code")


class LoopbackCallback:
    def __init__(self, state: str, port: int) -> None:
        self.state = state
        self.port = port
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[str] | None = None
        self._page: asyncio.Future[tuple[bool, str]] | None = None
        self._taken = False
        # Requests being answered: closing waits for their pages to go out.
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen; returns the port (the one asked for, or the free one the system chose for 0)."""
        loop = asyncio.get_running_loop()
        self._answer = loop.create_future()
        self._page = loop.create_future()
        try:
            self._server = await asyncio.start_server(self._handle, HOST, self.port)
        except OSError:
            raise LoginError("port_busy", port=self.port) from None
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def wait(self, timeout: float) -> str:
        """The code of the one callback, or its LoginError; LoginError("timeout") after `timeout` s."""
        assert self._answer is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except TimeoutError:
            raise LoginError("timeout", seconds=timeout) from None

    def finish(self, ok: bool, message: str) -> None:
        """What the browser's page says, once the sign-in is decided."""
        if self._page is not None and not self._page.done():
            self._page.set_result((ok, message))

    async def close(self) -> None:
        if self._page is not None and not self._page.done():
            self._page.set_result((False, t("page_failed")))
        if self._handlers:
            await asyncio.wait(set(self._handlers), timeout=READ_TIMEOUT_S)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> LoopbackCallback:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP --------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT_S)
            method, target, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            status, ok, message = await self._answer_request(method, target)
            await self._respond(writer, status, ok, message)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError, ConnectionError):
            pass  # not a browser speaking HTTP: nothing to answer
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _answer_request(self, method: str, target: str) -> tuple[int, bool, str]:
        url = urlsplit(target)
        if url.path != CALLBACK_PATH:
            return 404, False, t("page_not_found")
        if method != "GET":
            return 405, False, t("page_not_found")
        if self._taken:
            return 409, False, t("page_used")
        self._taken = True
        assert self._answer is not None and self._page is not None
        try:
            code = check_answer(url.query, self.state)
        except LoginError as err:
            if not self._answer.done():
                self._answer.set_exception(err)
            return 400, False, err.user_message()
        if not self._answer.done():
            self._answer.set_result(code)
        try:
            ok, message = await asyncio.wait_for(asyncio.shield(self._page), PAGE_TIMEOUT_S)
        except TimeoutError:
            return 500, False, t("page_failed")
        return (200 if ok else 400), ok, message

    @staticmethod
    async def _respond(writer: asyncio.StreamWriter, status: int, ok: bool, message: str) -> None:
        title = "Mika"
        body = (
            "<!doctype html><html><head><meta charset='utf-8'><title>"
            f"{title}</title></head><body><h1>{'✓' if ok else '✗'} {title}</h1>"
            f"<p>{html.escape(message)}</p></body></html>"
        ).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict"}
        head = (
            f"HTTP/1.1 {status} {reason.get(status, 'Error')}\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        writer.write(head + body)
        await writer.drain()
