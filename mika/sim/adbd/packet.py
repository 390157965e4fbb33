"""ADB transport messages: a 24-byte little-endian header and an optional payload.

Facts from adb's protocol.md / adb.h: the header is six u32 words (command, arg0, arg1,
data_length, data_check, magic = command ^ 0xffffffff). From protocol version
0x01000001 (A_VERSION_SKIP_CHECKSUM) on, senders put 0 in data_check and receivers don't
verify it; the host's check_header() only checks the magic and the length.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass


def _cmd(name: bytes) -> int:
    return int.from_bytes(name, "little")


A_CNXN = _cmd(b"CNXN")
A_OPEN = _cmd(b"OPEN")
A_OKAY = _cmd(b"OKAY")
A_WRTE = _cmd(b"WRTE")
A_CLSE = _cmd(b"CLSE")
A_AUTH = _cmd(b"AUTH")
A_STLS = _cmd(b"STLS")
A_SYNC = _cmd(b"SYNC")

A_VERSION_MIN = 0x01000000
A_VERSION = 0x01000001  # == A_VERSION_SKIP_CHECKSUM
MAX_PAYLOAD = 256 * 1024  # what this adbd announces and accepts
MAX_PAYLOAD_V1 = 4 * 1024  # CNXN must fit this: it is sent before maxdata is known

_HEADER = struct.Struct("<6I")
HEADER_SIZE = _HEADER.size  # 24


class ProtocolError(Exception):
    """The host sent something that is not an ADB message; the transport must close."""


@dataclass(frozen=True, slots=True)
class Packet:
    command: int
    arg0: int
    arg1: int
    payload: bytes = b""

    @property
    def name(self) -> str:
        return self.command.to_bytes(4, "little").decode("ascii", "replace")

    def encode(self, *, checksum: bool = False) -> bytes:
        check = sum(self.payload) & 0xFFFFFFFF if checksum else 0
        header = _HEADER.pack(
            self.command,
            self.arg0,
            self.arg1,
            len(self.payload),
            check,
            self.command ^ 0xFFFFFFFF,
        )
        return header + self.payload


def decode_header(header: bytes, max_payload: int) -> tuple[int, int, int, int]:
    """(command, arg0, arg1, length) after the checks adb itself makes."""
    command, arg0, arg1, length, _check, magic = _HEADER.unpack(header)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic {magic:#010x} for command {command:#010x}")
    if length > max_payload:
        raise ProtocolError(f"payload of {length} bytes is over the {max_payload}-byte limit")
    return command, arg0, arg1, length


async def read_packet(reader: asyncio.StreamReader, max_payload: int) -> Packet:
    """Read one message; raises asyncio.IncompleteReadError at EOF, ProtocolError on garbage."""
    header = await reader.readexactly(HEADER_SIZE)
    command, arg0, arg1, length = decode_header(header, max_payload)
    payload = await reader.readexactly(length) if length else b""
    return Packet(command, arg0, arg1, payload)
