"""How the world's pending faults (mika/sim/faults.py) show on the uiautomator2 path.

Each answer is what a real uiautomator2 server gives in that state, so the client
library (uiautomator2 3.7) and Mika's port meet the same shapes they meet on a phone:

- idle_timeout: UiAutomation.waitForIdle gives up; the server answers a JSON-RPC error
  whose message is the Java exception (uiautomator2 raises RPCUnknownError).
- null_root: the accessibility bridge has no root window; the dump is an empty
  `<hierarchy rotation="0" />` and node lookups find nothing.
- bad_xml: a dump cut off in the middle of an element.
- bad_png: a screenshot whose JPEG is cut short.
- rpc_error: the UiAutomation connection died ("UiAutomation not connected"); the
  uiautomator2 client restarts its server and tries once more.
- http_500: NanoHTTPD's answer when the handler crashed; the client restarts too.

Every fault is consumed by one call it applies to, so a count means "the next N".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mika.sim.world.world import World

EMPTY_HIERARCHY = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\" />"
IDLE_TIMEOUT = (
    "java.util.concurrent.TimeoutException: No idle state with idle timeout: 500 within global timeout: 10000"
)
IDLE_TRACE = (
    IDLE_TIMEOUT + "\n\tat android.app.UiAutomation.waitForIdle(UiAutomation.java:1047)"
    "\n\tat androidx.test.uiautomator.QueryController.waitForIdle(QueryController.java:522)"
)
NOT_CONNECTED = "java.lang.IllegalStateException: UiAutomation not connected, UiAutomation@5b7b2e6[id=-1, flags=0]"
NOT_CONNECTED_TRACE = (
    NOT_CONNECTED + "\n\tat android.app.UiAutomation.throwIfNotConnectedLocked(UiAutomation.java:1590)"
)
HTTP_500_BODY = b"Internal Error"

DUMPS = frozenset({"dumpWindowHierarchy"})
SHOTS = frozenset({"takeScreenshot"})
# Calls that look nodes up through UiAutomation, which waits for the app to be idle first.
NODE_CALLS = frozenset(
    {
        "click",
        "longClick",
        "exist",
        "count",
        "objInfo",
        "objInfoOfAllInstances",
        "getText",
        "setText",
        "clearTextField",
        "scrollForward",
        "scrollBackward",
        "scrollToBeginning",
        "scrollToEnd",
        "scrollTo",
        "flingForward",
        "flingBackward",
        "flingToBeginning",
        "flingToEnd",
        "waitForExists",
        "waitUntilGone",
    }
)


class RpcFault(Exception):
    """The call answers a JSON-RPC error instead of its result."""

    def __init__(self, code: int, message: str, data: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def before_call(world: World, method: str) -> bool:
    """Raise RpcFault if a pending fault makes this call fail; True when the call must
    run blind (null root: no windows to look in)."""
    if world.take_fault("rpc_error"):
        raise RpcFault(-32001, NOT_CONNECTED, NOT_CONNECTED_TRACE)
    if method in DUMPS or method in NODE_CALLS:
        if world.take_fault("idle_timeout"):
            raise RpcFault(-32001, IDLE_TIMEOUT, IDLE_TRACE)
        if world.take_fault("null_root"):
            return True
    return False


def after_call(world: World, method: str, result: object) -> object:
    """The result as a faulty phone returns it."""
    if method in DUMPS and isinstance(result, str) and world.take_fault("bad_xml"):
        return result[: len(result) * 2 // 3]  # cut mid-element, as a dump killed half way
    if method in SHOTS and isinstance(result, str) and result and world.take_fault("bad_png"):
        cut = len(result) // 3
        return result[: cut - cut % 4]  # still valid base64, but the JPEG ends early
    return result


def http_500(world: World) -> bool:
    return world.take_fault("http_500")
