"""The bridge server: one Unix socket and one token per sandbox command.

Entered around each command (the session's extras hook). It finds what a command may call
in the run's own tool registry (`ToolContext.tools`), by declaration: a tool with
`sandbox_callable` is reached as `mika <capability> <op>` (`AgentTool.sandbox_op`). It knows
no capability by name, so a run without such tools (no phone) gets no socket at all and the
client says there is nothing to call.

Each call goes back through the run's single action entry (`ctx.perform`, Origin.SANDBOX):
guards, the lock-screen check, the payment rule (a sandbox call never spends a consent),
effect checks and the run record apply as to the model's own calls. Calls are one at a
time; what a tool returns goes back as text only (no pictures over the bridge), fenced as
the tool fenced it, and reaches the model inside the command's output, which is untrusted.

The socket lives in a private folder (0700, `tempfile.mkdtemp`) bound read-only at
/run/mika/bridge; the token is random (`secrets`) and good for this command only: when the
command ends the server closes, the folder is removed, calls still running are waited for
(bounded) and a late request on an open connection is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from mika.action.origin import Origin
from mika.cap.sandbox.bridge.protocol import (
    CALLS_MAX,
    ENV_SOCKET,
    ENV_TOKEN,
    HELP_OP,
    REQUEST_MAX,
    SOCKET_DIR_INSIDE,
    SOCKET_NAME,
    BadRequest,
    Request,
    parse_request,
    reply,
)
from mika.cap.sandbox.port import Bind, Extras
from mika.model.messages import ToolCall
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool
from mika.tool.unseen import results_unseen

log = logging.getLogger(__name__)

READ_TIMEOUT = 10.0  # seconds a connection may take to send its one line
# Calls still running when their command ends are waited for this long (phone_wait and
# phone_event wait up to 30 s), then cancelled.
DRAIN_SECONDS = 40.0


def callable_tools(ctx: ToolContext | None) -> dict[tuple[str, str], AgentTool]:
    """(capability, op) → tool, for the run's tools declared sandbox_callable."""
    if ctx is None or ctx.tools is None:
        return {}
    return {(t.capability, t.sandbox_op()): t for t in ctx.tools.tools if t.sandbox_callable}


@dataclass
class _Command:
    """One command's socket: its token, its count of calls, whether it still runs."""

    token: str
    number: int
    calls: int = 0
    live: bool = True
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


