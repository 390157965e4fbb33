"""The issuer's token endpoint (RFC 6749 form posts): exchange the code, refresh, revoke.

The sign-in's failures are `LoginError`s; a refresh tells a token the issuer will never
take again (`RefreshRejected`: sign in again) apart from a moment's trouble (network, 5xx:
the tokens stay).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from mika.config.secrets import scrub
from mika.model.chatgpt.endpoints import ChatGptEndpoints
from mika.model.chatgpt.errors import LoginError

TIMEOUT_S = 30.0
# What an issuer answers for a refresh token that is spent, revoked or expired.
REJECTED_CODES = frozenset(
    {"invalid_grant", "invalid_token", "refresh_token_expired", "refresh_token_reused", "refresh_token_invalidated"}
)


@dataclass(frozen=True)
class Grant:
    access_token: str
    refresh_token: str | None
    id_token: str | None
    # Seconds since the epoch, from `expires_in`; None when the issuer did not say.
    expires_at: float | None


class RefreshRejected(Exception):
    """The issuer will not take this refresh token again: the sign-in is over."""


class RefreshFailed(Exception):
    """The refresh did not happen this time (network, server); the tokens stay good."""

    def __init__(self, why: str, status: int | None = None) -> None:
        super().__init__(why)
        self.status = status


def _error_code(response: httpx.Response) -> tuple[str, str]:
    """(`error`, the words to show) from an OAuth error body, whatever shape it has."""
    try:
        body = response.json()
    except ValueError:
        return "", scrub(response.text.strip()[:300])
    if not isinstance(body, dict):
        return "", ""
    err = body.get("error")
    if isinstance(err, dict):  # some services nest it: {"error": {"code": …, "message": …}}
        code = str(err.get("code") or err.get("type") or "")
        words = str(err.get("message") or code)
    else:
        code = str(err or "")
        words = str(body.get("error_description") or code)
    return code.lower(), scrub(words[:300])


def _grant(response: httpx.Response, now: float) -> Grant:
    try:
        body = response.json()
    except ValueError:
        raise ValueError("the token answer is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("access_token"), str) or not body["access_token"]:
        raise ValueError("the token answer has no access_token")

    def text(key: str) -> str | None:
        value = body.get(key)
        return value if isinstance(value, str) and value else None

    expires_in = body.get("expires_in")
    expires_at = (
        now + float(expires_in) if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) else None
    )
    return Grant(body["access_token"], text("refresh_token"), text("id_token"), expires_at)


async def _post(endpoints: ChatGptEndpoints, url: str, form: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
        return await client.post(url, data=form, headers={"Accept": "application/json"})


async def exchange_code(endpoints: ChatGptEndpoints, code: str, verifier: str, redirect_uri: str) -> Grant:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "client_id": endpoints.client_id,
        "code_verifier": verifier,
    }
    try:
        response = await _post(endpoints, endpoints.token_url, form)
    except httpx.HTTPError as exc:
        raise LoginError("network", url=endpoints.issuer, why=type(exc).__name__) from None
    if response.status_code >= 500:
        raise LoginError("token_failed", status=response.status_code)
    if response.status_code != 200:
        _, words = _error_code(response)
        raise LoginError("token_refused", status=response.status_code, words=words or "-")
    try:
        return _grant(response, time.time())
    except ValueError as exc:
        raise LoginError("bad_reply", why=str(exc)) from None


async def refresh_grant(endpoints: ChatGptEndpoints, refresh_token: str) -> Grant:
    form = {
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
        "client_id": endpoints.client_id,
        "scope": "openid profile email",
    }
    try:
        response = await _post(endpoints, endpoints.token_url, form)
    except httpx.HTTPError as exc:
        raise RefreshFailed(f"could not reach {endpoints.issuer} ({type(exc).__name__})") from None
    if response.status_code == 200:
        try:
            return _grant(response, time.time())
        except ValueError as exc:
            raise RefreshFailed(str(exc), 200) from None
    code, words = _error_code(response)
    if response.status_code == 401 or (response.status_code < 500 and code in REJECTED_CODES):
        raise RefreshRejected(words or code)
    raise RefreshFailed(f"HTTP {response.status_code}: {words or code or '-'}", response.status_code)


async def revoke(endpoints: ChatGptEndpoints, refresh_token: str) -> str | None:
    """Tell the issuer the sign-in is over (RFC 7009). None when it confirmed; else why not,
    for the user (signing out here goes ahead either way)."""
    form = {"token": refresh_token, "token_type_hint": "refresh_token", "client_id": endpoints.client_id}
    try:
        response = await _post(endpoints, endpoints.revoke_url, form)
    except httpx.HTTPError as exc:
        return type(exc).__name__
    if response.status_code == 200:
        return None
    _, words = _error_code(response)
    return f"HTTP {response.status_code}" + (f": {words}" if words else "")
