"""The `chatgpt` provider kind against the fake plan backend: a call answered through the
plan with the stored tokens, refresh before expiry (once, however many calls want it),
refresh and retry on a 401, a revoked refresh token → "sign in again", the plan's own
refusals, and no sign-in at all."""

from __future__ import annotations

import asyncio
import threading

import pytest

from mika.model.base import Done
from mika.model.chatgpt.login import sign_in_with_browser
from mika.model.chatgpt.refresh import ChatGptAuth, forget_shared
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import Message, ModelRequest, Text, ToolCall, ToolSpec
from mika.model.providers_config import load_providers, parse_ref
from mika.model.roles import build_model
from tests.chatgpt.fakes import ACCOUNT_ID, ALLOWED_FIELDS, follow_in_browser, recorded_stream

CONFIG = {"providers": {"chatgpt": {"kind": "chatgpt"}}, "roles": {"main": "chatgpt/gpt-5"}}
REQUEST = ModelRequest(
    system="You are Mika.",
    messages=(Message("user", (Text("Say hello."),)),),
    tools=(ToolSpec("get_time", "The time now.", {"type": "object", "properties": {}}),),
    max_output_tokens=1024,  # the plan route takes none: it must not be sent
)


def sign_in(s, expires_in=3600):
    s.issuer.expires_in = expires_in
    return asyncio.run(sign_in_with_browser(s.endpoints(), s.store, open_browser=follow_in_browser, timeout=20))


def model():
    cfg = load_providers(CONFIG, None)
    return build_model(cfg, parse_ref("chatgpt/gpt-5", file=None, key="roles.main"))


async def answer(m, request=REQUEST):
    done = None
    async for event in m.stream(request):
        if isinstance(event, Done):
            done = event.response
    assert done is not None
    return done


def test_a_call_is_answered_through_the_plan_with_the_stored_tokens(signin):
    tokens = sign_in(signin)
    reply = asyncio.run(answer(model()))
    assert reply.message.parts == (Text("Done: the plan answered."),)
    assert reply.usage.input_tokens == 321 and reply.usage.output_tokens == 12
    (seen,) = signin.backend.requests
    assert seen["token"] == tokens.access_token
    assert seen["headers"]["chatgpt-account-id"] == ACCOUNT_ID
    body = seen["json"]
    assert set(body) <= ALLOWED_FIELDS and body["store"] is False and body["stream"] is True
    assert "temperature" not in body and "max_output_tokens" not in body
    assert body["instructions"] == "You are Mika." and body["model"] == "gpt-5"


def test_a_real_recorded_stream_comes_back_as_a_tool_call(signin):
    """The wire path with a real Responses stream (store:false, gpt-5.5, a function call)."""
    sign_in(signin)
    signin.backend.stream = recorded_stream()
    reply = asyncio.run(answer(model()))
    calls = [p for p in reply.message.parts if isinstance(p, ToolCall)]
    assert [c.name for c in calls] == ["multiply"] and reply.stop_reason == "tool_calls"


def test_no_sign_in_is_a_clear_model_error_at_build_time(signin):
    with pytest.raises(ModelError) as err:
        model()
    assert err.value.kind is ModelErrorKind.SIGNED_OUT
    assert "mika login chatgpt" in err.value.user_message("en")
    assert "mika login chatgpt" in err.value.user_message("zh") and "重新登录" in err.value.user_message("zh")


def test_a_token_near_expiry_is_refreshed_before_the_call(signin):
    old = sign_in(signin, expires_in=60)  # under the 5-minute margin at once
    asyncio.run(answer(model()))
    assert len(signin.issuer.log.refreshes) == 1
    assert signin.issuer.log.refreshes[0]["refresh_token"] == old.refresh_token
    new = signin.store.load()
    assert new is not None and new.access_token != old.access_token and new.refresh_token != old.refresh_token
    assert signin.backend.requests[0]["token"] == new.access_token


def test_concurrent_calls_refresh_once(signin):
    """Five calls at once on two models (main and vision are built separately) with a
    token about to expire: one refresh, and every call uses its result."""
    sign_in(signin, expires_in=60)
    signin.issuer.refresh_gate = gate = threading.Event()
    a, b = model(), model()

    async def calls():
        tasks = [asyncio.create_task(answer(m)) for m in (a, b, a, b, a)]
        # The first refresh is held at the issuer…
        assert await asyncio.to_thread(signin.issuer.refresh_held.wait, 10)
        gate.set()  # …then let go: the calls that came meanwhile take its result
        return await asyncio.gather(*tasks)

    asyncio.run(calls())
    assert len(signin.issuer.log.refreshes) == 1
    assert len({r["token"] for r in signin.backend.requests}) == 1 and len(signin.backend.requests) == 5


