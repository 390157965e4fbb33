"""`mika devices`, `mika connect`, `mika disconnect`, `mika pair` — click commands.

stdout carries data only; diagnostics and errors go to stderr with exit code 3 (device).
The ADB layer (adbutils, requests, Pillow) is imported inside each command, so that
`mika --help` stays cheap.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal

if TYPE_CHECKING:
    import adbutils

QR_WAIT_S = 120.0


def _fail(message: str) -> None:
    echo(f"mika: {message}", err=True)
    sys.exit(int(ExitCode.DEVICE))


def _client() -> adbutils.AdbClient:
    from mika.cap.phone.adb.server import AdbServerError, adb_client

    try:
        return adb_client()
    except AdbServerError as exc:
        _fail(str(exc))
        raise  # unreachable: _fail exits


@click.command("devices")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of devices.")
def devices_command(as_json: bool) -> None:
    """Phones the adb server sees: serial, model, Android version, transport, state."""
    import adbutils

    from mika.cap.phone.adb.copy import say
    from mika.cap.phone.adb.devices import list_devices

    try:
        rows = list_devices(_client())
    except (adbutils.AdbError, OSError) as exc:
        _fail(say("server_no_answer", error=exc))
        return
    if as_json:
        echo(json_for_terminal([r.as_dict() for r in rows]))
        return
    if not rows:
        echo(say("no_devices_listed"), err=True)
        return
    for r in rows:
        echo("\t".join([r.serial, r.model or "-", f"Android {r.release}" if r.release else "-", r.transport, r.state]))


@click.command("connect")
@click.argument("address")
def connect_command(address: str) -> None:
    """Connect to a phone over Wi-Fi: HOST:PORT (from its wireless debugging page)."""
    import adbutils

    from mika.cap.phone.adb.copy import say
    from mika.cap.phone.adb.pairing import PairingError, check_address

    try:
        address = check_address(address)
        answer = _client().connect(address, timeout=15)
    except PairingError as exc:
        _fail(str(exc))
        return
    except (adbutils.AdbError, OSError) as exc:
        _fail(say("connect_failed", address=address, error=exc))
        return
    if "connected to" not in answer:
        _fail(say("connect_pair_first", address=address, answer=answer.strip()))
    echo(answer.strip())


@click.command("disconnect")
@click.argument("address", required=False)
def disconnect_command(address: str | None) -> None:
    """Disconnect one Wi-Fi phone (HOST:PORT), or all of them."""
    import adbutils

    from mika.cap.phone.adb.copy import say
    from mika.cap.phone.adb.devices import list_devices
    from mika.cap.phone.adb.pairing import PairingError, check_address

    client = _client()
    try:
        if address:
            answer = client.disconnect(check_address(address), raise_error=True)
        else:
            answer = ""
            for row in list_devices(client, details=False):
                if row.transport != "usb":
                    answer += client.disconnect(row.serial) + "\n"
    except PairingError as exc:
        _fail(str(exc))
        return
    except (adbutils.AdbError, OSError) as exc:
        _fail(say("disconnect_failed", error=exc))
        return
    echo(answer.strip() or say("none_connected"))


@click.command("pair")
@click.argument("address", required=False)
@click.argument("code", required=False)
@click.option("--qr", is_flag=True, help="Show a QR code to scan on the phone instead of typing a code.")
def pair_command(address: str | None, code: str | None, qr: bool) -> None:
    """Pair with a phone's wireless debugging: HOST:PORT CODE, or --qr."""
    from mika.cap.phone.adb.copy import say
    from mika.cap.phone.adb.pairing import (
        PairingError,
        check_address,
        normalise_code,
        pair,
    )

    if qr:
        _pair_qr()
        return
    if not address or not code:
        _fail(say("pair_usage"))
        return
    try:
        address = check_address(address)
        digits = normalise_code(code)  # checked before anything is tried
        echo(pair(_client(), address, digits))
    except PairingError as exc:
        _fail(str(exc))


def _pair_qr() -> None:
    import adbutils

    from mika.cap.phone.adb.copy import say
    from mika.cap.phone.adb.pairing import (
        CONNECT,
        PAIRING,
        PairingError,
        mdns_services,
        new_qr_identity,
        pair,
        qr_payload,
        qr_text,
    )

    client = _client()
    name, password = new_qr_identity()
    echo(qr_text(qr_payload(name, password)), err=True)
    echo(say("qr_scan"), err=True)
    deadline = time.monotonic() + QR_WAIT_S
    found = None
    try:
        while time.monotonic() < deadline and found is None:
            found = next((s for s in mdns_services(client) if s.kind == PAIRING and s.name == name), None)
            if found is None:
                time.sleep(1.0)
        if found is None:
            _fail(say("qr_timeout", seconds=QR_WAIT_S))
            return
        echo(pair(client, found.address, password), err=True)
        host = found.address.rsplit(":", 1)[0]
        while time.monotonic() < deadline:
            ready = [s for s in mdns_services(client) if s.kind == CONNECT and s.address.startswith(host + ":")]
            if ready:
                echo(client.connect(ready[0].address, timeout=15).strip())
                return
            time.sleep(1.0)
        _fail(say("qr_no_connect"))
    except PairingError as exc:
        _fail(str(exc))
    except (adbutils.AdbError, OSError) as exc:
        _fail(say("pair_server_failed", error=exc))
