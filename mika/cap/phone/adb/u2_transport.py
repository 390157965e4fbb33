"""uiautomator2's JSON-RPC over one kept adb `tcp:` stream.

uiautomator2 (3.7) opens a new adb connection for every HTTP request (`AdbHTTPConnection`
per call, through adbutils' `open_transport`, which first asks the server its version and
sleeps 10 ms closing that connection). Its on-device server speaks HTTP/1.1 with
keep-alive (NanoHTTPD; the simulated phone too), so one `tcp:` stream can carry every
call of a run: a dump costs its HTTP round trip and nothing else.

Careful with a kept stream:
- a stream is only used again when its last answer was read whole (Content-Length) and
  nothing unasked-for waits on it (peeked before each request): a stale answer can never
  be taken for the new one; each request has its own id and the answer must carry it;
- a stream left idle for longer than the server keeps one (NanoHTTPD closes after 5 s)
  is not trusted: a fresh one is opened;
- a kept stream that ends before any byte of the answer (the server closed it between
  calls) is replaced once by a fresh one; any other fault drops the stream and is raised
  the way uiautomator2 raises it (HTTPError to restart its server, OSError / EOFError
  when the phone went away), so the port's restart and reconnect rules stay as they were.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import uiautomator2
from uiautomator2.core import DEFAULT_SERVER_PORT
from uiautomator2.exceptions import (
    HTTPError,
    RPCInvalidError,
    RPCUnknownError,
    UiAutomationNotConnectedError,
    UiObjectNotFoundError,
)

from mika.cap.phone.adb.shell_client import ServiceRefused, ShellClient

IDLE_LIMIT_S = 3.0  # below NanoHTTPD's 5 s socket read timeout: an older stream is not reused
_MAX_HEAD = 64 * 1024
# Errors whose message says the on-device server lost UiAutomation: restarting it mends them.
_NOT_CONNECTED = ("UiAutomation not connected", "android.os.DeadObjectException", "DeadSystemRuntimeException")


class _StreamLost(Exception):
    """A kept stream ended before the answer began: the server closed it between calls."""


class KeptRpc:
    """JSON-RPC calls to the uiautomator2 server on `port`, over a kept stream."""

    def __init__(self, wire: ShellClient, port: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.wire = wire
        self.port = port
        self.clock = clock
        self._sock: socket.socket | None = None
        self._used_at = 0.0
        self._next_id = 0
        self._lock = threading.Lock()
        self.opened = 0  # streams opened (the benchmark and the tests read it)

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            # Shut down first so the far end sees the end at once (what adbutils#154 was
            # for); no wait after it: nothing of ours is in flight on a kept stream.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def call(self, method: str, params: Any, timeout: float) -> Any:
        # A second caller at the same time (another display's dump) gets a stream of its
        # own for this call rather than waiting behind the first.
        if not self._lock.acquire(blocking=False):
            sock = self._open(timeout)
            try:
                return self._exchange(sock, method, params, timeout)
            finally:
                sock.close()
        try:
            return self._call_kept(method, params, timeout)
        finally:
            self._lock.release()

    def _call_kept(self, method: str, params: Any, timeout: float) -> Any:
        sock = self._reusable()
        reused = sock is not None
        if sock is None:
            sock = self._open(timeout)
        self._sock = None  # held by this call; given back only after a whole answer
        try:
            result = self._exchange(sock, method, params, timeout, reused=reused)
        except _StreamLost:
            sock.close()
            sock = self._open(timeout)
            try:
                result = self._exchange(sock, method, params, timeout)
            except BaseException:
                sock.close()
                raise
        except BaseException:
            sock.close()
            raise
        self._sock, self._used_at = sock, self.clock()
        return result

    def _reusable(self) -> socket.socket | None:
        sock = self._sock
        if sock is None:
            return None
        if self.clock() - self._used_at > IDLE_LIMIT_S or not _quiet(sock):
            self.close()
            return None
        return sock

    def _open(self, timeout: float) -> socket.socket:
        try:
            sock = self.wire.open(f"tcp:{self.port}", timeout)
        except ServiceRefused as exc:
            # Nothing listens there: uiautomator2's answer to this is to restart its server.
            raise HTTPError(f"Unable to connect to uiautomator2 server: {exc}") from None
        self.opened += 1
        return sock

    def _exchange(self, sock: socket.socket, method: str, params: Any, timeout: float, *, reused: bool = False) -> Any:
        self._next_id += 1
        rid = self._next_id
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()
        head = (
            "POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: mika\r\nAccept-Encoding: \r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        sock.settimeout(timeout)
        sock.sendall(head + body)  # one send: nothing waits on a delayed ACK
        status, content, keep = _read_response(sock, reused=reused)
        if not keep:
            raise _Unkeepable(status, content, rid)
        if status != 200:
            raise HTTPError(f"HTTP request failed: {status}")
        return _result(content, method, params, rid)


class _Unkeepable(Exception):
    """The server said it closes the stream (or sent no length): not kept, answer still used."""

    def __init__(self, status: int, content: bytes, rid: int) -> None:
        self.status = status
        self.content = content
        self.rid = rid


def _quiet(sock: socket.socket) -> bool:
    """True when nothing waits to be read and the peer has not closed: safe to send on."""
    # Non-blocking for the peek: with a timeout set Python would wait for data first.
    timeout = sock.gettimeout()
    sock.settimeout(0)
    try:
        sock.recv(1, socket.MSG_PEEK)
    except (BlockingIOError, InterruptedError):
        return True
    except OSError:
        return False
    finally:
        sock.settimeout(timeout)
    return False  # b"" (closed) or bytes nobody asked for: either way not to be used


def _read_response(sock: socket.socket, *, reused: bool) -> tuple[int, bytes, bool]:
    buf = bytearray()
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            if not buf and reused:
                raise _StreamLost()
            raise ConnectionResetError("the uiautomator2 server closed the stream before answering whole")
        buf += chunk
        if len(buf) > _MAX_HEAD:
            raise HTTPError("HTTP request failed: the answer's head is too long")
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise HTTPError(f"HTTP request failed: not an HTTP answer ({lines[0][:80]!r})")
    status = int(parts[1])
    headers = {k.strip().lower(): v.strip().lower() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    keep = headers.get("connection") != "close" and parts[0] != "HTTP/1.0"
    if "chunked" in headers.get("transfer-encoding", ""):
        return status, _read_chunked(sock, bytearray(rest)), keep
    length = headers.get("content-length", "")
    if not length.isdigit():
        # No length: the body runs to the stream's end, so this stream cannot be kept.
        return status, _read_to_end(sock, bytearray(rest)), False
    return status, _read_exact(sock, bytearray(rest), int(length)), keep


def _read_exact(sock: socket.socket, buf: bytearray, n: int) -> bytes:
    while len(buf) < n:
        chunk = sock.recv(max(65536, n - len(buf)))
        if not chunk:
            raise ConnectionResetError(f"the uiautomator2 server's answer ended after {len(buf)} of {n} bytes")
        buf += chunk
    if len(buf) > n:
        raise HTTPError("HTTP request failed: more bytes came than the answer's length")
    return bytes(buf)


def _read_to_end(sock: socket.socket, buf: bytearray) -> bytes:
    while chunk := sock.recv(65536):
        buf += chunk
    return bytes(buf)


def _read_chunked(sock: socket.socket, buf: bytearray) -> bytes:
    out = bytearray()

    def line() -> bytes:
        while b"\r\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("the uiautomator2 server's chunked answer ended early")
            buf.extend(chunk)
        at = buf.index(b"\r\n")
        text = bytes(buf[:at])
        del buf[: at + 2]
        return text

    while True:
        size = int(line().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while line():  # trailers up to the empty line
                pass
            if buf:
                raise HTTPError("HTTP request failed: bytes after the chunked answer's end")
            return bytes(out)
        while len(buf) < size + 2:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("the uiautomator2 server's chunked answer ended early")
            buf.extend(chunk)
        out += buf[:size]
        del buf[: size + 2]


def _result(content: bytes, method: str, params: Any, rid: int) -> Any:
    """The call's result, or the uiautomator2 exception its error stands for."""
    try:
        data = json.loads(content)
    except ValueError:
        raise RPCInvalidError(f"Unknown RPC error: the answer to {method} is not JSON") from None
    if not isinstance(data, dict):
        raise RPCInvalidError("Unknown RPC error: not a dict")
    if data.get("id") not in (rid, None):
        # Never take another request's answer for this one's (a stale screen).
        raise HTTPError(f"HTTP request failed: answer to request {data.get('id')!r}, not {rid}")
    error = data.get("error")
    if error is not None:
        error = error if isinstance(error, dict) else {"message": str(error)}
        message = str(error.get("message", ""))
        if any(m in message or m in content.decode("utf-8", "replace") for m in _NOT_CONNECTED):
            raise UiAutomationNotConnectedError(message or "UiAutomation not connected")
        if "UiObjectNotFoundException" in message:
            raise UiObjectNotFoundError(error.get("code"), message, params)
        raise RPCUnknownError(f"Unknown RPC error: {error.get('code')} {message}", params, error.get("data"))
    if "result" not in data:
        raise RPCInvalidError("Unknown RPC error: no result field")
    return data["result"]


class KeptDevice(uiautomator2.Device):
    """uiautomator2's device with every JSON-RPC call over the kept stream. A failure
    uiautomator2 mends by restarting its server (HTTP errors, UiAutomation lost) is mended
    the same way here, then the call is made once more — as uiautomator2 does."""

    def __init__(self, dev: Any, wire: ShellClient, port: int = DEFAULT_SERVER_PORT) -> None:
        self.rpc = KeptRpc(wire, port)
        super().__init__(dev, port=port)

    def jsonrpc_call(self, method: str, params: Any = None, timeout: float = 10) -> Any:
        try:
            return self._call(method, params, timeout)
        except (HTTPError, UiAutomationNotConnectedError):
            self.rpc.close()
            self.stop_uiautomator()
            self.start_uiautomator()
            return self._call(method, params, timeout)

    def _call(self, method: str, params: Any, timeout: float) -> Any:
        try:
            return self.rpc.call(method, params, timeout)
        except _Unkeepable as answer:
            self.rpc.close()
            if answer.status != 200:
                raise HTTPError(f"HTTP request failed: {answer.status}") from None
            return _result(answer.content, method, params, answer.rid)
