"""Read-only scripts in Mika's isolated world of a page (seed §6 只读脚本).

`evaluate_isolated(cdp, script, timeout_s=…)` runs a model's script against the current
page without letting it change anything: the script runs in an isolated world of the main
frame (its own JavaScript objects over the page's DOM, invisible to the page's scripts),
through the read-only wrapper in `scripts/read_only.js` (writes, clicks, navigation and
the network throw; password fields read "***"). The Runtime domain is never enabled —
a page can tell a debugger is attached when it is, and some sites then reload forever — so
the world is made with `Page.createIsolatedWorld` and used with `Runtime.evaluate`
(contextId) only, and it is known to be gone when the main frame got a new document
(its loaderId changed) or an evaluation says the context is not there.

Belt and braces: while a script runs the CDP Network domain is watched (Network.enable is
harmless; only Runtime.enable is avoided) and a request started from the script's code
fails the call with `blocked_network` even if the wrapper missed the route.

`cdp` is anything with `async send(method, params) -> dict` (a Playwright CDPSession);
when it also has `on(event, handler)` / `remove_listener(event, handler)` the network
watch is on.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Protocol

from mika.cap.web.port import WebError
from mika.resources import prompt

WORLD_NAME = "mika"
# Every piece of code we evaluate carries one of these names, so requests it starts are
# recognised by their initiator stack (the wrapper's own name, and the script's inside it).
SOURCE_URLS = ("mika-readonly.js", "mika-readonly-script.js", "mika-main-text.js")
RESULT_CAP_CHARS = 64_000  # a result's JSON beyond this is cut, with a note


class CdpSession(Protocol):
    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...


@cache
def script_text(name: str) -> str:
    """A JavaScript file shipped in `mika/cap/web/scripts/` (package data)."""
    return resources.files("mika.cap.web").joinpath("scripts", name).read_text(encoding="utf-8")


@dataclass
class _World:
    frame_id: str
    loader_id: str
    context_id: int
    installed: set[str] = field(default_factory=set)


# One world per CDP session (a session is one page); forgotten with the session.
_worlds: weakref.WeakKeyDictionary[Any, _World] = weakref.WeakKeyDictionary()
_network_on: weakref.WeakSet[Any] = weakref.WeakSet()


def _context_gone(error: BaseException) -> bool:
    text = str(error).lower()
    return "cannot find context" in text or "context was destroyed" in text or "execution context" in text


async def _main_frame(cdp: CdpSession) -> tuple[str, str]:
    tree = await cdp.send("Page.getFrameTree")
    frame = tree["frameTree"]["frame"]
    return frame["id"], frame.get("loaderId", "")


async def _new_world(cdp: CdpSession, frame_id: str, loader_id: str) -> _World:
    made = await cdp.send(
        "Page.createIsolatedWorld",
        # (sic) the protocol's own spelling of the parameter.
        {"frameId": frame_id, "worldName": WORLD_NAME, "grantUniveralAccess": False},
    )
    world = _World(frame_id, loader_id, int(made["executionContextId"]))
    _worlds[cdp] = world
    return world


async def world(cdp: CdpSession, *, fresh: bool = False) -> _World:
    """Mika's isolated world of the page's main frame: reused while the document lives,
    made anew for a new document (or when `fresh`), with the read-only wrapper installed."""
    frame_id, loader_id = await _main_frame(cdp)
    known = _worlds.get(cdp)
    if fresh or known is None or known.frame_id != frame_id or known.loader_id != loader_id:
        known = await _new_world(cdp, frame_id, loader_id)
    if "read_only" not in known.installed:
        await _evaluate(cdp, known, script_text("read_only.js") + "\n//# sourceURL=mika-readonly.js", timeout_s=10.0)
        known.installed.add("read_only")
    return known


async def _evaluate(cdp: CdpSession, w: _World, expression: str, *, timeout_s: float) -> Any:
    """Runtime.evaluate in the world; the value (by value). Raises WebError on a JS
    exception (script_error) and on a runaway evaluation (timeout)."""
    params = {
        "expression": expression,
        "contextId": w.context_id,
        "awaitPromise": True,
        "returnByValue": True,
        "timeout": int(timeout_s * 1000),  # terminates a synchronous runaway loop
        "userGesture": False,
    }
    started = time.monotonic()
    try:
        answer = await asyncio.wait_for(cdp.send("Runtime.evaluate", params), timeout_s + 2.0)
    except TimeoutError:
        # Still running after its promise should have settled (a loop after an await):
        # stop whatever JavaScript the renderer is running, then report.
        try:
            await asyncio.wait_for(cdp.send("Runtime.terminateExecution"), 5.0)
        except Exception:  # the page may be gone; the timeout is what we report
            pass
        raise WebError(prompt("feedback/web_script_timeout.md").format(seconds=f"{timeout_s:g}"), "timeout") from None
    except Exception as e:
        if _context_gone(e):
            raise
        if time.monotonic() - started >= timeout_s * 0.9:
            raise WebError(
                prompt("feedback/web_script_timeout.md").format(seconds=f"{timeout_s:g}"), "timeout"
            ) from None
        raise WebError(f"The page could not run the script: {e}", "script_error") from None
    details = answer.get("exceptionDetails")
    if details:
        text = (details.get("exception") or {}).get("description") or details.get("text") or "an exception"
        if "terminated" in text.lower():
            raise WebError(prompt("feedback/web_script_timeout.md").format(seconds=f"{timeout_s:g}"), "timeout")
        raise WebError(f"The script failed: {text.splitlines()[0][:300]}", "script_error")
    return (answer.get("result") or {}).get("value")


async def evaluate_in_world(cdp: CdpSession, expression: str, *, timeout_s: float) -> Any:
    """Evaluate `expression` in Mika's world (our own code: the main-text reader), making
    the world anew once when the page changed under it."""
    w = await world(cdp)
    try:
        return await _evaluate(cdp, w, expression, timeout_s=timeout_s)
    except WebError:
        raise
    except Exception as e:
        if not _context_gone(e):
            raise
    w = await world(cdp, fresh=True)
    return await _evaluate(cdp, w, expression, timeout_s=timeout_s)


class _NetworkWatch:
    """Requests the script's code started while it ran (by their initiator stack)."""

    def __init__(self, cdp: Any) -> None:
        self.cdp = cdp
        self.urls: list[str] = []
        self.on = callable(getattr(cdp, "on", None)) and callable(getattr(cdp, "remove_listener", None))

    def _seen(self, event: dict[str, Any]) -> None:
        stack = (event.get("initiator") or {}).get("stack") or {}
        while stack:
            for frame in stack.get("callFrames") or ():
                if frame.get("url") in SOURCE_URLS:
                    self.urls.append(str((event.get("request") or {}).get("url", "")))
                    return
            stack = stack.get("parent") or {}

    async def __aenter__(self) -> _NetworkWatch:
        if self.on:
            self.cdp.on("Network.requestWillBeSent", self._seen)
            # Enabled once per session and left on: the port shares this session with its
            # own work, and switching the domain off after a call would cut off anyone
            # else listening on it (enabling again is harmless).
            if self.cdp not in _network_on:
                await self.cdp.send("Network.enable")
                _network_on.add(self.cdp)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.on:
            self.cdp.remove_listener("Network.requestWillBeSent", self._seen)


