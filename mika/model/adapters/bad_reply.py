"""A reply that is not the provider's API at all becomes a `ModelError(BAD_REPLY)`.

Proxies, captive portals and wrong base URLs answer with HTML pages, bytes that are not
UTF-8, or JSON of another API. The SDKs let those through as `UnicodeDecodeError`, a bare
string or an object without the fields we read; here each becomes one sentence naming
the provider, with a short, printable piece of what arrived so the user can recognise it.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from mika.model.errors import ModelError, ModelErrorKind

SNIPPET = 120


def snippet(raw: Any, limit: int = SNIPPET) -> str:
    """What arrived, cut short, with undecodable bytes and control characters escaped."""
    if isinstance(raw, (bytes, bytearray)):
        text = bytes(raw[: limit * 4]).decode("utf-8", "backslashreplace")
    elif isinstance(raw, str):
        text = raw
    else:
        try:
            text = json.dumps(raw, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(raw)
    # One line, and no terminal control characters from a hostile body.
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in " ".join(text.split()))
    return text if len(text) <= limit else text[:limit] + "…"


def bad_reply(provider: str, what: str, raw: Any = None) -> ModelError:
    detail = what if raw is None else f"{what}: {snippet(raw)!s}"
    return ModelError(ModelErrorKind.BAD_REPLY, detail, provider=provider)


def undecodable(exc: BaseException, provider: str) -> ModelError | None:
    """The garbage errors raised while the SDK or we read a reply; None for anything else."""
    if isinstance(exc, UnicodeDecodeError):
        bad = exc.object[exc.start : exc.start + 1] if isinstance(exc.object, (bytes, bytearray)) else b""
        # A leading \xff\xfe makes a JSON reader guess UTF-16; its offsets would mislead.
        where = f" (byte 0x{bad.hex()} at offset {exc.start})" if bad and exc.encoding.startswith("utf-8") else ""
        return bad_reply(
            provider, f"the reply is not UTF-8 text{where}", exc.object if isinstance(exc.object, bytes) else None
        )
    if isinstance(exc, json.JSONDecodeError):
        return bad_reply(provider, f"the reply is not JSON ({exc.msg} at offset {exc.pos})", exc.doc)
    return None


def reply_object(reply: Any, provider: str, needs: str) -> dict[str, Any]:
    """A non-streamed reply as a dict that has a list under `needs` (`choices`, `output`,
    `content`, `candidates`), or a BAD_REPLY saying what came instead."""
    if isinstance(reply, (str, bytes)):
        _not_json(provider, "the reply is not JSON", reply)
    data = reply.to_dict(warnings=False) if hasattr(reply, "to_dict") else reply
    if not isinstance(data, dict):
        raise bad_reply(provider, f"the reply is JSON but not an object (a {type(data).__name__})", data)
    if isinstance(data.get("error"), dict):
        return data  # an error object sent with HTTP 200: the caller classifies it
    if not isinstance(data.get(needs), list):
        raise bad_reply(provider, f"the reply is a JSON object without a `{needs}` list", data)
    return data


def no_events(err: ModelError, count: int, content_type: str, provider: str) -> ModelError:
    """A stream that "ended early" without a single event was never an event stream."""
    if err.kind is not ModelErrorKind.STREAM_INCOMPLETE or count:
        return err
    if "event-stream" in content_type:
        return bad_reply(provider, "the event stream held no event of this API")
    return bad_reply(provider, f"expected a stream of server-sent events, got {content_type or 'no content type'}")


def _not_json(provider: str, what: str, raw: Any) -> NoReturn:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if "<html" in text[:500].lower() or "<!doctype" in text[:500].lower():
        what = "the reply is an HTML page, not the provider's API"
    raise bad_reply(provider, what, raw)
