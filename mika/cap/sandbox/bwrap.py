"""The sandbox over bubblewrap (`bwrap`, Debian's package): one command, one namespace.

What a command sees: the system folders read-only (/usr and the merged-/usr links, the
few /etc files programs need to start), a passwd/group naming only itself, the workspace
read-write at /workspace (its working directory), its own /tmp, /proc, a minimal /dev. Not
the user's home, not Mika's state folder, not the host's other /etc files. Every namespace
is unshared (network too, unless `[sandbox] network = true`), every capability dropped,
the command is in a session of its own (no TIOCSTI into Mika's terminal) and dies with
Mika. The environment is clean: a fixed PATH, HOME=/tmp, LANG=C.UTF-8, plus what the
caller adds for this one command.

Limits: the wall-clock timeout kills the whole namespace; RLIMIT_CPU, set in the child
before bwrap starts, caps each process's CPU time (the run's remaining budget). The CPU
time used comes from the kernel: bwrap runs the command under a small /bin/sh as the
namespace's pid 1 (`--as-pid-1`), which reaps it, so `wait4` on bwrap reports the
command's and its children's time (bwrap's own init would not pass it up). Each stream's
output is read as it comes and capped (head and tail kept, the middle's size said), so a
command that prints forever neither fills memory nor blocks.
"""

from __future__ import annotations

import asyncio
import glob
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mika.cap.sandbox.port import (
    OUTPUT_HEAD,
    OUTPUT_TAIL,
    PATH_INSIDE,
    TIMEOUT_DEFAULT,
    TIMEOUT_MAX,
    Bind,
    CommandResult,
    SandboxError,
    SandboxUnavailable,
    Stream,
)