def test_two_processes_sharing_the_store_refresh_once(signin):
    """Two `ChatGptAuth`s over one store (as the TUI and `mika serve` are): the lock file
    makes the second wait, and it then takes the first's new tokens from the file."""
    sign_in(signin, expires_in=60)
    signin.issuer.refresh_gate = gate = threading.Event()
    one = ChatGptAuth(signin.store, signin.endpoints())
    two = ChatGptAuth(signin.store, signin.endpoints())

    async def both():
        first = asyncio.create_task(one.valid())
        assert await asyncio.to_thread(signin.issuer.refresh_held.wait, 10)
        # The second starts while the first's refresh is held (one loop turn lets it reach
        # the lock); either way exactly one refresh may reach the issuer.
        second = asyncio.create_task(two.valid())
        await asyncio.sleep(0)
        gate.set()
        return await asyncio.gather(first, second)

    x, y = asyncio.run(both())
    assert x.access_token == y.access_token and len(signin.issuer.log.refreshes) == 1


def test_a_401_refreshes_and_retries_once(signin):
    sign_in(signin)
    m = model()
    asyncio.run(answer(m))
    signin.issuer.expire_access()  # the backend stops taking the token before its expiry
    asyncio.run(answer(m))
    assert signin.backend.statuses == [200, 401, 200]
    assert len(signin.issuer.log.refreshes) == 1


def test_a_revoked_refresh_token_signs_out_with_a_clear_error(signin):
    sign_in(signin, expires_in=60)
    signin.issuer.revoke_all_refresh_tokens()
    with pytest.raises(ModelError) as err:
        asyncio.run(answer(model()))
    assert err.value.kind is ModelErrorKind.SIGNED_OUT and not err.value.retryable
    assert "Sign in again" in err.value.user_message("en") and "Refresh token revoked" in err.value.user_message("en")
    assert signin.store.load() is None and not signin.store.path.exists()
    assert signin.backend.requests == []


def test_a_401_then_a_revoked_refresh_token_signs_out(signin):
    sign_in(signin)
    signin.issuer.expire_access()
    signin.issuer.revoke_all_refresh_tokens()
    with pytest.raises(ModelError) as err:
        asyncio.run(answer(model()))
    assert err.value.kind is ModelErrorKind.SIGNED_OUT
    assert signin.store.load() is None


def test_a_refresh_the_issuer_cannot_do_now_keeps_the_tokens(signin):
    """A 500 at refresh time: the access token still has a minute, so the call goes ahead
    with it and the sign-in stays; when the token is already refused it is a server
    error (retried by the caller), not a sign-out."""
    old = sign_in(signin, expires_in=60)
    signin.issuer.token_status = 500
    asyncio.run(answer(model()))
    assert signin.backend.requests[0]["token"] == old.access_token
    assert signin.store.load() == old
    signin.issuer.expire_access()
    with pytest.raises(ModelError) as err:
        asyncio.run(answer(model()))
    assert err.value.kind is ModelErrorKind.SERVER and err.value.retryable
    assert signin.store.load() == old


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (
            429,
            b'{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached"}}',
            ModelErrorKind.PLAN_LIMIT,
        ),
        (403, b'{"detail":"subscription_sharing_user_not_eligible"}', ModelErrorKind.PLAN_NOT_ELIGIBLE),
    ],
)
def test_the_plans_refusals_are_their_own_errors_and_not_retried(signin, status, body, kind):
    sign_in(signin)
    signin.backend.replies.append((status, body))
    with pytest.raises(ModelError) as err:
        asyncio.run(answer(model()))
    assert err.value.kind is kind and not err.value.retryable
    assert "chatgpt.com/settings/usage" in err.value.user_message("en")
    assert len(signin.issuer.log.refreshes) == 0 and signin.store.load() is not None


def test_sign_in_after_the_model_was_built_is_seen(signin):
    """A process that found no sign-in (the TUI before "Sign in with ChatGPT") uses the one
    made later, once the shared auth is forgotten as the login does."""
    with pytest.raises(ModelError):
        model()
    sign_in(signin)
    forget_shared(signin.store)
    asyncio.run(answer(model()))
