"""The login area: POST /login with the right user and password sets a session cookie;
/account/ shows "Signed in as …" only with it, else sends the browser to /login/."""

from __future__ import annotations

import secrets
import threading

from tests.web.site_layout import esc, page
from tests.web.site_server import Request, Response, route

USERS = {"mika-test": "correct horse battery"}
DISPLAY = {"mika-test": "Mika Tester"}
SESSIONS: dict[str, str] = {}  # session id -> user
_lock = threading.Lock()


def signed_in(req: Request) -> str | None:
    return SESSIONS.get(req.cookies.get("sid", ""))


@route("/login")
def login(req: Request) -> Response:
    if req.method != "POST":
        return Response("", status=303, headers={"Location": "/login/"})
    form = req.form()
    user = form.get("username", "").strip()
    if USERS.get(user) != form.get("password", ""):
        body = """<h1>Sign in</h1>
<p class="error" role="alert">Wrong user name or password. 用户名或密码错误。</p>
<p><a href="/login/">Try again</a></p>"""
        return Response(page("Sign in failed · Bean & Leaf", body), status=401)
    sid = secrets.token_hex(16)
    with _lock:
        SESSIONS[sid] = user
    return Response(
        "", status=303, headers={"Location": "/account/", "Set-Cookie": f"sid={sid}; Path=/; HttpOnly; SameSite=Lax"}
    )


@route("/logout")
def logout(req: Request) -> Response:
    with _lock:
        SESSIONS.pop(req.cookies.get("sid", ""), None)
    return Response("", status=303, headers={"Location": "/login/", "Set-Cookie": "sid=; Path=/; Max-Age=0"})


@route("/account/")
def account(req: Request) -> Response:
    user = signed_in(req)
    if user is None:
        return Response("", status=303, headers={"Location": "/login/?next=/account/"})
    body = f"""<h1>Your account 我的账户</h1>
<p id="who">Signed in as {esc(DISPLAY.get(user, user))} ({esc(user)})</p>
<h2>Recent orders</h2>
<ul><li><a href="/order/1001/">Order #1001</a> — delivered</li></ul>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>"""
    return Response(page("Account · Bean & Leaf", body))
