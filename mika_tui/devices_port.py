"""The device operations the Devices screen needs, over the adb server.

Blocking calls (the screen runs them in worker threads). Listing and connecting use
adbutils; pairing and mDNS discovery use the adb binary (`adb pair`, `adb mdns services`),
since the server's pairing service is only reachable through it.
"""

from __future__ import annotations

import builtins  # `list` is also a method name of the ports below
import re
import subprocess
from dataclasses import dataclass
from typing import Protocol

HOSTPORT = re.compile(r"^[A-Za-z0-9.\-:\[\]]+:\d{1,5}$")
CODE = re.compile(r"^\d{6}$")


class DeviceOpError(Exception):
    """One readable line: what failed and what to try."""


@dataclass(frozen=True)
class DeviceRow:
    serial: str
    state: str
    model: str = ""
    transport: str = ""  # usb | tcp
    u2: str = "unknown"  # running | installed | absent | unknown


@dataclass(frozen=True)
class PairingService:
    name: str
    address: str  # HOST:PORT


class DevicesPort(Protocol):
    def list(self) -> list[DeviceRow]: ...
    def connect(self, hostport: str) -> str: ...
    def pair(self, hostport: str, code: str) -> str: ...
    def pairing_services(self) -> builtins.list[PairingService]: ...


def transport_of(serial: str) -> str:
    return "tcp" if ":" in serial or "._adb-tls-connect" in serial else "usb"


class AdbDevicesPort:
    def __init__(self, adb_binary: str | None = None, timeout: float = 15.0) -> None:
        self.adb_binary = adb_binary
        self.timeout = timeout

    def _binary(self) -> str:
        if self.adb_binary:
            return self.adb_binary
        import adbutils

        return adbutils.adb_path()

    def list(self) -> list[DeviceRow]:
        import adbutils

        try:
            items = adbutils.adb.list(extended=True)
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"the adb server did not answer: {exc}") from None
        rows = []
        for item in items:
            model = (getattr(item, "tags", None) or {}).get("model", "") if hasattr(item, "tags") else ""
            u2 = self._u2_state(item.serial) if item.state == "device" else "unknown"
            rows.append(DeviceRow(item.serial, item.state, model, transport_of(item.serial), u2))
        return rows

    def _u2_state(self, serial: str) -> str:
        import adbutils

        try:
            dev = adbutils.adb.device(serial)
            if dev.shell("pidof com.github.uiautomator", timeout=5).strip():
                return "running"
            listed = dev.shell("pm list packages com.github.uiautomator", timeout=5)
            return "installed" if "com.github.uiautomator" in listed else "absent"
        except (adbutils.AdbError, OSError):
            return "unknown"

    def connect(self, hostport: str) -> str:
        import adbutils

        try:
            return adbutils.adb.connect(hostport, timeout=self.timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"could not connect {hostport}: {exc}") from None

    def _run(self, *args: str) -> str:
        try:
            done = subprocess.run([self._binary(), *args], capture_output=True, text=True, timeout=self.timeout,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            raise DeviceOpError(f"adb {' '.join(args[:1])} failed: {exc}") from None
        out = (done.stdout + done.stderr).strip()
        if done.returncode != 0:
            raise DeviceOpError(out or f"adb {args[0]} exited with {done.returncode}")
        return out

    def pair(self, hostport: str, code: str) -> str:
        out = self._run("pair", hostport, code)
        if "Successfully paired" not in out:
            raise DeviceOpError(out or "pairing failed; check the code and the address on the phone")
        return out

    def pairing_services(self) -> builtins.list[PairingService]:
        return parse_mdns(self._run("mdns", "services"))


def parse_mdns(text: str) -> list[PairingService]:
    """`adb mdns services` lines: NAME\t_adb-tls-pairing._tcp\tHOST:PORT."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].startswith("_adb-tls-pairing"):
            out.append(PairingService(parts[0], parts[2]))
    return out


def check_hostport(text: str) -> bool:
    return bool(HOSTPORT.match(text.strip()))


def check_code(text: str) -> bool:
    return bool(CODE.match(text.strip()))


def qr_payload(name: str, password: str) -> str:
    """What Android's "Pair device with QR code" scanner expects."""
    return f"WIFI:T:ADB;S:{name};P:{password};;"
