"""Where the ChatGPT sign-in and the plan's backend live.

The facts are public and the same in every reimplementation of Codex CLI's sign-in; the
issuer and backend addresses and the callback port are overridable so that tests talk to
a fake issuer and a fake backend on loopback (and parallel tests don't share a port).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ISSUER = "https://auth.openai.com"
BASE_URL = "https://chatgpt.com/backend-api/codex"
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
SCOPE = "openid profile email offline_access"
CALLBACK_PATH = "/auth/callback"
CALLBACK_PORT = 1455
# The claim of the id token (and access token) that carries the ChatGPT account.
AUTH_CLAIM = "https://api.openai.com/auth"
USAGE_PAGE = "https://chatgpt.com/settings/usage"
# The provider id and main model the first sign-in sets up when none is chosen yet: a
# model the plan's backend serves today; `mika models use main chatgpt/…` picks another.
PROVIDER_ID = "chatgpt"
DEFAULT_MODEL = "gpt-5"

ISSUER_ENV = "MIKA_CHATGPT_ISSUER"
BASE_URL_ENV = "MIKA_CHATGPT_BASE_URL"
PORT_ENV = "MIKA_CHATGPT_CALLBACK_PORT"


@dataclass(frozen=True)
class ChatGptEndpoints:
    issuer: str = ISSUER
    base_url: str = BASE_URL
    client_id: str = CLIENT_ID
    scope: str = SCOPE
    # 0: the system picks a free port (the redirect URI then names that port).
    callback_port: int = CALLBACK_PORT

    @property
    def authorize_url(self) -> str:
        return f"{self.issuer}/oauth/authorize"

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/oauth/token"

    @property
    def revoke_url(self) -> str:
        return f"{self.issuer}/oauth/revoke"

    @staticmethod
    def redirect_uri(port: int) -> str:
        # "localhost", not 127.0.0.1: it is the redirect URI the public client is registered with.
        return f"http://localhost:{port}{CALLBACK_PATH}"


def _url(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip().rstrip("/")
    return value if value.startswith(("http://", "https://")) else default


def from_environment(base_url: str | None = None) -> ChatGptEndpoints:
    """The real addresses unless `MIKA_CHATGPT_ISSUER` / `MIKA_CHATGPT_BASE_URL` /
    `MIKA_CHATGPT_CALLBACK_PORT` say otherwise (the environment beats the config's
    `base_url`, as it does everywhere in Mika)."""
    port_text = os.environ.get(PORT_ENV, "").strip()
    port = int(port_text) if port_text.isdigit() and int(port_text) < 65536 else CALLBACK_PORT
    return ChatGptEndpoints(
        issuer=_url(ISSUER_ENV, ISSUER),
        base_url=_url(BASE_URL_ENV, (base_url or BASE_URL).rstrip("/")),
        callback_port=port,
    )
