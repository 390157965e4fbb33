"""What can go wrong while signing in, each kind with its sentence (mika.model.chatgpt.copy)."""

from __future__ import annotations

from typing import Any

from mika.config.secrets import scrub
from mika.model.chatgpt.copy import t


class LoginError(Exception):
    """A sign-in that did not finish. `kind` is a key of the copy table; `words` fill it.
    Everything shown is scrubbed: an issuer's error page may echo what it was sent."""

    def __init__(self, kind: str, **words: Any) -> None:
        self.kind = kind
        self.words = {k: scrub(str(v)) if isinstance(v, str) else v for k, v in words.items()}
        super().__init__(self.user_message("en"))

    def user_message(self, lang: str | None = None) -> str:
        return t(self.kind, lang, **self.words)
