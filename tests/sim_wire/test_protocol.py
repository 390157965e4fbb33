"""The adbd at the message level, driven by a hand-written host (see raw_host.py)."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

from mika.sim.adbd.packet import A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, MAX_PAYLOAD, Packet
from mika.sim.server import EMULATOR_PORTS, SimServer, SimServerError, ThreadedSimServer
from tests.sim_wire.raw_host import RawHost
from tests.sim_wire.wire_device import WireDevice


@pytest.fixture
def served() -> Iterator[tuple[ThreadedSimServer, WireDevice]]:
    device = WireDevice()
    server = SimServer.start_in_thread(device)
    yield server, device
    server.stop()


@pytest.fixture
def host(served: tuple[ThreadedSimServer, WireDevice]) -> Iterator[RawHost]:
    h = RawHost(served[0].port)
    yield h
    h.close()


def test_cnxn_answer_has_version_maxdata_and_a_cleaned_banner(host: RawHost) -> None:
    reply = host.connect()
    assert reply.command == A_CNXN
    assert reply.arg0 == 0x01000001
    assert reply.arg1 == MAX_PAYLOAD == 262144
    banner = reply.payload.decode()
    assert banner.startswith("device::ro.product.name=wire;ro.product.model=Wire_Double;")
    features = banner.split("features=")[1].split(";")[0].split(",")
    assert "shell_v2" in features and "abb_exec" not in features
    assert "cmd" in features
    # The CNXN goes out before the host knows our version, so it carries a real checksum.
    raw = reply.encode(checksum=True)
    assert struct.unpack("<6I", raw[:24])[4] == sum(reply.payload)


def test_messages_before_cnxn_are_ignored(host: RawHost) -> None:
    host.send(Packet(A_OPEN, 5, 0, b"shell:echo early\0"))
    reply = host.connect()
    assert reply.command == A_CNXN  # the early OPEN got no answer at all


def test_shell_output_and_close(host: RawHost) -> None:
    host.connect()
    local, ready = host.open("shell:echo hello wire")
    assert ready.command == A_OKAY and ready.arg1 == local and ready.arg0 != 0
    assert host.read_all(local, ready.arg0) == b"hello wire\n"


def test_one_wrte_in_flight_until_okay(served) -> None:
    """With a small maxdata the output comes in many WRTEs, and never two unacknowledged."""
    h = RawHost(served[0].port, maxdata=4096)
    try:
        h.connect()
        local, ready = h.open("exec:spew 20000")
        remote = ready.arg0
        first = h.recv()
        assert first.command == A_WRTE and len(first.payload) == 4096
        # Without our OKAY nothing more may come: a short wait sees silence.
        h.sock.settimeout(0.3)
        with pytest.raises(TimeoutError):
            h.sock.recv(1)
        h.sock.settimeout(5)
        h.okay(local, remote)
        rest = h.read_all(local, remote)
        data = first.payload + rest
        assert len(data) == 20000
        assert data == (bytes(range(256)) * 100)[:20000]
    finally:
        h.close()


def test_unknown_service_is_refused_with_clse(host: RawHost) -> None:
    host.connect()
    for destination in ("reboot:bootloader", "framebuffer:", "jdwp:1234", "localabstract:nobody", "tcp:1"):
        local, answer = host.open(destination)
        assert answer.command == A_CLSE, destination
        assert answer.arg0 == 0 and answer.arg1 == local
    # The transport is still fine afterwards.
    local, ready = host.open("shell:echo still here")
    assert host.read_all(local, ready.arg0) == b"still here\n"


def test_open_with_delayed_ack_window_is_refused(host: RawHost) -> None:
    host.connect()
    host.send(Packet(A_OPEN, 7, 65536, b"shell:echo x\0"))
    answer = host.recv()
    assert (answer.command, answer.arg0, answer.arg1) == (A_CLSE, 0, 7)


def test_bad_magic_closes_the_connection(host: RawHost) -> None:
    host.connect()
    bad = bytearray(Packet(A_OPEN, 9, 0, b"shell:echo x\0").encode())
    bad[20] ^= 0xFF
    host.send_raw(bytes(bad))
    with pytest.raises((EOFError, ConnectionError)):
        host.recv()


def test_stdin_reaches_the_command(host: RawHost) -> None:
    host.connect()
    local, ready = host.open("shell:cat")
    remote = ready.arg0
    ack = host.write(local, remote, b"ping over stdin")
    assert ack.command == A_OKAY
    echoed = host.recv()
    assert echoed.command == A_WRTE and echoed.payload == b"ping over stdin"
    host.okay(local, remote)
    host.send(Packet(A_CLSE, local, remote))


def test_many_streams_interleave_on_one_transport(host: RawHost) -> None:
    host.connect()
    sizes = {}
    for i in range(5):  # all OPENs first: answers then come interleaved
        local = 200 + i
        sizes[local] = 1000 + 3000 * i
        host.send(Packet(A_OPEN, local, 0, f"exec:spew {sizes[local]}\0".encode()))
    remotes: dict[int, int] = {}
    bufs = {local: bytearray() for local in sizes}
    open_ = set(sizes)
    while open_:
        p = host.recv()
        if p.command == A_OKAY:
            remotes[p.arg1] = p.arg0
        elif p.command == A_WRTE:
            assert p.arg1 in remotes, "WRTE before the stream's OKAY"
            bufs[p.arg1] += p.payload
            host.okay(p.arg1, remotes[p.arg1])
        elif p.command == A_CLSE:
            open_.discard(p.arg1)
    assert len(set(remotes.values())) == 5  # five distinct adbd-side ids
    for local, size in sizes.items():
        assert bytes(bufs[local]) == (bytes(range(256)) * 60)[:size]


def _sync_req(ident: bytes, payload: bytes) -> bytes:
    return ident + struct.pack("<I", len(payload)) + payload


def test_sync_requests_packed_and_split_across_wrtes(host: RawHost, served) -> None:
    """The host may pack several sync requests in one WRTE and split one over several."""
    _server, device = served
    host.connect()
    local, ready = host.open("sync:")
    remote = ready.arg0
    content = bytes(range(256)) * 300  # 76800 bytes: two DATA chunks
    stream = (
        _sync_req(b"SEND", b"/sdcard/a.bin,33188")
        + _sync_req(b"DATA", content[:65536])
        + _sync_req(b"DATA", content[65536:])
        + b"DONE"
        + struct.pack("<I", 1700000000)
        + _sync_req(b"STAT", b"/sdcard/a.bin")
        + _sync_req(b"RECV", b"/sdcard/a.bin")
    )
    # Cut at awkward places: inside an id, inside a length, inside a path.
    cuts = [3, 10, 25, 70000, 70003, len(stream) - 30, len(stream) - 5]
    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    replies = bytearray()
    for piece in pieces:
        host.send(Packet(A_WRTE, local, remote, piece))
        # Collect until the adbd OKAYs our WRTE, acking anything it writes meanwhile.
        while True:
            p = host.recv()
            if p.command == A_OKAY:
                break
            assert p.command == A_WRTE
            replies += p.payload
            host.okay(local, remote)
    # Drain the rest of the RECV answer.
    host.sock.settimeout(2)
    while not replies.endswith(b"DONE\0\0\0\0"):
        p = host.recv()
        assert p.command == A_WRTE
        replies += p.payload
        host.okay(local, remote)
    assert device.files.read("/sdcard/a.bin") == content
    assert replies[:8] == b"OKAY\0\0\0\0"
    ident, mode, size, mtime = struct.unpack("<4sIII", replies[8:24])
    assert (ident, mode, size, mtime) == (b"STAT", 0o100644, len(content), 1700000000)
    got, pos = bytearray(), 24
    while replies[pos : pos + 4] == b"DATA":
        (n,) = struct.unpack("<I", replies[pos + 4 : pos + 8])
        got += replies[pos + 8 : pos + 8 + n]
        pos += 8 + n
    assert replies[pos:] == b"DONE\0\0\0\0"
    assert bytes(got) == content


def test_sync_quit_and_unknown_request(host: RawHost) -> None:
    host.connect()
    local, ready = host.open("sync:")
    remote = ready.arg0
    ack = host.write(local, remote, _sync_req(b"NOPE", b"/x"))
    assert ack.command == A_OKAY
    fail = host.read_all(local, remote)
    assert fail.startswith(b"FAIL") and b"unknown command" in fail
    local, ready = host.open("sync:")
    host.write(local, ready.arg0, b"QUIT\0\0\0\0")
    assert host.read_all(local, ready.arg0) == b""


def test_server_refuses_emulator_ports() -> None:
    with pytest.raises(SimServerError, match="emulator range"):
        SimServer.start_in_thread(WireDevice(), port=5555)
    server = SimServer.start_in_thread(WireDevice())
    try:
        assert server.port not in EMULATOR_PORTS
        with pytest.raises(SimServerError, match="cannot listen"):
            SimServer.start_in_thread(WireDevice(), port=server.port)
    finally:
        server.stop()


class _BrokenDevice(WireDevice):
    async def run_shell(self, command: str, stream) -> int:  # type: ignore[no-untyped-def]
        if command == "crash":
            raise RuntimeError("world bug")
        return await super().run_shell(command, stream)


def test_a_failing_command_closes_only_its_stream(caplog: pytest.LogCaptureFixture) -> None:
    server = SimServer.start_in_thread(_BrokenDevice())
    host = RawHost(server.port)
    try:
        host.connect()
        with caplog.at_level("WARNING", logger="mika.sim.adbd"):
            local, ready = host.open("shell:crash")
            assert ready.command == A_OKAY
            assert host.read_all(local, ready.arg0) == b""
        assert any("world bug" in r.getMessage() for r in caplog.records)
        assert not any(r.exc_info for r in caplog.records)  # one line, no traceback
        local, ready = host.open("shell:echo survived")
        assert host.read_all(local, ready.arg0) == b"survived\n"
    finally:
        host.close()
        server.stop()


async def test_async_server_start_stop_on_the_callers_loop() -> None:
    import asyncio

    from mika.sim.adbd.packet import read_packet

    server = SimServer(WireDevice())
    port = await server.start()
    assert port == server.port and port not in EMULATOR_PORTS
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(Packet(A_CNXN, 0x01000001, 1 << 20, b"host::\0").encode())
    await writer.drain()
    reply = await read_packet(reader, 1 << 20)
    assert reply.command == A_CNXN and server.connections == 1
    await server.stop()
    assert await reader.read() == b""  # stop closes host connections too
    writer.close()
