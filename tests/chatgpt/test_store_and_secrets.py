"""The token store and the secret registry: the tokens are registered as secrets when
stored, when read back, and at start from the file alone (every face's
`register_configured_secrets`), so every other write masks them; a broken store reads as
"not signed in"."""

from __future__ import annotations

import json
import secrets as random

from click.testing import CliRunner

from mika.atomic_write import write_json
from mika.config.paths import chatgpt_auth_file
from mika.config.secret_discovery import register_configured_secrets, stored_sign_in_secrets
from mika.config.secrets import MASK, scrub
from mika.config.settings import Settings
from mika.model.chatgpt.token_store import ChatGptTokens, TokenStore
from tests.chatgpt.fakes import jwt


def tokens() -> ChatGptTokens:
    return ChatGptTokens(
        access_token=jwt({"n": random.token_hex(16)}),
        refresh_token="rt_" + random.token_urlsafe(32),
        id_token=jwt({"email": "a@example.com", "n": random.token_hex(16)}),
        expires_at=2_000_000_000.0,
        account_id="acc-1",
    )


def test_stored_tokens_are_masked_in_every_other_write(tmp_path):
    store = TokenStore(tmp_path / "auth" / "chatgpt.json")
    t = tokens()
    store.save(t)
    assert json.loads(store.path.read_text())["refresh_token"] == t.refresh_token  # the store keeps them
    write_json(tmp_path / "record.json", {"said": f"token {t.access_token} and {t.refresh_token}"})
    written = (tmp_path / "record.json").read_text()
    assert t.access_token not in written and t.refresh_token not in written and MASK in written
    assert store.load() == t


def test_a_face_registers_the_stored_tokens_at_start(tmp_path, monkeypatch):
    """Another process wrote the store; this one has not read it through TokenStore."""
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    t = tokens()
    path = chatgpt_auth_file(tmp_path / "state")
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "access_token": t.access_token,
                "refresh_token": t.refresh_token,
                "id_token": t.id_token,
                "account_id": "acc-1",
            }
        )
    )
    assert set(stored_sign_in_secrets(path)) == set(t.secrets())
    assert scrub(t.refresh_token) == t.refresh_token  # not known yet
    register_configured_secrets(Settings(raw={}))
    assert scrub(f"x {t.refresh_token} y {t.access_token}") == f"x {MASK} y {MASK}"


def test_a_broken_store_is_not_signed_in(tmp_path):
    path = tmp_path / "auth" / "chatgpt.json"
    path.parent.mkdir(parents=True)
    for text in ("{", "[]", '{"version": 99}', '{"version": 1, "access_token": ""}'):
        path.write_text(text)
        assert TokenStore(path).load() is None
    assert stored_sign_in_secrets(tmp_path / "missing.json") == []


def test_models_list_and_test_on_the_plan_say_what_to_do(signin):
    from mika.commands.models import models_group

    signin.config.parent.mkdir(parents=True, exist_ok=True)
    signin.config.write_text('[providers.chatgpt]\nkind = "chatgpt"\n')
    listed = CliRunner().invoke(models_group, ["list", "chatgpt"])
    assert listed.exit_code == 4 and "name the model, e.g. chatgpt/gpt-5" in listed.output
    tested = CliRunner().invoke(models_group, ["test", "chatgpt/gpt-5"])
    assert tested.exit_code == 4 and "Sign in again: mika login chatgpt" in tested.output
    assert "Traceback" not in tested.output


def test_login_status_json_when_signed_out(signin):
    from mika.commands.login import login_group

    r = CliRunner().invoke(login_group, ["status", "--json"])
    assert r.exit_code == 1 and json.loads(r.output)["signed_in"] is False


def test_masking_long_tokens_matches_one_alternation_of_every_form():
    """The registry looks for each form's first 16 characters and compares the rest where
    they match (a regex of whole 3 KB tokens took seconds to compile at every refresh); it
    must mask exactly what one longest-first alternation of all forms masks."""
    import re

    from mika.config.secrets import SecretRegistry

    head = "eyJhbGciOiJSUzI1NiJ9."  # JWTs share their first 20 characters
    body = random.token_urlsafe(2000)
    secrets_ = [head + body, head + body[:900], head + random.token_urlsafe(40), "short-one-123", "rt_" + body[:50]]
    registry = SecretRegistry()
    for secret in secrets_:
        registry.add(secret)
    alternation = re.compile("|".join(re.escape(f) for f in registry.forms))
    texts = [
        " ".join(secrets_),
        f"a{head}{body[:899]}b",  # a head without the rest: left alone
        f"{head}{body}{head}{body[:900]}x{secrets_[2]}",
        json.dumps({"t": secrets_[0], "u": secrets_[3]}),
        "nothing here",
    ]
    for text in texts:
        assert registry.text(text) == alternation.sub(MASK, text)
        assert registry.data(text.encode()) == alternation.sub(MASK, text).encode()
    assert registry.holdback("x " + secrets_[0][:2000]) == 2000
    # A whole token is let out; the space after it because a random token may end in a
    # character that starts another secret ("s" of "short-one-123"), rightly held back.
    assert registry.holdback("x " + secrets_[0] + " ") == 0
