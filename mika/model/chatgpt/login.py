"""The whole sign-in: in the browser (the loopback callback takes the redirect) or, for
SSH sessions, by pasting the address the browser ended on (or just the code).

Each sign-in has its own verifier and state (mika.model.chatgpt.pkce); the code is
exchanged at the issuer with that verifier and the same redirect URI; the tokens are
stored only when the account id is in them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from mika.model.chatgpt.callback import LoopbackCallback, check_answer
from mika.model.chatgpt.copy import t
from mika.model.chatgpt.endpoints import CALLBACK_PORT, ChatGptEndpoints
from mika.model.chatgpt.errors import LoginError
from mika.model.chatgpt.id_token import expiry_of, identity_of
from mika.model.chatgpt.oauth import exchange_code
from mika.model.chatgpt.pkce import Pkce
from mika.model.chatgpt.token_store import ChatGptTokens, TokenStore

LOGIN_TIMEOUT_S = 300.0
# How long a browser opener may still take once the sign-in is decided.
BROWSER_GRACE_S = 5.0


@dataclass(frozen=True)
class Authorization:
    """One sign-in attempt: its secrets and the address the browser opens."""

    pkce: Pkce
    redirect_uri: str
    url: str


def authorization(endpoints: ChatGptEndpoints, port: int, pkce: Pkce | None = None) -> Authorization:
    pkce = pkce or Pkce.fresh()
    redirect_uri = endpoints.redirect_uri(port)
    query = urlencode(
        {
            "response_type": "code",
            "client_id": endpoints.client_id,
            "redirect_uri": redirect_uri,
            "scope": endpoints.scope,
            "code_challenge": pkce.challenge,
            "code_challenge_method": "S256",
            "state": pkce.state,
            # As Codex CLI asks: the organisations in the id token, the short consent page.
            "id_token_add_organizations": "true",
            "codex_cli_simplified_flow": "true",
        }
    )
    return Authorization(pkce, redirect_uri, f"{endpoints.authorize_url}?{query}")


async def finish(endpoints: ChatGptEndpoints, store: TokenStore, code: str, auth: Authorization) -> ChatGptTokens:
    """Exchange the code and store the tokens (only with a ChatGPT account in them)."""
    grant = await exchange_code(endpoints, code, auth.pkce.verifier, auth.redirect_uri)
    identity = identity_of(grant.id_token or "", grant.access_token)
    if not identity.account_id:
        raise LoginError("no_account")
    tokens = ChatGptTokens(
        access_token=grant.access_token,
        refresh_token=grant.refresh_token or "",
        id_token=grant.id_token or "",
        expires_at=grant.expires_at or expiry_of(grant.access_token) or 0.0,
        account_id=identity.account_id,
        email=identity.email,
        plan=identity.plan,
        issuer=endpoints.issuer,
        signed_in_at=time.time(),
    )
    if not tokens.refresh_token:
        # Without it the sign-in would end within the hour, silently: say so now.
        raise LoginError("bad_reply", why="the token answer has no refresh_token")
    store.save(tokens)
    return tokens


async def sign_in_with_browser(
    endpoints: ChatGptEndpoints,
    store: TokenStore,
    *,
    open_browser: Callable[[str], bool],
    show_url: Callable[[str], None] = lambda url: None,
    timeout: float = LOGIN_TIMEOUT_S,
) -> ChatGptTokens:
    """`open_browser(url)` opens the authorize page (webbrowser.open, or a test's client);
    `show_url` tells the person the address too, for a browser that does not open."""
    pkce = Pkce.fresh()
    async with LoopbackCallback(pkce.state, endpoints.callback_port) as callback:
        auth = authorization(endpoints, callback.port, pkce)
        show_url(auth.url)
        # webbrowser.open may start a process and wait for it, and a browser may come back
        # only once its page is shown: it runs beside the wait, not before it.
        browser = asyncio.create_task(asyncio.to_thread(open_browser, auth.url))
        try:
            code = await callback.wait(timeout)
            try:
                tokens = await finish(endpoints, store, code, auth)
            except LoginError as err:
                callback.finish(False, err.user_message())
                raise
            callback.finish(True, t("page_ok"))
        finally:
            await callback.close()  # the page goes out before the browser is waited for
            await asyncio.wait({browser}, timeout=BROWSER_GRACE_S)
            if browser.done() and not browser.cancelled():
                browser.exception()  # a browser that failed has said so; the sign-in decided
    return tokens


def code_from_paste(text: str, state: str, redirect_uri: str) -> str:
    """The code from what the person pasted: the whole redirect address (its state is
    checked), its query alone, or the bare code."""
    text = text.strip().strip("'\"<>")
    if text.startswith(("http://", "https://")):
        return check_answer(urlsplit(text).query, state)
    if "code=" in text or "error=" in text:
        return check_answer(text.lstrip("?"), state)
    if text and not any(c.isspace() for c in text) and len(text) >= 8 and "/" not in text:
        return text  # a bare code has no state to check; the verifier still binds it to us
    raise LoginError("bad_paste", redirect=redirect_uri)


async def sign_in_by_paste(
    endpoints: ChatGptEndpoints,
    store: TokenStore,
    *,
    show_url: Callable[[str], None],
    read_answer: Callable[[], Awaitable[str]],
) -> ChatGptTokens:
    """For a machine without a browser: the person opens the address elsewhere and pastes
    back where the browser ended (the loopback page there fails to load; the address holds
    the code and state all the same)."""
    auth = authorization(endpoints, endpoints.callback_port or CALLBACK_PORT)
    show_url(auth.url)
    code = code_from_paste(await read_answer(), auth.pkce.state, auth.redirect_uri)
    return await finish(endpoints, store, code, auth)
