"""The adb server on the host, as the simulated phone's launcher needs it.

The simulated phone is a device, not a part of Mika, so it does not borrow the phone
capability's code for this; it reads adb's own conventions itself:
`ADB_SERVER_SOCKET=tcp:[HOST:]PORT` first, then `ANDROID_ADB_SERVER_HOST` and
`ANDROID_ADB_SERVER_PORT`, then 127.0.0.1:5037. When no server answers on this machine,
the adb binary that ships inside adbutils is started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import adbutils

ADB_DEFAULT_PORT = 5037
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class AdbHostError(Exception):
    """The adb server's address is unreadable or the server cannot be started."""


def _port(text: str, source: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise AdbHostError(f"{source} is not a port number (1-65535); fix or unset it.")
    return int(text)


@dataclass(frozen=True)
class AdbServerAddress:
    host: str
    port: int

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AdbServerAddress:
        env = os.environ if env is None else env
        socket_spec = env.get("ADB_SERVER_SOCKET", "").strip()
        if socket_spec:
            scheme, _, where = socket_spec.partition(":")
            host, _, port = where.rpartition(":")
            if scheme != "tcp" or not port:
                raise AdbHostError(
                    f"ADB_SERVER_SOCKET={socket_spec!r} is not tcp:PORT or tcp:HOST:PORT; fix or unset it."
                )
            return cls(host or "127.0.0.1", _port(port, f"ADB_SERVER_SOCKET={socket_spec!r}"))
        port = env.get("ANDROID_ADB_SERVER_PORT", "").strip()
        host = env.get("ANDROID_ADB_SERVER_HOST", "").strip() or "127.0.0.1"
        return cls(host, _port(port, f"ANDROID_ADB_SERVER_PORT={port!r}") if port else ADB_DEFAULT_PORT)

    @property
    def on_this_machine(self) -> bool:
        return self.host in _LOOPBACK

    def is_listening(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False


def bundled_adb() -> str:
    """adbutils' own adb binary, else an adb on PATH."""
    name = "adb.exe" if os.name == "nt" else "adb"
    shipped = Path(adbutils.__file__).parent / "binaries" / name
    if shipped.is_file():
        return str(shipped)
    found = shutil.which(name)
    if found:
        return found
    raise AdbHostError(
        "no adb binary: adbutils ships none for this platform and none is on PATH; install Android platform-tools."
    )


def start_adb_server(address: AdbServerAddress, adb_binary: str | None = None) -> None:
    """Make sure a server answers at `address`, starting one here when it is local."""
    if address.is_listening():
        return
    if adb_binary is None:
        if not address.on_this_machine:
            raise AdbHostError(
                f"no adb server answers at {address.host}:{address.port}; start it there "
                "(adb start-server) or unset ANDROID_ADB_SERVER_HOST / ADB_SERVER_SOCKET."
            )
        adb_binary = bundled_adb()
    try:
        subprocess.run(
            [adb_binary, "-P", str(address.port), "start-server"],
            check=True,
            capture_output=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        said = (getattr(exc, "stderr", None) or b"").decode(errors="replace").strip()
        raise AdbHostError(
            f"could not start the adb server on port {address.port} with {adb_binary}: {said or exc}"
        ) from None
