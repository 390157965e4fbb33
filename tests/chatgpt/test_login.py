"""Signing in against the fake issuer: in a browser (a tiny HTTP client that follows the
authorize page's redirect to the loopback callback) and by pasting; and every way the
answer can be wrong."""

from __future__ import annotations

import asyncio
import json
import stat
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from mika.model.chatgpt.errors import LoginError
from mika.model.chatgpt.login import authorization, finish, sign_in_by_paste, sign_in_with_browser
from mika.model.chatgpt.pkce import Pkce, challenge_of
from tests.chatgpt.fakes import ACCOUNT_ID, EMAIL, follow_in_browser, redirect_of


def browser_login(s, browser=follow_in_browser, timeout=20.0):
    return asyncio.run(sign_in_with_browser(s.endpoints(), s.store, open_browser=browser, timeout=timeout))


def test_browser_login_stores_the_tokens_0600_with_the_account(signin):
    tokens = browser_login(signin)
    assert tokens.account_id == ACCOUNT_ID and tokens.email == EMAIL and tokens.plan == "plus"
    assert tokens.expires_at > 0 and tokens.refresh_token.startswith("rt_")
    stored = json.loads(signin.store.path.read_text())
    assert stored["access_token"] == tokens.access_token and stored["refresh_token"] == tokens.refresh_token
    assert stat.S_IMODE(signin.store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(signin.store.path.parent.stat().st_mode) == 0o700
    # What the authorize page was asked, and that the exchange sent the same redirect URI.
    asked = signin.issuer.log.authorize[0]
    assert asked["redirect_uri"] == f"http://localhost:{signin.port}/auth/callback"
    assert asked["scope"] == "openid profile email offline_access" and asked["code_challenge_method"] == "S256"
    (exchange,) = signin.issuer.log.exchanges
    assert exchange["redirect_uri"] == asked["redirect_uri"]
    assert challenge_of(exchange["code_verifier"]) == asked["code_challenge"]


def test_every_login_has_its_own_state_and_verifier(signin):
    browser_login(signin)
    browser_login(signin)
    a, b = signin.issuer.log.authorize
    assert a["state"] != b["state"] and a["code_challenge"] != b["code_challenge"]


def test_the_browser_is_told_it_worked(signin):
    pages = []

    def browser(url):
        with httpx.Client(follow_redirects=True, timeout=30) as c:
            pages.append(c.get(url))
        return True

    browser_login(signin, browser)
    assert pages[0].status_code == 200 and "You can close this tab" in pages[0].text


def test_pasted_redirect_url_signs_in(signin):
    shown = []

    async def paste():
        return await asyncio.to_thread(redirect_of, shown[0])

    tokens = asyncio.run(sign_in_by_paste(signin.endpoints(), signin.store, show_url=shown.append, read_answer=paste))
    assert tokens.account_id == ACCOUNT_ID and signin.store.load() == tokens


def test_pasted_bare_code_signs_in(signin):
    shown = []

    async def paste():
        location = await asyncio.to_thread(redirect_of, shown[0])
        return parse_qs(urlsplit(location).query)["code"][0]

    tokens = asyncio.run(sign_in_by_paste(signin.endpoints(), signin.store, show_url=shown.append, read_answer=paste))
    assert tokens.account_id == ACCOUNT_ID


@pytest.mark.parametrize("pasted", ["", "hello world", "http://localhost:1455/auth/callback"])
def test_a_paste_that_is_no_answer_is_refused(signin, pasted):
    async def paste():
        return pasted

    with pytest.raises(LoginError) as err:
        asyncio.run(sign_in_by_paste(signin.endpoints(), signin.store, show_url=lambda u: None, read_answer=paste))
    assert err.value.kind in ("bad_paste", "state_mismatch")
    assert signin.store.load() is None and signin.issuer.log.token == []


def test_a_wrong_state_is_refused_and_no_code_is_exchanged(signin):
    signin.issuer.tamper_state = True
    with pytest.raises(LoginError) as err:
        browser_login(signin)
    assert err.value.kind == "state_mismatch"
    assert "state" in err.value.user_message("en") and "state" in err.value.user_message("zh")
    assert signin.issuer.log.token == [] and signin.store.load() is None


def test_a_pasted_wrong_state_is_refused(signin):
    shown = []

    async def paste():
        location = await asyncio.to_thread(redirect_of, shown[0])
        url = urlsplit(location)
        q = parse_qs(url.query)
        return f"{url.scheme}://{url.netloc}{url.path}?{urlencode({'code': q['code'][0], 'state': 'someone-else'})}"

    with pytest.raises(LoginError) as err:
        asyncio.run(sign_in_by_paste(signin.endpoints(), signin.store, show_url=shown.append, read_answer=paste))
    assert err.value.kind == "state_mismatch" and signin.issuer.log.token == []


def test_a_wrong_verifier_is_refused_by_the_issuer(signin):
    """A code got with one sign-in's challenge and exchanged with another verifier (as
    an attacker who intercepted the code would): the issuer refuses, nothing is stored."""
    endpoints = signin.endpoints()
    auth = authorization(endpoints, signin.port)
    location = redirect_of(auth.url)
    code = parse_qs(urlsplit(location).query)["code"][0]
    other = type(auth)(Pkce.fresh(), auth.redirect_uri, auth.url)
    with pytest.raises(LoginError) as err:
        asyncio.run(finish(endpoints, signin.store, code, other))
    assert err.value.kind == "token_refused" and "code_verifier mismatch" in err.value.user_message()
    assert signin.store.load() is None


def test_access_denied_at_the_issuer_says_so(signin):
    signin.issuer.deny = True
    with pytest.raises(LoginError) as err:
        browser_login(signin)
    assert err.value.kind == "denied" and "The user denied access" in err.value.user_message()
    assert signin.store.load() is None


def test_a_callback_without_a_code_is_refused(signin):
    signin.issuer.drop_code = True
    with pytest.raises(LoginError) as err:
        browser_login(signin)
    assert err.value.kind == "missing_code" and signin.issuer.log.token == []


def test_token_endpoint_500_fails_clearly_and_stores_nothing(signin):
    signin.issuer.token_status = 500
    with pytest.raises(LoginError) as err:
        browser_login(signin)
    assert err.value.kind == "token_failed" and "HTTP 500" in err.value.user_message()
    assert signin.store.load() is None


def test_an_account_without_chatgpt_is_not_signed_in(signin):
    signin.issuer.omit_account = True
    with pytest.raises(LoginError) as err:
        browser_login(signin)
    assert err.value.kind == "no_account" and signin.store.load() is None


def test_other_paths_get_404_and_a_replayed_callback_is_refused(signin):
    """The browser's favicon request (or a scan) on another path is a 404 and the sign-in
    keeps waiting; once signed in, the same callback again reaches nobody (the server is
    gone) and the code is never exchanged twice."""
    seen: dict[str, object] = {}

    def browser(url):
        with httpx.Client(timeout=30) as c:
            base = f"http://127.0.0.1:{signin.port}"
            seen["other"] = c.get(f"{base}/favicon.ico").status_code
            seen["post"] = c.post(f"{base}/auth/callback").status_code
            local = c.get(url).headers["location"].replace("localhost", "127.0.0.1")
            seen["local"] = local
            seen["first"] = c.get(local).status_code
        return True

    browser_login(signin, browser)
    assert seen["other"] == 404 and seen["post"] == 405 and seen["first"] == 200
    with httpx.Client(timeout=5) as c, pytest.raises(httpx.ConnectError):
        c.get(str(seen["local"]))
    assert len(signin.issuer.log.exchanges) == 1


def test_a_second_callback_while_the_first_is_exchanged_gets_409(signin):
    """The first callback's page waits for the code exchange (held at the issuer); a
    second callback meanwhile is refused at once, and the code is exchanged once."""
    import threading

    signin.issuer.exchange_gate = gate = threading.Event()
    statuses = {}

    def browser(url):
        with httpx.Client(timeout=30) as c:
            local = c.get(url).headers["location"].replace("localhost", "127.0.0.1")
        first = threading.Thread(target=lambda: statuses.setdefault("first", httpx.get(local, timeout=30).status_code))
        first.start()
        while not signin.issuer.log.exchanges:  # the exchange has begun and is held
            first.join(0.01)
        statuses["second"] = httpx.get(local, timeout=30).status_code
        gate.set()
        first.join()
        return True

    browser_login(signin, browser)
    assert statuses == {"first": 200, "second": 409}
    assert len(signin.issuer.log.exchanges) == 1


def test_a_busy_port_says_so(signin):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", signin.port))
        s.listen()
        with pytest.raises(LoginError) as err:
            browser_login(signin)
    assert err.value.kind == "port_busy" and str(signin.port) in err.value.user_message()


def test_no_answer_in_time_is_a_timeout(signin):
    with pytest.raises(LoginError) as err:
        browser_login(signin, browser=lambda url: True, timeout=0.2)
    assert err.value.kind == "timeout"
