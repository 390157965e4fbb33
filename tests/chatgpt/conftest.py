"""A fake issuer and a fake plan backend on loopback, and a state folder, config and
callback port of the test's own (so parallel tests never share a port or a token store)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mika.model.chatgpt.endpoints import ChatGptEndpoints, from_environment
from mika.model.chatgpt.refresh import forget_shared
from mika.model.chatgpt.token_store import TokenStore
from tests.chatgpt.fakes import FakeBackend, FakeIssuer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SignIn:
    issuer: FakeIssuer
    backend: FakeBackend
    port: int
    tmp: Path

    @property
    def state(self) -> Path:
        return self.tmp / "state"

    @property
    def config(self) -> Path:
        return self.tmp / "config" / "config.toml"

    @property
    def store(self) -> TokenStore:
        return TokenStore(self.state / "auth" / "chatgpt.json")

    def endpoints(self) -> ChatGptEndpoints:
        return from_environment()

    def env(self) -> dict[str, str]:
        return {
            "MIKA_CHATGPT_ISSUER": self.issuer.url,
            "MIKA_CHATGPT_BASE_URL": self.backend.base_url,
            "MIKA_CHATGPT_CALLBACK_PORT": str(self.port),
            "MIKA_STATE_DIR": str(self.state),
            "MIKA_CONFIG": str(self.config),
        }


@pytest.fixture
def signin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SignIn]:
    port = free_port()
    with FakeIssuer(f"http://localhost:{port}/auth/callback") as issuer, FakeBackend(issuer) as backend:
        s = SignIn(issuer, backend, port, tmp_path)
        for k, v in s.env().items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("LANG", "C.UTF-8")
        for name in ("MIKA_LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            monkeypatch.delenv(name, raising=False)
        try:
            yield s
        finally:
            forget_shared(s.store)
