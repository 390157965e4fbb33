"""An adbutils device whose forwarded sockets send at once (TCP_NODELAY).

uiautomator2's HTTP client writes a request's headers and body in two sends. With Nagle's
algorithm on the socket to the adb server, the body waits for that server's delayed ACK:
about 40 ms lost on every uiautomator2 call, on a real phone as on the simulated one.
"""

from __future__ import annotations

import socket

import adbutils


class NoDelayDevice(adbutils.AdbDevice):
    def create_connection(self, network: adbutils.Network, address: int | str) -> socket.socket:
        sock = super().create_connection(network, address)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass  # an option the platform refuses only costs the delay back
        return sock
