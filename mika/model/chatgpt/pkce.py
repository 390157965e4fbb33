"""PKCE (RFC 7636, S256) and the state that ties a callback to the sign-in that asked for it."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def challenge_of(verifier: str) -> str:
    return _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str
    state: str

    @staticmethod
    def fresh() -> Pkce:
        """New for every sign-in: 64 random bytes make a 86-character verifier (the RFC
        allows 43–128), 32 make the state."""
        verifier = _b64url(secrets.token_bytes(64))
        return Pkce(verifier, challenge_of(verifier), _b64url(secrets.token_bytes(32)))
