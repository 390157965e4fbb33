"""Wireless debugging: pairing codes, the QR text, and the adb server's pair/mdns services.

The server does the cryptography: `host:pair:CODE:HOST:PORT` pairs, and
`host:mdns:services` lists what it found on the network (`_adb-tls-pairing._tcp` for a
phone showing a pairing code or QR, `_adb-tls-connect._tcp` for one ready to connect).
"""

from __future__ import annotations

import re
import secrets
import string
import unicodedata
from dataclasses import dataclass

import adbutils

from mika.cap.phone.adb.copy import say

PAIRING = "_adb-tls-pairing._tcp"
CONNECT = "_adb-tls-connect._tcp"
_DASHES = re.compile(r"[\s\-‐-―−－_·.]+")
_HOSTPORT = re.compile(r"^\[?[A-Za-z0-9.:-]+\]?:\d{1,5}$")


class PairingError(Exception):
    """Pairing can't go on; the message says what to fix."""


def normalise_code(raw: str) -> str:
    """The 6-digit code from what a person typed: full-width digits, spaces and dashes allowed."""
    text = _DASHES.sub("", unicodedata.normalize("NFKC", raw or ""))
    if not text.isdigit() or len(text) != 6:
        raise PairingError(say("bad_code", raw=raw))
    return text


def check_address(address: str) -> str:
    address = unicodedata.normalize("NFKC", (address or "").strip())
    if not _HOSTPORT.match(address) or not 0 < int(address.rsplit(":", 1)[1]) < 65536:
        raise PairingError(say("bad_address", address=address))
    return address


def qr_payload(name: str, password: str) -> str:
    return f"WIFI:T:ADB;S:{name};P:{password};;"


def new_qr_identity() -> tuple[str, str]:
    name = "mika-" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(6))
    password = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(12))
    return name, password


def qr_text(payload: str) -> str:
    """The QR code as text for a terminal (half blocks), from the qrcode package."""
    import io

    import qrcode

    qr = qrcode.QRCode(border=2)
    qr.add_data(payload)
    qr.make(fit=True)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


@dataclass(frozen=True)
class MdnsService:
    name: str
    kind: str
    address: str


def parse_mdns(text: str) -> list[MdnsService]:
    out = []
    for line in text.splitlines():
        parts = [p for p in re.split(r"\t+|\s{2,}", line.strip()) if p]
        if len(parts) >= 3 and parts[1].startswith("_adb"):
            out.append(MdnsService(parts[0], parts[1].rstrip("."), parts[2]))
    return out


def _host_query(client: adbutils.AdbClient, service: str, timeout: float = 30.0) -> str:
    """A host service's answer; the pair service may send a second OKAY/FAIL status first."""
    with client.make_connection(timeout=timeout) as c:
        c.send_command(service)
        c.check_okay()
        head = c.read_string(4)
        if head in ("OKAY", "FAIL"):
            body = c.read_string_block()
            if head == "FAIL":
                raise adbutils.AdbError(body.strip() or "the adb server refused")
            return body
        return c.read_string(int(head, 16)) if all(ch in "0123456789abcdefABCDEF" for ch in head) else head


def mdns_services(client: adbutils.AdbClient) -> list[MdnsService]:
    return parse_mdns(_host_query(client, "host:mdns:services", timeout=10))


def pair(client: adbutils.AdbClient, address: str, code: str) -> str:
    """Pair through the adb server; returns its answer, raises PairingError on failure."""
    try:
        answer = _host_query(client, f"host:pair:{code}:{address}", timeout=60).strip()
    except adbutils.AdbError as exc:
        raise PairingError(say("pair_failed", address=address, error=exc)) from None
    if not answer.lower().startswith("successfully paired"):
        raise PairingError(say("pair_refused", address=address, answer=answer or "no answer"))
    return answer
