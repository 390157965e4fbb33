"""What Mika reads from the tokens the issuer hands out: the ChatGPT account id (sent with
every request), the email and plan (shown by `mika login status`), and when the access
token expires.

The signature is not checked: the tokens come straight from the issuer's token endpoint
over TLS, and Mika only reads them to address its own requests, never to trust a person.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from mika.model.chatgpt.endpoints import AUTH_CLAIM


def jwt_claims(token: str) -> dict[str, Any]:
    """The payload of a JWT, or {} when the token is not one (an opaque access token)."""
    parts = token.split(".")
    if len(parts) != 3:
        return {}
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        data = json.loads(base64.urlsafe_b64decode(payload.encode("ascii")))
    except (ValueError, UnicodeError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Identity:
    account_id: str
    email: str = ""
    plan: str = ""


def identity_of(id_token: str, access_token: str = "") -> Identity:
    """The account from the id token's `https://api.openai.com/auth` claim (the access
    token carries the same claim; it is the fallback when a refresh sends no id token)."""
    for token in (id_token, access_token):
        claims = jwt_claims(token) if token else {}
        auth = claims.get(AUTH_CLAIM)
        if isinstance(auth, dict) and isinstance(auth.get("chatgpt_account_id"), str) and auth["chatgpt_account_id"]:
            email = claims.get("email")
            if not isinstance(email, str):
                profile = claims.get("https://api.openai.com/profile")
                email = profile.get("email", "") if isinstance(profile, dict) else ""
            plan = auth.get("chatgpt_plan_type")
            return Identity(auth["chatgpt_account_id"], email or "", plan if isinstance(plan, str) else "")
    return Identity("")


def expiry_of(access_token: str) -> float | None:
    exp = jwt_claims(access_token).get("exp")
    return float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None
