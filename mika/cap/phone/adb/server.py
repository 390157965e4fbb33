"""Finding the adb server the way adb itself does, and starting adbutils' bundled one.

ADB_SERVER_SOCKET (tcp:[HOST:]PORT) wins, then ANDROID_ADB_SERVER_HOST /
ANDROID_ADB_SERVER_PORT, then 127.0.0.1:5037. A server that already runs is used as is;
when none answers on this machine, the adb binary shipped inside adbutils is started.
"""

from __future__ import annotations

import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import adbutils

from mika.cap.phone.adb.copy import say

DEFAULT_PORT = 5037


class AdbServerError(Exception):
    """The adb server can't be reached or started; the message says what to do."""


@dataclass(frozen=True)
class ServerAddress:
    host: str
    port: int

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> ServerAddress:
        env = dict(os.environ) if env is None else env
        spec = env.get("ADB_SERVER_SOCKET", "").strip()
        if spec:
            kind, _, rest = spec.partition(":")
            host, _, port = rest.rpartition(":")
            if kind != "tcp" or not port.isdigit():
                raise AdbServerError(say("bad_server_socket", spec=spec))
            return cls(host or "127.0.0.1", int(port))
        port_text = env.get("ANDROID_ADB_SERVER_PORT", "").strip()
        if port_text and not port_text.isdigit():
            raise AdbServerError(say("bad_server_port", port=port_text))
        host = env.get("ANDROID_ADB_SERVER_HOST", "").strip() or "127.0.0.1"
        return cls(host, int(port_text) if port_text else DEFAULT_PORT)

    @property
    def is_local(self) -> bool:
        return self.host in ("127.0.0.1", "localhost", "::1")

    def is_listening(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False


def bundled_adb() -> str:
    exe = Path(adbutils.__file__).parent / "binaries" / ("adb.exe" if os.name == "nt" else "adb")
    if exe.is_file():
        return str(exe)
    try:
        return adbutils.adb_path()
    except adbutils.AdbError:
        raise AdbServerError(say("no_adb")) from None


def adb_client(address: ServerAddress | None = None, *, start: bool = True) -> adbutils.AdbClient:
    """A client of the running adb server, starting the bundled one when none runs here."""
    address = address or ServerAddress.from_env()
    if not address.is_listening():
        if not start or not address.is_local:
            raise AdbServerError(say("no_server", host=address.host, port=address.port))
        exe = bundled_adb()
        try:
            subprocess.run(
                [exe, "-P", str(address.port), "start-server"],
                check=True,
                capture_output=True,
                timeout=30,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip()
            raise AdbServerError(say("server_start_failed", port=address.port, exe=exe, detail=detail or exc)) from None
    return adbutils.AdbClient(host=address.host, port=address.port)
