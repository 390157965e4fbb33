"""Which phones the adb server has, and picking the one a run uses."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import adbutils

from mika.cap.phone.adb.copy import say


class DeviceChoiceError(Exception):
    """No phone, several phones, or not the one asked for; the message says what to do."""

    code = "device_choice"


class NoDevice(DeviceChoiceError):
    def __init__(self) -> None:
        super().__init__(say("no_device"))


class SeveralDevices(DeviceChoiceError):
    def __init__(self, serials: list[str]) -> None:
        self.serials = tuple(serials)
        super().__init__(say("several", count=len(serials), serials=", ".join(serials)))


class DeviceNotFound(DeviceChoiceError):
    def __init__(self, wanted: str, serials: list[str]) -> None:
        self.wanted = wanted
        listed = ", ".join(serials) if serials else say("none_attached")
        super().__init__(say("not_found", wanted=wanted, listed=listed))


class DeviceNotReady(DeviceChoiceError):
    def __init__(self, serial: str, state: str) -> None:
        hint = say({"unauthorized": "hint_unauthorized", "offline": "hint_offline"}.get(state, "hint_other"))
        super().__init__(say("not_ready", serial=serial, state=state, hint=hint))


@dataclass(frozen=True)
class DeviceRow:
    serial: str
    state: str
    transport: str  # usb | tcp | tls
    model: str = ""
    release: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def transport_of(serial: str) -> str:
    """adb names wireless-debugging devices by their mDNS instance, `adb connect` ones HOST:PORT."""
    if "._adb-tls-connect." in serial or (serial.startswith("adb-") and "._tcp" in serial):
        return "tls"
    host, _, port = serial.rpartition(":")
    if host and port.isdigit():
        return "tcp"
    return "usb"


def list_devices(client: adbutils.AdbClient, *, details: bool = True) -> list[DeviceRow]:
    rows = []
    for info in client.list():
        model = release = ""
        if details and info.state == "device":
            try:
                dev = client.device(info.serial)
                model = dev.shell("getprop ro.product.model", timeout=5).strip()
                release = dev.shell("getprop ro.build.version.release", timeout=5).strip()
            except (adbutils.AdbError, OSError):
                pass  # listed without details; the state already tells the story
        rows.append(DeviceRow(info.serial, info.state, transport_of(info.serial), model, release))
    return rows


def pick_serial(client: adbutils.AdbClient, wanted: str | None) -> str:
    """The serial to use: `wanted` if attached and ready, else the only ready phone."""
    rows = list_devices(client, details=False)
    serials = [r.serial for r in rows]
    if wanted:
        for r in rows:
            if r.serial == wanted:
                if r.state != "device":
                    raise DeviceNotReady(r.serial, r.state)
                return r.serial
        raise DeviceNotFound(wanted, serials)
    ready = [r for r in rows if r.state == "device"]
    if not ready:
        if rows:
            raise DeviceNotReady(rows[0].serial, rows[0].state)
        raise NoDevice()
    if len(ready) > 1:
        raise SeveralDevices([r.serial for r in ready])
    return ready[0].serial
