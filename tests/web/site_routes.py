"""The site's dynamic pages (see site_server.py). Each area adds its routes here or in a
module of its own imported below."""

from __future__ import annotations

import tests.web.site_login  # (registers /login, /account/ …)
import tests.web.site_misc  # (/slow/, downloads, captcha frames)
import tests.web.site_shop  # (/search/, /product/<id>/, /checkout/ …)
import tests.web.site_traps  # noqa: F401 (/deal/, /icon-cart/ … the checkout reached sideways)
from tests.web.site_server import Request, Response, route


@route("/status")
def status(req: Request) -> Response:
    """`/status?code=429`: an error page with that HTTP status (rate limits, blocks)."""
    code = int(req.query.get("code", "200"))
    return Response(f"<html><head><title>Status {code}</title></head><body><h1>{code}</h1></body></html>", status=code)
