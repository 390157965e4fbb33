"""`ActionPass`: proof that a write went through the ActionExecutor.

The dispatcher runs a non-read tool only with a pass for exactly that call. Passes are
minted by a single `Minter`, handed out once per process to whoever asks first — the
ActionExecutor module does so at import — so no other code can create one, and each pass
is spent on first use.
"""

from __future__ import annotations

import threading

_guard = object()
_issued = False
_lock = threading.Lock()


class ForgedPass(RuntimeError):
    pass


class ActionPass:
    __slots__ = ("_spent", "call_id", "tool")

    def __init__(self, call_id: str, tool: str, *, _token: object = None) -> None:
        if _token is not _guard:
            raise ForgedPass("an ActionPass can only be created by the ActionExecutor")
        self.call_id = call_id
        self.tool = tool
        self._spent = False

    def spend(self, call_id: str, tool: str) -> None:
        """Use the pass for this call; a second use, or use for another call, fails."""
        if self._spent:
            raise ForgedPass(f"this ActionPass was already used for {self.tool} ({self.call_id})")
        if call_id != self.call_id or tool != self.tool:
            raise ForgedPass(f"this ActionPass is for {self.tool} ({self.call_id}), not {tool} ({call_id})")
        self._spent = True


class Minter:
    __slots__ = ()

    def mint(self, call_id: str, tool: str) -> ActionPass:
        return ActionPass(call_id, tool, _token=_guard)


def issue_minter() -> Minter:
    """The one Minter of this process; asking a second time is refused."""
    global _issued
    with _lock:
        if _issued:
            raise ForgedPass("the ActionPass minter was already issued to the ActionExecutor")
        _issued = True
        return Minter()