INSIDE_WORKSPACE = "/workspace"
# The merged-/usr top-level folders: a link on the host is the same link inside, a real
# folder is bound read-only.
_SYSTEM_TOP = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# /etc files a program needs to start, find its libraries, tell the time or name a type.
_ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/nsswitch.conf",
    "/etc/mime.types",
    "/etc/os-release",
    "/etc/debian_version",
    "/etc/protocols",
    "/etc/services",
)
_ETC_GLOBS = ("/etc/python3*",)
# Only when the network is allowed: name resolution and certificates.
_ETC_NET = ("/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates", "/etc/pki")
# Inside paths a caller's bind may not cover: the sandbox's own furniture.
_RESERVED = ("/workspace", "/proc", "/dev", "/tmp", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64")
# The wrapper that is the namespace's pid 1: it runs the command as its child (so RLIMIT_CPU
# signals reach it: a namespace's init ignores them) and reaps it (so its CPU time reaches
# wait4). `exit $?` keeps dash from exec'ing the command in its place.
_WRAPPER = ("/bin/sh", "-c", '"$@"; exit $?', "mika-sandbox")
_PROBE_TIMEOUT = 10.0


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def sandbox_problem(bwrap: str | None = None) -> str:
    """Why there is no sandbox here ("" when there is one): not Linux, no bwrap, or bwrap
    cannot make its namespaces (a container without user namespaces, a kernel that forbids
    them). Starts one `true` inside to find out; call once per process."""
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux (bubblewrap); on this system the sandbox tools are left out"
    path = bwrap or bwrap_path()
    if path is None:
        return "bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: apt install bubblewrap)"
    try:
        done = subprocess.run(
            [path, *_namespace_flags(network=False), *_system_binds(network=False), "--", "/bin/sh", "-c", "true"],
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not be started ({exc})"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap cannot make its sandbox here ({why[-1] if why else f'exit {done.returncode}'})"
    return ""


def _namespace_flags(*, network: bool) -> list[str]:
    flags = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--as-pid-1"]
    flags += ["--hostname", "mika-sandbox"]
    if network:
        flags.append("--share-net")
    return flags


def _system_binds(*, network: bool) -> list[str]:
    args: list[str] = []
    for top in _SYSTEM_TOP:
        p = Path(top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            args += ["--ro-bind", top, top]
    etc = list(_ETC) + sorted(x for g in _ETC_GLOBS for x in glob.glob(g))
    if network:
        etc += list(_ETC_NET)
    for item in etc:
        args += ["--ro-bind-try", item, item]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run", "--dir", "/opt"]
    return args


def check_bind(bind: Bind) -> Bind:
    """A caller's extra bind, checked: the host path exists, the inside path is absolute,
    plain and does not cover the sandbox's own folders."""
    inside = bind.inside
    pure = PurePosixPath(inside)
    if not pure.is_absolute() or ".." in pure.parts or str(pure) != inside or inside == "/":
        raise SandboxError(f"an extra bind must name a plain absolute path inside, not {inside!r}")
    for reserved in _RESERVED:
        if inside == reserved or inside.startswith(reserved + "/") or reserved.startswith(inside + "/"):
            raise SandboxError(f"an extra bind may not cover {reserved} (asked for {inside}); use /opt/… or /run/…")
    if not bind.host.exists():
        raise SandboxError(f"the extra bind's host path does not exist: {bind.host}")
    return bind


class _Capture(threading.Thread):
    """Reads one pipe to its end, keeping the first `head` and the last `tail` bytes."""

    def __init__(self, fd: int, head: int, tail: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.head_max, self.tail_max = fd, head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def run(self) -> None:
        try:
            while True:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                self.total += len(chunk)
                room = self.head_max - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self.tail += chunk
                    if len(self.tail) > self.tail_max:
                        del self.tail[: len(self.tail) - self.tail_max]
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def stream(self) -> Stream:
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return Stream((bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace"), self.total)
        # The cut is marked where it was made; the result's note says how much (Stream.cut_bytes).
        text = (
            bytes(self.head).decode("utf-8", "replace")
            + f"\n[… {cut} bytes cut …]\n"
            + bytes(self.tail).decode("utf-8", "replace")
        )
        return Stream(text, self.total, cut)


def _identity_files() -> tuple[bytes, bytes]:
    """A passwd and group that name only the sandbox's user (the host's own list of
    accounts is not shown; some programs want a name for their uid)."""
    uid, gid = os.getuid(), os.getgid()
    passwd = f"sandbox:x:{uid}:{gid}:Mika sandbox:/tmp:/bin/sh\n".encode()
    group = f"sandbox:x:{gid}:\n".encode()
    return passwd, group


def _data_fd(data: bytes) -> int:
    """A pipe's read end holding `data` (small: it fits the pipe's buffer), for --ro-bind-data."""
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r


class BwrapSandbox:
    """SandboxPort over bubblewrap. `network` is the user's `[sandbox] network`: fixed for
    the process, no argument of a run can change it."""

    def __init__(self, *, network: bool = False, bwrap: str | None = None) -> None:
        path = bwrap or bwrap_path()
        if path is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
        self._bwrap = path
        self._network = bool(network)

    @property
    def network(self) -> bool:
        return self._network

    def argv(
        self,
        command: str | Sequence[str],
        workspace: Path,
        binds: Sequence[Bind],
        env: Mapping[str, str],
        fds: Sequence[int],
    ) -> list[str]:
        """The bwrap command line (fds: the passwd and group pipes)."""
        args = [self._bwrap, *_namespace_flags(network=self._network), *_system_binds(network=self._network)]
        args += ["--ro-bind-data", str(fds[0]), "/etc/passwd", "--ro-bind-data", str(fds[1]), "/etc/group"]
        args += ["--bind", str(workspace), INSIDE_WORKSPACE, "--chdir", INSIDE_WORKSPACE]
        for b in binds:
            args += ["--ro-bind", str(b.host), b.inside]
        args.append("--clearenv")
        for key, value in env.items():
            args += ["--setenv", key, value]
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        return [*args, "--", *_WRAPPER, *argv]

    @staticmethod
    def environment(extra: Mapping[str, str] | None) -> dict[str, str]:
        env = {
            "PATH": PATH_INSIDE,
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "USER": "sandbox",
            "LOGNAME": "sandbox",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "dumb",
            "PWD": INSIDE_WORKSPACE,
        }
        for key, value in (extra or {}).items():
            if not key or "=" in key or "\0" in key or "\0" in str(value):
                raise SandboxError(f"not an environment variable name or value: {key!r}")
            env[key] = str(value)
        return env

    async def run(
        self,
        command: str | Sequence[str],
        *,
        workspace: Path,
        extra_ro_binds: Sequence[Bind | tuple[Path | str, str]] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = TIMEOUT_DEFAULT,
        cpu_seconds: float | None = None,
        stdin: bytes | None = None,
    ) -> CommandResult:
        # Checking the paths and forking bwrap block briefly: done off the event loop.
        loop = asyncio.get_running_loop()
        started = await loop.run_in_executor(
            None, self._start, command, workspace, list(extra_ro_binds), env, cpu_seconds, stdin
        )
        return await self._finish(started, max(0.1, min(float(timeout), TIMEOUT_MAX)))

    def _start(
        self,
        command: str | Sequence[str],
        workspace: Path,
        extra_ro_binds: list[Bind | tuple[Path | str, str]],
        env: Mapping[str, str] | None,
        cpu_seconds: float | None,
        stdin: bytes | None,
    ) -> _Started:
        if isinstance(command, str) and "\0" in command:
            raise SandboxError("the command contains a NUL byte")
        if workspace.is_symlink() or not workspace.is_dir():
            raise SandboxError(f"the workspace is not a folder: {workspace}")
        binds = [check_bind(b if isinstance(b, Bind) else Bind(Path(b[0]), b[1])) for b in extra_ro_binds]
        environment = self.environment(env)
        limit = None if cpu_seconds is None else max(1, int(cpu_seconds + 0.999))

        def limits() -> None:  # in the child, before exec: inherited by bwrap and the command
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))

        fds = [_data_fd(data) for data in _identity_files()]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            argv = self.argv(command, workspace.resolve(), binds, environment, fds)
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                pass_fds=tuple(fds),
                start_new_session=True,  # its own process group: killed whole at the timeout
                preexec_fn=limits,
                close_fds=True,
            )
        except OSError as exc:
            os.close(out_r)
            os.close(err_r)
            raise SandboxError(f"bubblewrap could not be started: {exc}") from None
        finally:
            for fd in (*fds, out_w, err_w):
                os.close(fd)
        captures = (_Capture(out_r, OUTPUT_HEAD, OUTPUT_TAIL), _Capture(err_r, OUTPUT_HEAD, OUTPUT_TAIL))
        for c in captures:
            c.start()
        if stdin is not None and proc.stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
        return _Started(proc, captures, limit, time.monotonic())

    async def _finish(self, started: _Started, timeout: float) -> CommandResult:
        proc, captures, limit = started.proc, started.captures, started.limit
        loop = asyncio.get_running_loop()
        waited = _wait4_in_thread(loop, proc.pid)
        timed_out = False
        try:
            _, status, usage = await asyncio.wait_for(asyncio.shield(waited), timeout)
        except TimeoutError:
            timed_out = True
            _kill(proc.pid)
            _, status, usage = await waited
        except asyncio.CancelledError:
            _kill(proc.pid)  # the run was stopped: nothing of the command outlives it
            await asyncio.shield(waited)
            raise
        finally:
            proc.returncode = -1  # reaped by wait4 above; Popen must not wait for it again
        wall = time.monotonic() - started.at
        for c in captures:
            await loop.run_in_executor(None, c.join, 5.0)
        code = os.waitstatus_to_exitcode(status)
        sig = -code if code < 0 else (code - 128 if 128 < code < 128 + 65 else None)
        cpu = usage.ru_utime + usage.ru_stime
        if timed_out:
            cpu = max(cpu, wall)  # the killed processes' time is not reported: charge the wall time
        cpu_limited = (
            limit is not None and not timed_out and sig in (signal.SIGXCPU, signal.SIGKILL) and cpu >= limit - 0.05
        )
        return CommandResult(
            exit_code=None if timed_out or cpu_limited else (code if code >= 0 else None),
            stdout=captures[0].stream(),
            stderr=captures[1].stream(),
            wall_seconds=wall,
            cpu_seconds=cpu,
            timed_out=timed_out,
            cpu_limited=cpu_limited,
            signal=sig,
        )


@dataclass(frozen=True)
class _Started:
    proc: subprocess.Popen[bytes]
    captures: tuple[_Capture, _Capture]
    limit: int | None
    at: float


def _wait4_in_thread(
    loop: asyncio.AbstractEventLoop, pid: int
) -> asyncio.Future[tuple[int, int, resource.struct_rusage]]:
    """wait4 (which gives the rusage asyncio's child watchers drop) on a thread of its own:
    a long command must not hold one of the default executor's few threads."""
    future: asyncio.Future[tuple[int, int, resource.struct_rusage]] = loop.create_future()

    def settle(value: tuple[int, int, resource.struct_rusage]) -> None:
        if not future.done():
            future.set_result(value)

    def wait() -> None:
        value = os.wait4(pid, 0)
        try:
            loop.call_soon_threadsafe(settle, value)
        except RuntimeError:
            pass  # the loop closed meanwhile; bwrap was reaped all the same

    threading.Thread(target=wait, name=f"sandbox-wait-{pid}", daemon=True).start()
    return future


def _feed(pipe: object, data: bytes) -> None:
    try:
        pipe.write(data)  # type: ignore[attr-defined]
        pipe.close()  # type: ignore[attr-defined]
    except OSError:
        pass  # the command did not read it all


def _kill(pid: int) -> None:
    """bwrap and its process group; --die-with-parent takes the namespace with it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
