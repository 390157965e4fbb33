"""A hand-written ADB host for poking the adbd at the message level.

The real adb server is used everywhere it can be; this exists for what it can't show:
what exactly goes over the wire (flow control, packing of sync requests, refusals,
malformed headers).
"""

from __future__ import annotations

import socket
import struct

from mika.sim.adbd.packet import A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, HEADER_SIZE, Packet


class RawHost:
    def __init__(self, port: int, maxdata: int = 1024 * 1024) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.maxdata = maxdata
        self._next_id = 100

    def close(self) -> None:
        self.sock.close()

    def send(self, p: Packet) -> None:
        self.sock.sendall(p.encode())

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self) -> Packet:
        header = self._exactly(HEADER_SIZE)
        command, arg0, arg1, length, _check, magic = struct.unpack("<6I", header)
        assert magic == command ^ 0xFFFFFFFF, "adbd sent a bad magic"
        return Packet(command, arg0, arg1, self._exactly(length))

    def _exactly(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise EOFError("adbd closed the connection")
            out += chunk
        return bytes(out)

    def connect(self) -> Packet:
        self.send(Packet(A_CNXN, 0x01000001, self.maxdata, b"host::features=cmd\0"))
        return self.recv()

    def open(self, destination: str) -> tuple[int, Packet]:
        self._next_id += 1
        local = self._next_id
        self.send(Packet(A_OPEN, local, 0, destination.encode() + b"\0"))
        return local, self.recv()

    def okay(self, local: int, remote: int) -> None:
        self.send(Packet(A_OKAY, local, remote))

    def write(self, local: int, remote: int, data: bytes) -> Packet:
        """WRTE and wait for the adbd's OKAY (returns it)."""
        self.send(Packet(A_WRTE, local, remote, data))
        return self.recv()

    def read_all(self, local: int, remote: int) -> bytes:
        """Collect WRTEs (acking each) until the adbd's CLSE."""
        out = bytearray()
        while True:
            p = self.recv()
            if p.command == A_WRTE:
                out += p.payload
                self.okay(local, remote)
            elif p.command == A_CLSE:
                return bytes(out)
            else:
                raise AssertionError(f"unexpected {p.name} while reading")
