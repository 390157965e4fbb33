"""The site's odd pages: a slow page whose body arrives late, a big download streamed in
chunks (so a size cap can cut it), and the captcha frames served at the paths real
captcha providers use (recognised by their URL, not by anything we invent)."""

from __future__ import annotations

import time

from tests.web.site_server import Request, Response, route

# The path of a Cloudflare Turnstile frame, as such frames are addressed.
TURNSTILE_PATH = "/cdn-cgi/challenge-platform/h/g/turnstile/if/ov2/av0/rcv0/0/0x4AAAAAAAtest/light/normal/auto/"


def _ms(req: Request, default: int) -> int:
    try:
        return max(0, min(int(req.query.get("ms", default)), 30_000))
    except ValueError:
        return default


@route("/slow/")
def slow(req: Request) -> Response:
    """`/slow/?ms=1500`: the head comes at once, the body `ms` later (chunked), like a
    server that flushes its header before the database answers."""
    delay = _ms(req, 1500)

    def chunks():
        yield '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Roast schedule</title></head><body>'
        time.sleep(delay / 1000)  # the server being slow is what this page is for
        yield (
            "<main><h1>Roast schedule</h1>"
            f'<p id="ready">Served after {delay} ms.</p>'
            "<p>Next roast: Kenya Nyeri AA on Thursday.</p></main></body></html>"
        )

    return Response(chunks=chunks)


@route("/download/big.bin")
def big_file(req: Request) -> Response:
    """`/download/big.bin?mb=200`: `mb` MiB of bytes in 1 MiB chunks, no length declared,
    so only counting what arrives can stop it."""
    try:
        mb = max(1, min(int(req.query.get("mb", "200")), 4096))
    except ValueError:
        mb = 200
    block = bytes(range(256)) * 4096  # 1 MiB

    def chunks():
        for _ in range(mb):
            yield block

    return Response(
        content_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="big.bin"'},
        chunks=chunks,
    )


_ANCHOR = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>reCAPTCHA</title></head>
<body style="font-family: Roboto, sans-serif; margin: 0">
<div class="rc-anchor rc-anchor-normal" style="border:1px solid #d3d3d3; padding: 12px; width: 280px">
  <span id="recaptcha-anchor" role="checkbox" aria-checked="false" tabindex="0" aria-labelledby="recaptcha-anchor-label"
        style="display:inline-block;width:24px;height:24px;border:2px solid #c1c1c1"></span>
  <label id="recaptcha-anchor-label">I'm not a robot</label>
  <div class="rc-anchor-logo-text">reCAPTCHA</div>
  <div class="rc-anchor-pt"><a href="#">Privacy</a> - <a href="#">Terms</a></div>
</div>
</body></html>"""


@route("/recaptcha/api2/anchor")
def recaptcha_anchor(req: Request) -> Response:
    return Response(_ANCHOR)


@route(TURNSTILE_PATH)
def turnstile_frame(req: Request) -> Response:
    return Response(
        """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Just a moment...</title></head>
<body><label><input type="checkbox"> Verify you are human</label><p>Cloudflare</p></body></html>"""
    )


@route("/odd/")
def odd_bytes(req: Request) -> Response:
    """A page of odd bytes: terminal escapes, a bidi override, zero-width characters, a
    NUL, a lone surrogate's worth of bad UTF-8, a huge label — what a hostile page can put
    in text a terminal later shows."""
    esc = "\x1b"
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Odd'
        f"{esc}]0;pwned{chr(7)} bytes</title></head><body>"
        f"<h1>Clear {esc}[2J{esc}[H screen</h1>"
        "<p id='bidi'>Price: \u202e05.12$\u202c (reversed)</p>"
        "<p id='zw'>Bu\u200by n\u200dow\ufeff</p>"
        "<p id='nul'>before\x00after</p>"
        f"<button id='esc'>OK{esc}[31m red{esc}[0m</button>"
        f"<a href='/odd/' aria-label='{'long ' * 400}label'>long</a>"
        "</body></html>"
    )
    return Response(body.encode("utf-8") + b"<p>bad \xff\xfe bytes</p>")
