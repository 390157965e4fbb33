"""The device operations a face offers its user (the TUI's Devices screen): list, connect,
pair with a code or a QR code. All of it is the phone layer's (`mika.cap.phone.adb`:
devices, the adb server's `host:pair` and `host:mdns:services`, the QR payload); this
only joins them into one blocking interface and adds whether uiautomator2 is on a phone.
Faces call it from worker threads.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Protocol

U2_PACKAGE = "com.github.uiautomator"


class DeviceOpError(Exception):
    """One readable line: what failed and what to try."""


@dataclass(frozen=True)
class DeviceStatus:
    serial: str
    state: str
    model: str = ""
    transport: str = ""  # usb | tcp | tls
    u2: str = "unknown"  # running | installed | absent | unknown


@dataclass(frozen=True)
class PairingService:
    name: str
    address: str  # HOST:PORT


class DevicesPort(Protocol):
    def list(self) -> builtins.list[DeviceStatus]: ...
    def connect(self, hostport: str) -> str: ...
    def pair(self, hostport: str, code: str) -> str: ...
    def pairing_services(self) -> builtins.list[PairingService]: ...


class AdbDevices:
    """DevicesPort over the adb server the phone layer finds (or starts)."""

    def __init__(self, timeout: float = 15.0) -> None:
        self.timeout = timeout

    def _client(self):
        from mika.cap.phone.adb.server import AdbServerError, adb_client

        try:
            return adb_client()
        except AdbServerError as exc:
            raise DeviceOpError(str(exc)) from None

    def list(self) -> list[DeviceStatus]:
        import adbutils

        from mika.cap.phone.adb.devices import list_devices

        client = self._client()
        try:
            rows = list_devices(client)
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"the adb server did not answer: {exc}") from None
        return [
            DeviceStatus(
                r.serial,
                r.state,
                r.model,
                r.transport,
                _u2_state(client, r.serial) if r.state == "device" else "unknown",
            )
            for r in rows
        ]

    def packages(self, serial: str) -> tuple[str, ...]:
        """The packages the phone reports (`pm list packages`): what the idle chat's
        examples are fitted to."""
        import adbutils

        from mika.cap.phone.adb.parse.packages import parse_packages

        try:
            return parse_packages(self._client().device(serial).shell("pm list packages", timeout=10))
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"the phone {serial} did not list its apps: {exc}") from None

    def connect(self, hostport: str) -> str:
        import adbutils

        from mika.cap.phone.adb.pairing import PairingError, check_address

        try:
            address = check_address(hostport)
        except PairingError as exc:
            raise DeviceOpError(str(exc)) from None
        try:
            answer = self._client().connect(address, timeout=self.timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"could not connect {address}: {exc}") from None
        if "connected to" not in answer:
            # adb answers "failed to connect …" / "cannot connect …" with an OKAY status.
            raise DeviceOpError(answer.strip() or f"could not connect {address}")
        return answer

    def pair(self, hostport: str, code: str) -> str:
        from mika.cap.phone.adb.pairing import PairingError, check_address, normalise_code, pair

        try:
            return pair(self._client(), check_address(hostport), normalise_code(code))
        except PairingError as exc:
            raise DeviceOpError(str(exc)) from None

    def pairing_services(self) -> builtins.list[PairingService]:
        import adbutils

        from mika.cap.phone.adb.pairing import PAIRING, mdns_services

        try:
            found = mdns_services(self._client())
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceOpError(f"the adb server's mDNS discovery did not answer: {exc}") from None
        return [PairingService(s.name, s.address) for s in found if s.kind == PAIRING]


def _u2_state(client, serial: str) -> str:
    import adbutils

    try:
        dev = client.device(serial)
        if dev.shell(f"pidof {U2_PACKAGE}", timeout=5).strip():
            return "running"
        listed = dev.shell(f"pm list packages {U2_PACKAGE}", timeout=5)
        return "installed" if U2_PACKAGE in listed else "absent"
    except (adbutils.AdbError, OSError):
        return "unknown"
