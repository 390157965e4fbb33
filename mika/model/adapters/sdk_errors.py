"""Map the openai / anthropic SDK exceptions (and raw transport errors) to `ModelError`."""

from __future__ import annotations

import sys
from typing import Any

from mika.model.adapters.bad_reply import undecodable
from mika.model.classify import classify_http
from mika.model.errors import ModelError, ModelErrorKind

# httpx (the Gemini adapter's client) and the fork the SDKs ship (httpx2). Their transport
# errors are looked up among the modules already loaded: an exception of a module that was
# never imported cannot exist, and importing httpx here costs every start-up its CLI's
# dependencies (rich, pygments), a tenth of a headless run's time to its first request.
_HTTP_CLIENTS = ("httpx", "httpx2")


def _transport_errors() -> tuple[type[BaseException], ...]:
    out: list[type[BaseException]] = []
    for name in _HTTP_CLIENTS:
        error = getattr(sys.modules.get(name), "TransportError", None)
        if isinstance(error, type) and issubclass(error, BaseException):
            out.append(error)
    return tuple(out)


def _headers_of(exc: Any) -> dict[str, str]:
    response = getattr(exc, "response", None)
    if response is None:
        return {}
    try:
        return dict(response.headers)
    except Exception:
        return {}


def _body_of(exc: Any) -> Any:
    body = getattr(exc, "body", None)
    if body is not None:
        return body
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            return response.text
        except Exception:
            return None
    return None


def _read_timeout(exc: BaseException) -> bool:
    """The server took the connection, then sent nothing: a read (or write) timeout, not
    a connect one. The SDKs wrap httpx's exception, so the cause is looked at too."""
    for e in (exc, exc.__cause__, exc.__context__):
        if e is not None and type(e).__name__ in ("ReadTimeout", "WriteTimeout"):
            return True
    return False


def _timed_out(exc: BaseException, provider: str, started: bool, read_timeout: float | None) -> ModelError:
    after = f" for {read_timeout:g} s" if read_timeout else ""
    where = "partway through the reply" if started else "after the request was sent"
    return ModelError(ModelErrorKind.TIMEOUT, f"read timed out: no data{after} {where}", provider=provider)


def translate(
    exc: BaseException, *, provider: str, model: str, started: bool, read_timeout: float | None = None
) -> ModelError:
    """`started`: some of the reply had arrived, so a broken connection is a cut stream.
    `read_timeout`: the client's read timeout, named when a reachable server stalls."""
    if isinstance(exc, ModelError):
        return exc
    garbage = undecodable(exc, provider)
    if garbage is not None:
        return garbage
    if _read_timeout(exc):
        return _timed_out(exc, provider, started, read_timeout)
    name = type(exc).__name__
    module = type(exc).__module__
    from_sdk = module.startswith(("openai", "anthropic"))
    if from_sdk and hasattr(exc, "status_code"):
        status = getattr(exc, "status_code", None)
        return classify_http(status, _body_of(exc), _headers_of(exc), provider=provider, model=model)
    if from_sdk and ("Timeout" in name or "Connection" in name):
        cause = exc.__cause__ or exc
        kind = ModelErrorKind.STREAM_INCOMPLETE if started else ModelErrorKind.NETWORK
        return ModelError(kind, f"{type(cause).__name__}: {cause}".strip(": "), provider=provider)
    body = getattr(exc, "body", None)
    if from_sdk and body is not None:
        # An `error` event inside a stream (HTTP 200 already sent).
        return classify_http(None, {"error": body}, None, provider=provider, model=model)
    if isinstance(exc, _transport_errors()):
        kind = ModelErrorKind.STREAM_INCOMPLETE if started else ModelErrorKind.NETWORK
        return ModelError(kind, f"{name}: {exc}".strip(": "), provider=provider)
    raise exc
