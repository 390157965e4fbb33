"""The `chatgpt` provider kind: the Responses adapter, addressed to the plan's backend
with the stored sign-in (seed: chatGptPlan through ResponsesModel).

Each call takes a valid access token from the shared `ChatGptAuth` (refreshed shortly
before it expires); a 401 before anything streamed means the token was rejected after
all, so it is refreshed and the call made once more. The plan's own refusals become
their own kinds: the usage limit (429) and an account that cannot be used this way
(403), neither of which a retry would help.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from mika.model.adapters.endpoint import Endpoint
from mika.model.adapters.endpoint_model import EndpointModel
from mika.model.adapters.openai_responses import OpenAIResponsesModel
from mika.model.base import StreamEvent
from mika.model.chatgpt.endpoints import ChatGptEndpoints, from_environment
from mika.model.chatgpt.refresh import ChatGptAuth, shared_auth, signed_out
from mika.model.chatgpt.token_store import ChatGptTokens, TokenStore
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import ModelRequest

ACCOUNT_HEADER = "chatgpt-account-id"
_LIMIT_WORDS = ("usage_limit", "usage limit", "limit_exceeded")
_NOT_ELIGIBLE_WORDS = ("not_eligible", "not eligible")


def plan_error(err: ModelError) -> ModelError:
    """The plan's refusals by status or by the code/words the backend gives them (the
    in-stream `response.failed` form has no status)."""
    words = err.detail.lower()
    if err.kind is ModelErrorKind.SIGNED_OUT:
        return err
    if err.status == 429 or any(w in words for w in _LIMIT_WORDS):
        return ModelError(ModelErrorKind.PLAN_LIMIT, err.detail, status=err.status, provider=err.provider)
    if err.status == 403 or any(w in words for w in _NOT_ELIGIBLE_WORDS):
        return ModelError(ModelErrorKind.PLAN_NOT_ELIGIBLE, err.detail, status=err.status, provider=err.provider)
    return err


class ChatGptModel(EndpointModel):
    kind = "chatgpt"

    def __init__(self, endpoint: Endpoint, auth: ChatGptAuth) -> None:
        super().__init__(endpoint)
        self.auth = auth
        self._inner: OpenAIResponsesModel | None = None
        self._inner_token = ""

    @staticmethod
    def signed_in(endpoint: Endpoint, store: TokenStore | None = None) -> ChatGptModel:
        """The model for a configured `kind = "chatgpt"` provider; ModelError(SIGNED_OUT)
        when there is no sign-in, so a run never starts only to fail at its first call."""
        endpoints: ChatGptEndpoints = from_environment(endpoint.base_url)
        store = store or TokenStore.default()
        auth = shared_auth(store, endpoints)
        if auth.tokens is None and store.load() is None:
            raise signed_out(provider=endpoint.provider)
        return ChatGptModel(replace(endpoint, base_url=endpoints.base_url, api_key=None), auth)

    def _model(self, tokens: ChatGptTokens) -> OpenAIResponsesModel:
        """The Responses adapter for this access token. A new token (once an hour) gets a
        new adapter (with its own HTTP client: mika.model.adapters.http_call, no SDK), and
        what the old adapter learnt (that the server refuses `include`) carries over. The
        old client is not closed here: a call on it may still be streaming (main and side
        calls share this model); it goes with its last call."""
        if self._inner is not None and self._inner_token == tokens.access_token:
            return self._inner
        endpoint = replace(
            self.endpoint,
            api_key=tokens.access_token,
            headers={**self.endpoint.headers, ACCOUNT_HEADER: tokens.account_id},
        )
        inner = OpenAIResponsesModel(endpoint)
        if self._inner is not None:
            inner._include = self._inner._include
        self._inner, self._inner_token = inner, tokens.access_token
        return inner

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        tokens = await self.auth.valid()
        started = False
        try:
            async for event in self._model(tokens).stream(request):
                started = True
                yield event
            return
        except ModelError as err:
            if started or err.status != 401:
                raise plan_error(err) from err
        # 401 at the request: the token was turned down (revoked early, or our clock is off).
        tokens = await self.auth.after_rejection(tokens)
        try:
            async for event in self._model(tokens).stream(request):
                yield event
        except ModelError as err:
            if err.status == 401:
                # A fresh token refused as well: the sign-in itself is not accepted any more.
                raise signed_out(err.detail, provider=self.provider) from err
            raise plan_error(err) from err
