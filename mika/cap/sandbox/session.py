"""One run's sandbox: its port, its conversation's workspace, its guard, and the extras each
command gets.

`extras` is the hook for what another part of the run adds to every command: a provider is
an async context manager factory entered around each command; what it yields (read-only
binds, environment variables) is added to that command only, and leaving it cleans up
(the phone bridge opens its per-command socket and one-time token there and closes them
after). Providers are given to the capability (`SandboxCapability(extras=…)`) or added
later with `add_extras`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path

from mika.cap.sandbox.bridge import CLIENT_DIR
from mika.cap.sandbox.bridge.protocol import BIN_INSIDE
from mika.cap.sandbox.guard import SandboxGuard
from mika.cap.sandbox.port import PATH_INSIDE, TIMEOUT_DEFAULT, Bind, CommandResult, Extras, SandboxPort
from mika.cap.sandbox.workspace import Workspace
from mika.config.paths import downloads_dir
from mika.tool.context import ToolContext

ExtrasProvider = Callable[[ToolContext | None], AbstractAsyncContextManager[Extras]]


class SandboxSession:
    def __init__(
        self,
        port: SandboxPort,
        workspace: Workspace,
        guard: SandboxGuard,
        extras: Sequence[ExtrasProvider] = (),
        share_dir: Path | None = None,
    ) -> None:
        self.port = port
        self.workspace = workspace
        self.guard = guard
        self._extras = list(extras)
        # Where share_file puts what it gives the user (the downloads folder's Mika/).
        self.share_dir = share_dir if share_dir is not None else downloads_dir()

    def add_extras(self, provider: ExtrasProvider) -> None:
        self._extras.append(provider)

    async def run(
        self,
        command: str | Sequence[str],
        *,
        ctx: ToolContext | None = None,
        timeout: float = TIMEOUT_DEFAULT,
        extra_ro_binds: Sequence[Bind] = (),
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
    ) -> CommandResult:
        """Run one command in the workspace with the run's remaining CPU time as its limit
        and every extras provider's binds and variables; its CPU time is charged to the
        guard. The caller checks `guard.refusal` first (the repeat rule is the caller's)."""
        root: Path = self.workspace.ensure()
        # The `mika` client is in every command, bridge or not: without one it says that
        # this run has nothing to call, rather than the shell's "not found".
        binds = [Bind(CLIENT_DIR, BIN_INSIDE), *extra_ro_binds]
        variables = {"PATH": f"{BIN_INSIDE}:{PATH_INSIDE}", **(env or {})}
        async with AsyncExitStack() as stack:
            for provider in self._extras:
                extra = await stack.enter_async_context(provider(ctx))
                binds.extend(extra.ro_binds)
                variables.update(extra.env)
            result = await self.port.run(
                command,
                workspace=root,
                extra_ro_binds=binds,
                env=variables,
                timeout=timeout,
                cpu_seconds=self.guard.remaining,
                stdin=stdin,
            )
        self.guard.charge(result)
        return result
