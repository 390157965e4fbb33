"""The phone's state beside its world: serial, files, the services running in it and the
faults' connection counters. This is what a shell command, the uiautomator2 server and the
scrcpy server see of the phone (`ctx.phone`); the device the adbd talks to, which runs
those (mika/sim/phone.py), is a PhoneState too and sits above all of them."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from mika.sim.device import ConnectionDrop, ReverseConnect, SimStream
from mika.sim.world import boot
from mika.sim.world.files import MemFiles
from mika.sim.world.props import banner
from mika.sim.world.world import World


class PhoneState:
    def __init__(self, serial: str, world: World) -> None:
        self.serial = serial
        self.world = world
        self._files = MemFiles(int(self.world.clock.now()))
        self.commands_seen = 0
        self.u2_servers = 0  # app_process instances serving uiautomator2 on tcp:9008
        self.u2_kill = False
        # UiObjects the uiautomator2 server handed out by name (mika/sim/u2/objects.py).
        self.u2_objects: dict[str, dict[str, object]] = {}
        # `localabstract:NAME` sockets something inside the phone listens on (the scrcpy
        # server's, mika/sim/world/local_sockets.py): name -> what serves one connection.
        self.local_sockets: dict[str, Callable[[SimStream], Awaitable[None]]] = {}
        # `adb reverse` listeners (mika/sim/adbd/reverse.py): what a connection made inside
        # the phone to tcp:PORT / localabstract:NAME opens toward the host.
        self.reverse_targets: dict[str, ReverseConnect] = {}
        # Open `pm install-create` sessions: id -> {split name: APK bytes written so far}.
        self.install_sessions: dict[int, dict[str, bytes]] = {}

    def banner(self) -> str:
        return banner(self.world.props)

    @property
    def files(self) -> MemFiles:
        return self._files

    @property
    def memfiles(self) -> MemFiles:
        return self._files

    def virtual_file(self, path: str) -> bytes | None:
        """Files computed from the world (/proc, /sys) rather than stored."""
        if path == "/proc/version":
            return b"Linux version 5.15.110-android14-11 (build@mika) #1 SMP PREEMPT\n"
        if path == "/sys/class/power_supply/battery/capacity":
            return b"100\n"
        return None

    def listen_reverse(self, local: str, connect: ReverseConnect | None) -> bool:
        if connect is None:
            self.reverse_targets.pop(local, None)
            return True
        # The phone's own listeners keep their port, as bind() would refuse a second one.
        if local in self.local_sockets or (local == "tcp:9008" and self.u2_servers > 0):
            return False
        self.reverse_targets[local] = connect
        return True

    def reboot(self) -> None:
        boot.reboot(self.world)
        self.install_sessions.clear()
        self.u2_objects.clear()
        self.commands_seen = 0

    def before_command(self) -> None:
        self.world.tick()
        self.commands_seen += 1
        limit = self.world.faults.drop_after
        if limit and self.commands_seen > limit:
            # One pulled cable: once dropped, the host may reconnect and carry on.
            self.world.faults = dataclasses.replace(self.world.faults, drop_after=None)
            self.commands_seen = 0
            raise ConnectionDrop(f"fault drop_after={limit}: dropping the connection")

    def command_delay(self) -> float:
        return self.world.faults.slow_ms / 1000
