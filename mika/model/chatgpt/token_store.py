"""The one file that holds the ChatGPT tokens: `auth/chatgpt.json` in the state folder.

Written atomically and 0600 through `write_secret_file` (not masked: it is the file whose
job is to hold them). Every token read or written here is registered as a secret first,
so every other file Mika writes and everything it prints masks it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from mika.atomic_write import ensure_dir, write_secret_file
from mika.config.paths import chatgpt_auth_file, state_dir
from mika.config.secrets import register_secret

VERSION = 1
# Refresh when less than this is left (seed: 快到期（不到 5 分钟）).
REFRESH_MARGIN_S = 300.0


@dataclass(frozen=True)
class ChatGptTokens:
    access_token: str
    refresh_token: str
    id_token: str
    # Seconds since the epoch; 0 when the issuer did not say (then refreshed on a 401 only).
    expires_at: float
    account_id: str
    email: str = ""
    plan: str = ""
    issuer: str = ""
    signed_in_at: float = 0.0

    def expiring(self, now: float | None = None) -> bool:
        if not self.expires_at:
            return False
        return (time.time() if now is None else now) >= self.expires_at - REFRESH_MARGIN_S

    def expired(self, now: float | None = None) -> bool:
        return bool(self.expires_at) and (time.time() if now is None else now) >= self.expires_at

    def secrets(self) -> tuple[str, str, str]:
        return (self.access_token, self.refresh_token, self.id_token)

    def refreshed(
        self, access_token: str, refresh_token: str | None, id_token: str | None, expires_at: float
    ) -> ChatGptTokens:
        # The issuer may rotate the refresh token (then the old one is spent) or keep it.
        return replace(
            self,
            access_token=access_token,
            refresh_token=refresh_token or self.refresh_token,
            id_token=id_token or self.id_token,
            expires_at=expires_at,
        )


def register(tokens: ChatGptTokens) -> None:
    for secret in tokens.secrets():
        register_secret(secret)


class TokenStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    @staticmethod
    def default() -> TokenStore:
        return TokenStore(chatgpt_auth_file(state_dir()))

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def load(self) -> ChatGptTokens | None:
        """The stored sign-in, or None (never signed in, signed out, or a file that is not
        ours any more: a broken store means "sign in again", not a crash)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None
        tokens = _parse(data)
        if tokens is not None:
            register(tokens)
        return tokens

    def save(self, tokens: ChatGptTokens) -> None:
        register(tokens)  # before the write: nothing written from now on may hold them
        body: dict[str, Any] = {"version": VERSION, **asdict(tokens)}
        write_secret_file(self.path, json.dumps(body, indent=1) + "\n")

    def clear(self) -> bool:
        """Forget the sign-in; True if there was one."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return False
        return True

    def lock(self) -> FileLock:
        """Across processes (the TUI, `mika serve` and a headless run may share one sign-in):
        only one of them refreshes at a time. Blocks until it is ours; call it in a thread."""
        ensure_dir(self.path.parent)
        return FileLock(self.lock_path)


class FileLock:
    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except ImportError:
            pass  # Windows: the in-process lock is all there is
        except BaseException:
            os.close(self._fd)
            raise

    def release(self) -> None:
        # Closing the descriptor drops the flock with it.
        os.close(self._fd)


def _parse(data: Any) -> ChatGptTokens | None:
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    strings = ("access_token", "refresh_token", "id_token", "account_id")
    if not all(isinstance(data.get(k), str) and data[k] for k in strings if k != "id_token"):
        return None
    try:
        return ChatGptTokens(
            access_token=data["access_token"],
            refresh_token=data["refresh_token"],
            id_token=str(data.get("id_token") or ""),
            expires_at=float(data.get("expires_at") or 0.0),
            account_id=data["account_id"],
            email=str(data.get("email") or ""),
            plan=str(data.get("plan") or ""),
            issuer=str(data.get("issuer") or ""),
            signed_in_at=float(data.get("signed_in_at") or 0.0),
        )
    except (TypeError, ValueError):
        return None
