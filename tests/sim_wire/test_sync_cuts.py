"""Sync requests survive any cutting into WRTEs (the host packs them as it likes)."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mika.sim.adbd.packet import A_OKAY, A_WRTE, Packet
from mika.sim.server import SimServer
from tests.sim_wire.raw_host import RawHost
from tests.sim_wire.wire_device import WireDevice


def _req(ident: bytes, payload: bytes) -> bytes:
    return ident + struct.pack("<I", len(payload)) + payload


def _parse_recv(answer: bytes) -> bytes | None:
    """The file in OKAY + DATA… + DONE, or None while the answer is incomplete."""
    if len(answer) < 8:
        return None
    assert answer[:8] == b"OKAY\0\0\0\0"
    got, pos = bytearray(), 8
    while len(answer) >= pos + 8:
        ident, n = answer[pos : pos + 4], struct.unpack("<I", answer[pos + 4 : pos + 8])[0]
        if ident == b"DONE":
            assert pos + 8 == len(answer), "bytes after DONE"
            return bytes(got)
        assert ident == b"DATA", ident
        if len(answer) < pos + 8 + n:
            return None
        got += answer[pos + 8 : pos + 8 + n]
        pos += 8 + n
    return None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=st.binary(min_size=0, max_size=150_000),
    cuts=st.lists(st.integers(min_value=1, max_value=200_000), max_size=12),
)
def test_any_cutting_of_send_then_recv(content: bytes, cuts: list[int]) -> None:
    device = WireDevice()
    server = SimServer.start_in_thread(device)
    host = RawHost(server.port)
    try:
        host.connect()
        local, ready = host.open("sync:")
        remote = ready.arg0
        body = bytearray(_req(b"SEND", b"/sdcard/h.bin,420"))
        for start in range(0, len(content), 65536):
            body += _req(b"DATA", content[start : start + 65536])
        body += b"DONE" + struct.pack("<I", 1234)
        body += _req(b"RECV", b"/sdcard/h.bin")
        points = sorted({c for c in cuts if c < len(body)})
        pieces = [bytes(body[a:b]) for a, b in zip([0, *points], [*points, len(body)], strict=True)]
        answer = bytearray()
        for piece in pieces:
            host.send(Packet(A_WRTE, local, remote, piece))
            while True:
                p = host.recv()
                if p.command == A_OKAY:
                    break
                answer += p.payload
                host.okay(local, remote)
        while (got := _parse_recv(bytes(answer))) is None:
            p = host.recv()
            answer += p.payload
            host.okay(local, remote)
        assert got == content
        st_ = device.files.stat("/sdcard/h.bin")
        assert st_ is not None and st_.mode == 0o100644 and st_.mtime == 1234
    finally:
        host.close()
        server.stop()
