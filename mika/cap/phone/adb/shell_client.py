"""A small client for the adb server's device services that does not wait when it closes.

adbutils (2.12) costs ≥ 21 ms per shell call on any phone: `AdbDevice.open_transport()`
first asks the server its version on a connection of its own, and every
`AdbConnection.close()` sleeps 10 ms after shutting the write side ("make sure the
shutdown is processed"), so a call pays two sleeps plus a round trip. The sleep came with
openatx/adbutils#154 (shut the write side before closing, so uiautomator2's
`stop_uiautomator` really ends its stream); no upstream change removes it or caches the
version as of adbutils 2.12.0 (its issues searched: none asks), so this is ours, not an
upstream fix. `host:transport:` also works on the old servers of openatx/adbutils#145.
Here a call is one connection: `host:transport:SERIAL`, then
the service, read to its end, closed at once. Closing without a wait is safe because we
only close after the service has told its end (shell v2's exit packet, or the stream's
EOF); nothing is left in flight for the server to lose.

Errors are the ones the port's reconnect logic already knows: a FAIL answer is an
`adbutils.AdbError` with the server's reason, a socket fault an `OSError` (a timeout is
one), a stream cut short an `EOFError`.
"""

from __future__ import annotations

import socket

import adbutils

# Shell protocol v2 packet ids (adbd's shell_protocol.h).
V2_STDOUT, V2_STDERR, V2_EXIT = 1, 2, 3
_V2_CLOSE_STDIN = bytes([4, 0, 0, 0, 0])
# Shell v1 has no exit code on the wire: one is asked for after the command.
_V1_EXIT_MARK = "MIKA-EXIT:"


class ServiceRefused(adbutils.AdbError):
    """The phone is there but refused the service (e.g. nothing listens on that tcp port)."""


class ShellClient:
    """Device services of one phone through the adb server at host:port."""

    def __init__(self, host: str, port: int, serial: str) -> None:
        self.host = host
        self.port = port
        self.serial = serial

    def open(self, service: str, timeout: float) -> socket.socket:
        """A socket to `service` on the phone (shell:, exec:, tcp:N, …), OKAY already read."""
        sock = socket.create_connection((self.host, self.port), timeout=min(timeout, 3.0))
        try:
            sock.settimeout(timeout)
            # Requests are small and each waits for its answer: Nagle would only delay them.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _request(sock, "host:transport:" + self.serial)
            try:
                _request(sock, service)
            except adbutils.AdbError as exc:
                raise ServiceRefused(str(exc)) from None
            return sock
        except BaseException:
            sock.close()
            raise

    def shell_v2(self, command: str, timeout: float) -> tuple[int, str]:
        """`shell,v2,raw:`: packets of id byte + u32 LE length + data; stdout 1 and stderr 2
        kept in the order they came, exit 3 ends it. The exit code is the command's own."""
        sock = self.open("shell,v2,raw:" + command, timeout)
        try:
            sock.sendall(_V2_CLOSE_STDIN)  # nothing to feed: a command reading stdin sees its end
            out = bytearray()
            reader = _Reader(sock)
            while True:
                head = reader.exact(5)
                length = int.from_bytes(head[1:5], "little")
                data = reader.exact(length) if length else b""
                if head[0] in (V2_STDOUT, V2_STDERR):
                    out += data
                elif head[0] == V2_EXIT:
                    return (data[0] if data else 255), out.decode("utf-8", errors="replace")
        finally:
            sock.close()

    def shell_v1(self, command: str, timeout: float) -> tuple[int, str]:
        """`shell:` with the exit code echoed after the command (v1 carries none)."""
        data = self.read_all(f"shell:{command}; echo {_V1_EXIT_MARK}$?", timeout)
        at = data.rfind(_V1_EXIT_MARK.encode())
        code = data[at + len(_V1_EXIT_MARK) :].strip() if at >= 0 else b""
        if not code.isdigit():
            # The stream ended before the shell said how it went (cut, or the shell died).
            raise adbutils.AdbError(f"the phone's shell ended without an exit code: {data[-200:]!r}")
        return int(code), data[:at].decode("utf-8", errors="replace")

    def exec_out(self, command: str, timeout: float) -> bytes:
        """`exec:` gives the command's bytes untouched (no pty, no CR LF)."""
        return self.read_all("exec:" + command, timeout)

    def read_all(self, service: str, timeout: float) -> bytes:
        """Everything `service` sends until it closes its end."""
        sock = self.open(service, timeout)
        try:
            chunks: list[bytes] = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        finally:
            sock.close()


class _Reader:
    """Exact reads from a socket, buffering what came early."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()

    def exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise EOFError(f"the phone's stream ended after {len(self.buf)} of {n} bytes")
            self.buf += chunk
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out


def _request(sock: socket.socket, service: str) -> None:
    """One smart-socket request: 4 hex digits of length, the text; OKAY or FAIL + reason."""
    body = service.encode("utf-8")
    sock.sendall(b"%04x" % len(body) + body)
    status = _recv_exact(sock, 4)
    if status == b"OKAY":
        return
    if status == b"FAIL":
        size = int(_recv_exact(sock, 4), 16)
        raise adbutils.AdbError(_recv_exact(sock, size).decode("utf-8", errors="replace"))
    raise adbutils.AdbError(f"the adb server answered {status!r} to {service.split(':')[0]}:")


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError(f"the adb server closed the connection after {len(data)} of {n} bytes")
        data += chunk
    return data
