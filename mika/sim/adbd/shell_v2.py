"""The shell protocol v2 (`shell,v2,raw:CMD`, `shell,v2,pty:`): framed stdin, stdout,
stderr and the exit code, as adbd's shell_protocol.h lays it out.

Every packet is an id byte, a little-endian u32 length and that many bytes:

  0 stdin   host → phone: bytes for the command's stdin
  1 stdout  phone → host
  2 stderr  phone → host (kept apart from stdout: that is what v2 is for)
  3 exit    phone → host: one byte, the exit code; adbd closes the stream after it
  4 close-stdin  host → phone: stdin is at its end
  5 window-size  host → phone: "rows x cols,x_pixels x y_pixels" for a pty (ignored here)

The host cuts packets across WRTEs as it likes, so they are read from a byte buffer.
"""

from __future__ import annotations

import struct

from .stream import AdbStream

ID_STDIN = 0
ID_STDOUT = 1
ID_STDERR = 2
ID_EXIT = 3
ID_CLOSE_STDIN = 4
ID_WINDOW_SIZE = 5

_HEADER = struct.Struct("<BI")


def packet(kind: int, data: bytes) -> bytes:
    return _HEADER.pack(kind, len(data)) + data


class ShellV2Stream:
    """The SimStream a command sees on a v2 shell: reads give stdin, writes go out as
    stdout packets and `write_err` as stderr packets."""

    def __init__(self, stream: AdbStream, *, pty: bool = False) -> None:
        self._stream = stream
        self._buf = bytearray()
        self._stdin_done = False
        self.pty = pty
        # On a pty stderr and stdout are the same terminal: one stream, as adbd does.
        self.write_err = self.write if pty else self._write_stderr

    @property
    def closed(self) -> bool:
        return self._stream.closed

    @property
    def stdin_done(self) -> bool:
        return self._stdin_done

    async def read(self) -> bytes:
        """Next stdin bytes; b"" once the host closed stdin or the stream."""
        while not self._stdin_done:
            if len(self._buf) >= _HEADER.size:
                kind, length = _HEADER.unpack_from(self._buf)
                if len(self._buf) >= _HEADER.size + length:
                    data = bytes(self._buf[_HEADER.size : _HEADER.size + length])
                    del self._buf[: _HEADER.size + length]
                    if kind == ID_STDIN and data:
                        return data
                    if kind == ID_CLOSE_STDIN:
                        self._stdin_done = True
                    continue  # window sizes and unknown ids mean nothing here
            chunk = await self._stream.read()
            if not chunk:
                return b""
            self._buf += chunk
        return b""

    async def write(self, data: bytes) -> None:
        if data:
            await self._stream.write(packet(ID_STDOUT, data))

    async def _write_stderr(self, data: bytes) -> None:
        if data:
            await self._stream.write(packet(ID_STDERR, data))

    async def exit(self, code: int) -> None:
        await self._stream.write(packet(ID_EXIT, bytes([code & 0xFF])))
