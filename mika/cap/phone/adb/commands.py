"""`mika devices`, `mika connect`, `mika disconnect`, `mika pair` — click commands.

stdout carries data only; diagnostics and errors go to stderr with exit code 3 (device).
"""

from __future__ import annotations

import json
import sys
import time

import adbutils
import click

from mika.cap.phone.adb.devices import list_devices
from mika.cap.phone.adb.pairing import (
    CONNECT,
    PAIRING,
    PairingError,
    check_address,
    mdns_services,
    new_qr_identity,
    normalise_code,
    pair,
    qr_payload,
    qr_text,
)
from mika.cap.phone.adb.server import AdbServerError, adb_client
from mika.exit_codes import ExitCode

QR_WAIT_S = 120.0


def _fail(message: str) -> None:
    click.echo(f"mika: {message}", err=True)
    sys.exit(int(ExitCode.DEVICE))


def _client() -> adbutils.AdbClient:
    try:
        return adb_client()
    except AdbServerError as exc:
        _fail(str(exc))
        raise  # unreachable: _fail exits


@click.command("devices")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of devices.")
def devices_command(as_json: bool) -> None:
    """Phones the adb server sees: serial, model, Android version, transport, state."""
    try:
        rows = list_devices(_client())
    except (adbutils.AdbError, OSError) as exc:
        _fail(f"The adb server did not answer: {exc}")
        return
    if as_json:
        click.echo(json.dumps([r.as_dict() for r in rows], ensure_ascii=False))
        return
    if not rows:
        click.echo("No phones attached. Plug one in with USB debugging on, or use `mika connect` / `mika pair`.", err=True)
        return
    for r in rows:
        click.echo("\t".join([r.serial, r.model or "-", f"Android {r.release}" if r.release else "-", r.transport, r.state]))


@click.command("connect")
@click.argument("address")
def connect_command(address: str) -> None:
    """Connect to a phone over Wi-Fi: HOST:PORT (from its wireless debugging page)."""
    try:
        address = check_address(address)
        answer = _client().connect(address, timeout=15)
    except PairingError as exc:
        _fail(str(exc))
        return
    except (adbutils.AdbError, OSError) as exc:
        _fail(f"Could not connect to {address}: {exc}")
        return
    if "connected to" not in answer:
        _fail(f"Could not connect to {address}: {answer.strip()}. Pair it first with `mika pair HOST:PORT CODE`.")
    click.echo(answer.strip())


@click.command("disconnect")
@click.argument("address", required=False)
def disconnect_command(address: str | None) -> None:
    """Disconnect one Wi-Fi phone (HOST:PORT), or all of them."""
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
        _fail(f"Could not disconnect: {exc}")
        return
    click.echo(answer.strip() or "No Wi-Fi phones were connected.")


@click.command("pair")
@click.argument("address", required=False)
@click.argument("code", required=False)
@click.option("--qr", is_flag=True, help="Show a QR code to scan on the phone instead of typing a code.")
def pair_command(address: str | None, code: str | None, qr: bool) -> None:
    """Pair with a phone's wireless debugging: HOST:PORT CODE, or --qr."""
    if qr:
        _pair_qr()
        return
    if not address or not code:
        _fail("Give HOST:PORT and the 6-digit code from \"Pair device with pairing code\", or use --qr.")
        return
    try:
        address = check_address(address)
        digits = normalise_code(code)  # checked before anything is tried
        click.echo(pair(_client(), address, digits))
    except PairingError as exc:
        _fail(str(exc))


def _pair_qr() -> None:
    client = _client()
    name, password = new_qr_identity()
    click.echo(qr_text(qr_payload(name, password)), err=True)
    click.echo("On the phone: Developer options › Wireless debugging › Pair device with QR code, then scan this.",
               err=True)
    deadline = time.monotonic() + QR_WAIT_S
    found = None
    try:
        while time.monotonic() < deadline and found is None:
            found = next((s for s in mdns_services(client) if s.kind == PAIRING and s.name == name), None)
            if found is None:
                time.sleep(1.0)
        if found is None:
            _fail(f"The phone did not show up within {QR_WAIT_S:g} s. Check that both are on the same Wi-Fi "
                  "and that the network allows mDNS; or pair with `mika pair HOST:PORT CODE`.")
            return
        click.echo(pair(client, found.address, password), err=True)
        host = found.address.rsplit(":", 1)[0]
        while time.monotonic() < deadline:
            ready = [s for s in mdns_services(client) if s.kind == CONNECT and s.address.startswith(host + ":")]
            if ready:
                click.echo(client.connect(ready[0].address, timeout=15).strip())
                return
            time.sleep(1.0)
        _fail("Paired, but the phone did not offer a connection; use `mika connect HOST:PORT` with the port "
              "shown on its wireless debugging page.")
    except PairingError as exc:
        _fail(str(exc))
    except (adbutils.AdbError, OSError) as exc:
        _fail(f"The adb server failed during pairing: {exc}")
