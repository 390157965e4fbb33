"""A valid access token for every call (seed: ChatGptTokens).

Shortly before the access token expires (under 5 minutes left), or when the backend
rejected it, the refresh token buys a new set, and the new refresh token is stored with
the new access token. Only one refresh happens at a time: in this process every model
that uses the sign-in shares one `ChatGptAuth` (main, light and vision are built
separately), and across processes a lock file beside the store serialises them; whoever
waited finds the new tokens and uses them instead of spending the refresh token again.

A refresh token the issuer will not take (`invalid_grant` …) ends the sign-in: the
tokens are deleted and the run says "sign in again". A network or server hiccup keeps
them: the old access token is used while it still works, else the call fails as a
network or server error (which the caller's retry policy may retry).
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from mika.model.chatgpt.endpoints import ChatGptEndpoints
from mika.model.chatgpt.id_token import expiry_of, identity_of
from mika.model.chatgpt.oauth import RefreshFailed, RefreshRejected, refresh_grant
from mika.model.chatgpt.token_store import ChatGptTokens, TokenStore
from mika.model.errors import ModelError, ModelErrorKind

PROVIDER = "chatgpt"


def signed_out(detail: str = "", provider: str = PROVIDER) -> ModelError:
    return ModelError(ModelErrorKind.SIGNED_OUT, detail, provider=provider)


class ChatGptAuth:
    def __init__(
        self, store: TokenStore, endpoints: ChatGptEndpoints, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.endpoints = endpoints
        self.clock = clock
        self._tokens = store.load()
        # asyncio locks belong to one event loop; tests and `mika` faces may run several.
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()

    @property
    def tokens(self) -> ChatGptTokens | None:
        return self._tokens

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        return lock

    async def valid(self) -> ChatGptTokens:
        """Tokens whose access token has more than the margin left, refreshing if needed."""
        tokens = self._tokens
        if tokens is None:
            tokens = self._tokens = self.store.load()  # signed in since this process started?
        if tokens is None:
            raise signed_out()
        if not tokens.expiring(self.clock()):
            return tokens
        return await self._refresh(tokens, forced=False)

    async def after_rejection(self, rejected: ChatGptTokens) -> ChatGptTokens:
        """The backend said 401 to `rejected`: new tokens (unless another call already got them)."""
        return await self._refresh(rejected, forced=True)

    def _newer_than(self, tokens: ChatGptTokens | None, seen: ChatGptTokens) -> bool:
        # "Not expired", not "not expiring": with an issuer that hands out tokens shorter
        # than the margin, every waiting call would otherwise spend the refresh token again.
        return tokens is not None and tokens.access_token != seen.access_token and not tokens.expired(self.clock())

    async def _refresh(self, seen: ChatGptTokens, *, forced: bool) -> ChatGptTokens:
        async with self._lock():
            if self._newer_than(self._tokens, seen):
                assert self._tokens is not None
                return self._tokens  # refreshed by the call we waited for
            file_lock = await asyncio.to_thread(self.store.lock)
            try:
                on_disk = self.store.load()
                if on_disk is None:
                    self._tokens = None  # signed out meanwhile (`mika logout`, or a rejected refresh)
                    raise signed_out()
                if self._newer_than(on_disk, seen):
                    self._tokens = on_disk  # another process refreshed
                    return on_disk
                fresh = await self._ask_issuer(on_disk, forced=forced)
                self._tokens = fresh
                return fresh
            finally:
                file_lock.release()

    async def _ask_issuer(self, current: ChatGptTokens, *, forced: bool) -> ChatGptTokens:
        try:
            grant = await refresh_grant(self.endpoints, current.refresh_token)
        except RefreshRejected as exc:
            self.store.clear()
            self._tokens = None
            raise signed_out(str(exc)) from None
        except RefreshFailed as exc:
            if not forced and not current.expired(self.clock()):
                return current  # still good for a few minutes: the next call tries again
            kind = ModelErrorKind.NETWORK if exc.status is None else ModelErrorKind.SERVER
            raise ModelError(kind, str(exc), status=exc.status, provider=PROVIDER) from None
        identity = identity_of(grant.id_token or "", grant.access_token)
        fresh = current.refreshed(
            grant.access_token,
            grant.refresh_token,
            grant.id_token,
            grant.expires_at or expiry_of(grant.access_token) or 0.0,
        )
        if identity.account_id and identity.account_id != current.account_id:
            # The issuer moved the sign-in to another workspace: address requests to it.
            from dataclasses import replace

            fresh = replace(fresh, account_id=identity.account_id)
        self.store.save(fresh)
        return fresh


_shared: dict[tuple[Path, str], ChatGptAuth] = {}
_shared_lock = threading.Lock()


def shared_auth(store: TokenStore, endpoints: ChatGptEndpoints) -> ChatGptAuth:
    """One `ChatGptAuth` per token store in this process, so that the main, light and
    vision models refresh once between them, not once each."""
    key = (store.path.resolve(), endpoints.issuer)
    with _shared_lock:
        auth = _shared.get(key)
        if auth is None:
            auth = _shared[key] = ChatGptAuth(store, endpoints)
        return auth


def forget_shared(store: TokenStore) -> None:
    """After a sign-in or sign-out in this process: the next model reads the store afresh."""
    path = store.path.resolve()
    with _shared_lock:
        for key in [k for k in _shared if k[0] == path]:
            del _shared[key]
