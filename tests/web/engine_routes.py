"""Dynamic pages of the port's own tests (`/engine/…`), registered on import.

Kept apart from site_routes.py (the shared site) so the port's adversarial pages — a 302
to file:, a download bigger than the cap — stay next to the tests that need them."""

from __future__ import annotations

import html
import threading

from tests.web.site_server import Request, Response, route

# Set by the over-cap download test when it is done: the big download waits on it after
# its first megabytes, so it can only end by the port cancelling it (or the test ending).
BIG_DOWNLOAD_RELEASE = threading.Event()
MB = 1024 * 1024


@route("/engine/lang")
def lang(req: Request) -> Response:
    header = html.escape(req.headers.get("accept-language", ""))
    return Response(
        "<!doctype html><html><head><title>Language</title></head><body>"
        f'<p id="header">header={header}</p><p id="nav">nav=?</p>'
        "<script>document.getElementById('nav').textContent="
        "'nav='+navigator.language+'|'+navigator.languages.join(',')</script></body></html>"
    )


@route("/engine/redirect-file")
def redirect_file(req: Request) -> Response:
    return Response("", status=302, headers={"Location": "file:///etc/passwd"})


@route("/engine/redirect-chrome")
def redirect_chrome(req: Request) -> Response:
    return Response("", status=302, headers={"Location": "chrome://settings"})


@route("/engine/dl/small")
def small_download(req: Request) -> Response:
    return Response(
        b"id,price\n1,9.99\n",
        content_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="../../etc/.prices.csv"'},
    )


@route("/engine/dl/script")
def script_download(req: Request) -> Response:
    return Response(
        b"#!/bin/sh\necho pwned > /tmp/mika-pwned\n",
        content_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="run me.sh"'},
    )


@route("/engine/dl/big")
def big_download(req: Request) -> Response:
    def chunks():  # type: ignore[no-untyped-def]
        block = b"x" * (256 * 1024)
        for _ in range(12):  # 3 MB, past a 1 MB cap
            yield block
        BIG_DOWNLOAD_RELEASE.wait(20)
        yield block

    return Response(
        content_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="big.bin"'},
        chunks=chunks,
    )


@route("/engine/login")
def login(req: Request) -> Response:
    return Response(
        "<!doctype html><html><head><title>Logged in</title></head><body><p>Welcome</p></body></html>",
        headers={"Set-Cookie": "sid=s3cr3t-session; Max-Age=3600; Path=/; HttpOnly"},
    )


@route("/engine/whoami")
def whoami(req: Request) -> Response:
    who = "signed in" if req.cookies.get("sid") == "s3cr3t-session" else "anonymous"
    return Response(f"<!doctype html><html><head><title>Who</title></head><body><p>{who}</p></body></html>")
