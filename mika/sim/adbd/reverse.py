"""`adb reverse`: listeners inside the phone that lead back to the host.

The host asks with a `reverse:` service on one transport: `forward[:norebind]:LOCAL;REMOTE`,
`killforward:LOCAL`, `killforward-all`, `list-forward`. As in adbd's handle_forward_request
on the device side, a success is a bare "OKAY" (plus the chosen port as a length-prefixed
string for `tcp:0`), a listing is one length-prefixed string, and a failure "FAIL" with
its message; the host's own OKAY for the open stream comes before any of them.

A reverse belongs to the connection that made it and goes with it. Something in the phone
that connects to LOCAL (`nc localhost 8081`) gets a stream the adbd opens to the host's
REMOTE; the device only learns "LOCAL now leads to the host" (SimDevice.listen_reverse).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable

from mika.sim.device import HostStream, SimDevice, SimStream

# What the adbd names its host connection in `reverse --list` (adbd calls a TCP host
# transport "host-N"); clients such as adbutils drop that first column.
TRANSPORT_NAME = "host-1"
_FIRST_FREE_PORT = 38000
_LOCAL_KINDS = ("tcp:", "localabstract:", "localreserved:", "localfilesystem:")

OpenToHost = Callable[[str], Awaitable[HostStream | None]]


def _string(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


def _fail(message: str) -> bytes:
    return b"FAIL" + _string(message)


class ReverseTable:
    """One transport's reverses: device-side LOCAL -> host-side REMOTE, in creation order."""

    def __init__(self, device: SimDevice, open_to_host: OpenToHost) -> None:
        self._device = device
        self._open_to_host = open_to_host
        self._routes: dict[str, str] = {}
        self._ports = itertools.count(_FIRST_FREE_PORT)

    async def serve(self, request: str, stream: SimStream) -> None:
        await stream.write(self._answer(request))

    def close(self) -> None:
        """The host connection is gone: its listeners stop."""
        for local in list(self._routes):
            self._device.listen_reverse(local, None)
        self._routes.clear()

    def _answer(self, request: str) -> bytes:
        if request == "list-forward":
            return _string("".join(f"{TRANSPORT_NAME} {local} {remote}\n" for local, remote in self._routes.items()))
        if request == "killforward-all":
            self.close()
            return b"OKAY"
        if request.startswith("killforward:"):
            local = request[len("killforward:") :]
            if local not in self._routes:
                return _fail(f"listener '{local}' not found")
            del self._routes[local]
            self._device.listen_reverse(local, None)
            return b"OKAY"
        if request.startswith("forward:"):
            return self._forward(request[len("forward:") :])
        return _fail(f"unknown reverse request {request!r}")

    def _forward(self, spec: str) -> bytes:
        norebind = spec.startswith("norebind:")
        if norebind:
            spec = spec[len("norebind:") :]
        local, semi, remote = spec.partition(";")
        if not semi or not local.startswith(_LOCAL_KINDS) or not remote:
            return _fail(f"bad forward: {spec}")
        if local.startswith("tcp:") and not local[4:].isdigit():
            return _fail(f"cannot bind listener: invalid port '{local[4:]}'")
        chosen = ""
        if local == "tcp:0":
            port = next(self._ports)
            while f"tcp:{port}" in self._routes:
                port = next(self._ports)
            local, chosen = f"tcp:{port}", str(port)
        if local in self._routes and norebind:
            return _fail("cannot rebind existing socket")
        if local not in self._routes and not self._device.listen_reverse(local, self._connector(local)):
            return _fail("cannot bind listener: Address already in use")
        self._routes[local] = remote
        return b"OKAY" + (_string(chosen) if chosen else b"")

    def _connector(self, local: str) -> Callable[[], Awaitable[HostStream | None]]:
        async def connect() -> HostStream | None:
            # Looked up at connect time: a rebind to another REMOTE applies at once.
            remote = self._routes.get(local)
            return None if remote is None else await self._open_to_host(remote)

        return connect