class SandboxBridge:
    """One run's bridge. `extras` is the SandboxSession extras provider."""

    def __init__(
        self, *, calls_max: int = CALLS_MAX, request_max: int = REQUEST_MAX, drain_seconds: float = DRAIN_SECONDS
    ) -> None:
        self.calls_max = calls_max
        self.request_max = request_max
        self.drain_seconds = drain_seconds
        # One call at a time across the run: parallel `mika phone` calls would race on one screen.
        self._lock = asyncio.Lock()
        self._commands = 0

    @contextlib.asynccontextmanager
    async def extras(self, ctx: ToolContext | None) -> AsyncIterator[Extras]:
        ops = callable_tools(ctx)
        if ctx is None or ctx.perform is None or not ops:
            yield Extras()
            return
        self._commands += 1
        command = _Command(secrets.token_urlsafe(32), self._commands)
        folder = Path(tempfile.mkdtemp(prefix="mika-bridge-"))  # 0700: this user only
        socket_path = folder / SOCKET_NAME

        def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.ensure_future(self._serve(reader, writer, command, ctx, ops))
            command.tasks.add(task)
            task.add_done_callback(command.tasks.discard)

        server = await asyncio.start_unix_server(connected, path=str(socket_path), limit=self.request_max + 1)
        try:
            yield Extras(
                ro_binds=(Bind(folder, SOCKET_DIR_INSIDE),),
                env={ENV_SOCKET: f"{SOCKET_DIR_INSIDE}/{SOCKET_NAME}", ENV_TOKEN: command.token},
            )
        finally:
            command.live = False
            server.close()
            shutil.rmtree(folder, ignore_errors=True)
            if command.tasks:
                _, late = await asyncio.wait(set(command.tasks), timeout=self.drain_seconds)
                for task in late:
                    task.cancel()
                if late:
                    await asyncio.wait(late)

    async def _serve(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        command: _Command,
        ctx: ToolContext,
        ops: dict[tuple[str, str], AgentTool],
    ) -> None:
        try:
            try:
                line = await asyncio.wait_for(reader.readuntil(b"\n"), READ_TIMEOUT)
            except asyncio.IncompleteReadError as exc:
                line = exc.partial  # the client closed without a newline: its one line
            except asyncio.LimitOverrunError:
                raise BadRequest(
                    "oversize", f"the request is over {self.request_max} bytes; pass less (write it to a file)"
                ) from None
            except ValueError:  # the stream's own limit, as some Python versions say it
                raise BadRequest(
                    "oversize", f"the request is over {self.request_max} bytes; pass less (write it to a file)"
                ) from None
            if len(line) > self.request_max:
                raise BadRequest("oversize", f"the request is over {self.request_max} bytes")
            answer = await self._answer(parse_request(line.strip()), command, ctx, ops)
        except BadRequest as bad:
            answer = reply(False, str(bad), bad.code)
        except TimeoutError:
            answer = reply(False, f"no request line within {READ_TIMEOUT:g} s", "bad_request")
        try:
            writer.write(answer)
            await writer.drain()
        except (ConnectionError, OSError):
            pass  # the command is gone; the call is in the run record all the same
        finally:
            writer.close()

    async def _answer(
        self, request: Request, command: _Command, ctx: ToolContext, ops: dict[tuple[str, str], AgentTool]
    ) -> bytes:
        if not secrets.compare_digest(request.token.encode(), command.token.encode()):
            raise BadRequest("bad_token", "wrong token: a token is good only for the command it was given to")
        if not command.live:
            raise BadRequest("ended", "the command this token belonged to has ended")
        if request.op == HELP_OP:
            return reply(True, _help(request.capability, ops, self.calls_max))
        tool = ops.get((request.capability, request.op))
        if tool is None:
            raise _unknown(request, ctx, ops)
        if command.calls >= self.calls_max:
            raise BadRequest(
                "call_limit", f"this command made its {self.calls_max} calls; end it and run another if needed"
            )
        command.calls += 1
        call = ToolCall(f"sandbox-{command.number}-{command.calls}", tool.name, dict(request.args))
        assert ctx.perform is not None  # checked before the socket was opened
        async with self._lock:
            with results_unseen():
                outcome = await ctx.perform(call, ctx, Origin.SANDBOX)
        # Text only: a picture the tool made stays in the run record, not in a command's output.
        if outcome.ok:
            return reply(True, outcome.text)
        return reply(False, outcome.text, outcome.code)


def _help(capability: str, ops: dict[tuple[str, str], AgentTool], calls_max: int) -> str:
    mine = sorted((op, tool) for (cap, op), tool in ops.items() if cap == capability)
    if not mine:
        return f"Nothing of '{capability}' can be called from this sandbox in this run."
    width = max(len(op) for op, _ in mine)
    lines = [
        f"mika {capability} <op> '<json args>' — the run's {capability} tools "
        f"(arguments as for the tool; at most {calls_max} calls per command):"
    ]
    for op, tool in mine:
        names = ", ".join(tool.parameters.get("properties", {})) or "none"
        lines.append(f"  {op.ljust(width)}  {tool.name}  args: {names}")
    return "\n".join(lines)


def _unknown(request: Request, ctx: ToolContext, ops: dict[tuple[str, str], AgentTool]) -> BadRequest:
    registry = ctx.tools
    known = registry.tools if registry is not None else ()
    for tool in known:
        if tool.capability == request.capability and request.op in (tool.sandbox_op(), tool.name):
            return BadRequest(
                "not_callable", f"{tool.name} can't be called from the sandbox; the model calls it directly"
            )
    offered = ", ".join(sorted(op for cap, op in ops if cap == request.capability)) or "none"
    return BadRequest("unknown_op", f"no op '{request.op}' for 'mika {request.capability}' in this run; ops: {offered}")
