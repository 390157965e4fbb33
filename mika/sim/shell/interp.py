"""Runs parsed shell lines: and-or lists, pipelines, redirections, `$?`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mika.sim.device import SimStream, StreamClosed
from mika.sim.shell import builtins as _builtins  # noqa: F401  (registers every command)
from mika.sim.shell.context import Ctx
from mika.sim.shell.parse import AndOr, Pipeline, ShellSyntaxError, Simple, expand, parse
from mika.sim.shell.registry import lookup
from mika.sim.stdio import Output

if TYPE_CHECKING:
    from mika.sim.world.phone_state import PhoneState

Sink = Callable[[bytes], Awaitable[None]]

SH = "/system/bin/sh"


class Shell:
    """One shell session: its variables and last exit code live across lines."""

    def __init__(self, phone: PhoneState, stream: SimStream | None = None, err_sink: Sink | None = None) -> None:
        self.phone = phone
        self.stream = stream
        # Where stderr goes: its own channel on a v2 shell, else with stdout (shell v1).
        self.err_sink = err_sink
        self.env: dict[str, str] = {
            "?": "0",
            "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin",
            "HOME": "/",
            "USER": "shell",
            "HOSTNAME": phone.world.props.get("ro.product.device", "sim"),
        }
        # The host's stdin for the line being run, once read (it can be read only once).
        self._host_input: bytes | None = None
        self._host_stdin = False

    async def run_command(self, line: str, sink: Sink) -> int:
        """Run the one command line a `shell:CMD` service names. Over a v2 shell the
        host's stdin (stdin packets up to close-stdin) is that line's input, as `echo hi |
        adb shell cat` expects; a v1 stream can't mark the end of stdin, so there a
        command reads none (real adb on v1 would hang)."""
        self._host_stdin = self.stream is not None and hasattr(self.stream, "stdin_done")
        try:
            return await self.run_line(line, sink)
        finally:
            self._host_stdin = False

    async def _read_host_stdin(self) -> bytes:
        if self._host_input is None:
            assert self.stream is not None
            pty = bool(getattr(self.stream, "pty", False))
            data = bytearray()
            while True:
                chunk = await self.stream.read()
                if not chunk:
                    break
                if pty:
                    # A terminal's line discipline: CR is newline, ^D ends the input.
                    chunk = chunk.replace(b"\r", b"\n")
                    end = chunk.find(b"\x04")
                    if end >= 0:
                        data += chunk[:end]
                        break
                data += chunk
            self._host_input = bytes(data)
            return self._host_input
        return b""  # already read to its end by an earlier command

    async def run_line(self, line: str, sink: Sink) -> int:
        try:
            lists = parse(line)
        except ShellSyntaxError as e:
            await (self.err_sink or sink)(f"{SH}: {e}\n".encode())
            self.env["?"] = "1"
            return 1
        code = int(self.env["?"])
        for item in lists:
            if item.background:
                asyncio.get_running_loop().create_task(self._and_or(item, None))
                code = 0
            else:
                code = await self._and_or(item, sink)
            self.env["?"] = str(code)
            if self.env.get("__exit__"):
                break
        return code

    async def _and_or(self, item: AndOr, sink: Sink | None) -> int:
        code = await self._pipeline(item.parts[0], sink)
        for op, part in zip(item.ops, item.parts[1:], strict=False):
            self.env["?"] = str(code)
            if (op == "&&" and code == 0) or (op == "||" and code != 0):
                code = await self._pipeline(part, sink)
        return code

    async def _pipeline(self, pipe: Pipeline, sink: Sink | None) -> int:
        stdin = b""
        code = 0
        last = len(pipe.commands) - 1
        for i, simple in enumerate(pipe.commands):
            out = Output(sink if i == last else None)
            # adbd's shell v1 sends stderr down the same stream as stdout; v2 apart.
            err = Output((self.err_sink or sink) if sink is not None else None)
            # Only the head of a foreground pipeline reads the host; a background job gets none.
            from_host = i == 0 and sink is not None and self._host_stdin
            code = await self._simple(simple, stdin, out, err, from_host=from_host)
            await err.flush()
            stdin = bytes(out.buf)
            await out.flush()
        return code

    async def _simple(self, simple: Simple, stdin: bytes, out: Output, err: Output, *, from_host: bool = False) -> int:
        env = dict(self.env)
        for name, value in simple.assigns:
            env[name] = expand(value, self.env)
        words = [expand(w, self.env) for w in simple.words]
        if not words:
            self.env.update({k: v for k, v in env.items() if k != "?"})
            return 0
        files = self.phone.files
        to_file: tuple[str, bool] | None = None
        for r in simple.redirects:
            target = expand(r.target, self.env)
            if r.op == "<":
                # /dev/null reads as nothing (adb's legacy install ends with `rm … </dev/null`).
                data = b"" if target == "/dev/null" else files.read(target)
                if data is None:
                    err.write(f"{SH}: can't open '{target}': No such file or directory\n")
                    return 1
                stdin = data
                from_host = False
            elif r.op == ">&" and r.fd == 2 and target == "1":
                err = out
            elif r.op == ">&" and r.fd == 1 and target == "2":
                out = err
            elif target == "/dev/null":
                (err if r.fd == 2 else out).discard = True
            elif r.fd == 1:
                to_file = (target, r.op == ">>")
                out.sink = None
        cmd = lookup(words[0])
        if cmd is None:
            err.write(f"{SH}: {words[0]}: inaccessible or not found\n")
            return 127
        ctx = Ctx(self.phone, words, stdin, out, err, env, self.stream)
        if from_host:
            ctx.host_stdin = self._read_host_stdin
        try:
            code = await cmd(ctx)
        except StreamClosed:
            raise
        except Exception as e:  # a bug in one simulated command must not kill the stream
            err.write(f"{words[0]}: simulator error: {type(e).__name__}: {e}\n")
            code = 1
        if words[0] == "exit":
            self.env["__exit__"] = "1"
        if words[0] == "export":
            self.env.update({k: v for k, v in ctx.env.items() if k != "?"})
        if to_file is not None:
            path, append = to_file
            old = (files.read(path) or b"") if append else b""
            files.put(path, old + bytes(out.buf))
            out.buf.clear()
        return code