def _refusal(code: str, what: str) -> WebError:
    name = "web_script_blocked_network.md" if code == "blocked_network" else "web_script_blocked.md"
    return WebError(prompt(f"feedback/{name}").format(what=what[:200]), code)


async def evaluate_isolated(cdp: CdpSession, script: str, *, timeout_s: float) -> Any:
    """Run `script` (an expression, or a function body with `return`; `await` works)
    read-only in Mika's isolated world of the main frame; its JSON-able value.

    Raises WebError with code `blocked` (a write, click, focus, navigation …),
    `blocked_network` (fetch, XMLHttpRequest, a src/href …), `script_error` (the script
    threw; the message has the JS error) or `timeout`."""
    if not isinstance(script, str) or not script.strip():
        raise WebError("The script is empty: give JavaScript that returns what you want to read.", "script_error")
    w = await world(cdp)
    call = f"globalThis.__mikaRO.run({json.dumps(script)}, {int(timeout_s * 1000)}, {RESULT_CAP_CHARS})"
    expression = call + "\n//# sourceURL=mika-readonly.js"
    async with _NetworkWatch(cdp) as watch:
        try:
            raw = await _evaluate(cdp, w, expression, timeout_s=timeout_s)
        except WebError:
            raise
        except Exception as e:
            if not _context_gone(e):
                raise WebError(f"The page could not run the script: {e}", "script_error") from None
            w = await world(cdp, fresh=True)
            raw = await _evaluate(cdp, w, expression, timeout_s=timeout_s)
    if watch.urls:
        raise _refusal("blocked_network", f"a request to {watch.urls[0][:120]}")
    if not isinstance(raw, str):
        raise WebError("The read-only script world did not answer; read the page again and retry.", "script_error")
    answer = json.loads(raw)
    if not answer.get("ok"):
        code = str(answer.get("code") or "script_error")
        message = str(answer.get("message") or "")
        if code in ("blocked", "blocked_network"):
            raise _refusal(code, message)
        if code == "timeout":
            raise WebError(prompt("feedback/web_script_timeout.md").format(seconds=f"{timeout_s:g}"), "timeout")
        raise WebError(f"The script failed: {message[:300]}", "script_error")
    if answer.get("cut"):
        return {
            "truncated": answer.get("text", ""),
            "note": prompt("feedback/web_script_cut.md").format(size=answer.get("size"), cap=RESULT_CAP_CHARS),
        }
    return json.loads(answer.get("json") or "null")
