"""The small web site the web tests drive real Chromium against, served on loopback.

Static pages live in `tests/web/site/` (one folder per area: shop/, search/, login/ …);
dynamic answers (search results with pages, lazy-loaded batches, a slow page, error
statuses, downloads, a login session) are routes registered with `@route`. Nothing here
reaches the internet: the server binds 127.0.0.1 on a port the system picks.
"""

from __future__ import annotations

import mimetypes
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

SITE = Path(__file__).parent / "site"


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    cookies: dict[str, str]

    def form(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(self.body.decode("utf-8", "replace")).items()}


@dataclass
class Response:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    # A generator of chunks instead of one body (slow pages, big downloads).
    chunks: Callable[[], object] | None = None


Handler = Callable[[Request], Response]
ROUTES: dict[str, Handler] = {}


def route(path: str) -> Callable[[Handler], Handler]:
    """Register a dynamic page at an exact path (the query string is in `Request.query`)."""

    def add(fn: Handler) -> Handler:
        ROUTES[path] = fn
        return fn

    return add


class _Handler(BaseHTTPRequestHandler):
    server_version = "MikaTestSite/1"

    def log_message(self, format: str, *args: object) -> None:  # quiet: pytest shows failures
        return

    def _request(self) -> Request:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        cookies: dict[str, str] = {}
        for item in (self.headers.get("Cookie") or "").split(";"):
            if "=" in item:
                k, v = item.strip().split("=", 1)
                cookies[k] = v
        return Request(
            method=self.command,
            path=parts.path,
            query={k: v[-1] for k, v in parse_qs(parts.query).items()},
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self.rfile.read(length) if length else b"",
            cookies=cookies,
        )

    def _answer(self) -> None:
        req = self._request()
        self.server.seen.append(req)  # type: ignore[attr-defined]
        handler = ROUTES.get(req.path)
        resp = handler(req) if handler is not None else _static(req.path)
        try:
            self.send_response(resp.status)
            self.send_header("Content-Type", resp.content_type)
            for k, v in resp.headers.items():
                self.send_header(k, v)
            if resp.chunks is None:
                body = resp.body.encode("utf-8") if isinstance(resp.body, str) else resp.body
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
            else:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in resp.chunks():  # type: ignore[attr-defined]
                    data = chunk.encode() if isinstance(chunk, str) else chunk
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            return  # the browser moved on (a cancelled download, a closed tab)

    do_GET = _answer
    do_POST = _answer
    do_HEAD = _answer


def _static(path: str) -> Response:
    rel = path.lstrip("/") or "index.html"
    target = (SITE / rel).resolve()
    if target.is_dir():
        target = target / "index.html"
    if SITE.resolve() not in target.parents or not target.is_file():
        return Response("<h1>Not found</h1>", status=404)
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
        kind += "; charset=utf-8"
    return Response(target.read_bytes(), content_type=kind)


class LocalSite:
    """A running site: `url("/shop/")` gives an absolute address; `seen` every request."""

    def __init__(self) -> None:
        # Importing the route modules registers their pages.
        import tests.web.site_routes  # noqa: F401

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.seen = []  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, name="test-site", daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str = "/") -> str:
        return self.base + path

    @property
    def seen(self) -> list[Request]:
        return self._server.seen  # type: ignore[attr-defined, no-any-return]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
