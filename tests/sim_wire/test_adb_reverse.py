"""`adb reverse` through the real adb server: the phone listens, the host answers.

Something inside the simulated phone (toybox `nc`) connects to the reversed port; the
adbd OPENs a stream to the host, the adb server connects it to a real socket on the PC.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import uiautomator2

from tests.adb_env import SimPhone, free_port


@pytest.fixture
def upper_server() -> Iterator[int]:
    """A TCP server on the host that answers each connection's first bytes in capitals."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.sendall(conn.recv(65536).upper())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone doesn't
    listener.close()
    thread.join(5)


def test_reverse_leads_a_phone_connection_to_the_host(sim_phone: SimPhone, upper_server: int) -> None:
    sim_phone.run_adb("reverse", "tcp:7100", f"tcp:{upper_server}")
    listed = sim_phone.run_adb("reverse", "--list").stdout.decode()
    assert listed == f"host-1 tcp:7100 tcp:{upper_server}\n\n"  # adb prints the block, then a newline
    items = sim_phone.adb.reverse_list()
    assert [(i.remote, i.local) for i in items] == [("tcp:7100", f"tcp:{upper_server}")]
    out = sim_phone.run_adb("shell", "echo hello from the phone | nc localhost 7100")
    assert (out.returncode, out.stdout) == (0, b"HELLO FROM THE PHONE\n")


def test_tcp_0_picks_a_port_and_says_which(sim_phone: SimPhone, upper_server: int) -> None:
    chosen = sim_phone.run_adb("reverse", "tcp:0", f"tcp:{upper_server}").stdout.decode().strip()
    assert chosen.isdigit()
    assert f"tcp:{chosen} tcp:{upper_server}" in sim_phone.run_adb("reverse", "--list").stdout.decode()
    assert sim_phone.shell(f"echo abc | nc 127.0.0.1 {chosen}") == "ABC\n"


def test_remove_norebind_and_remove_all(sim_phone: SimPhone, upper_server: int) -> None:
    sim_phone.run_adb("reverse", "tcp:7101", f"tcp:{upper_server}")
    again = sim_phone.run_adb("reverse", "--no-rebind", "tcp:7101", f"tcp:{upper_server}", check=False)
    assert again.returncode != 0 and b"cannot rebind existing socket" in again.stderr
    sim_phone.run_adb("reverse", "--remove", "tcp:7101")
    refused = sim_phone.run_adb("shell", "echo x | nc localhost 7101", check=False)
    assert (refused.returncode, refused.stderr) == (1, b"nc: connect: Connection refused\n")
    missing = sim_phone.run_adb("reverse", "--remove", "tcp:7101", check=False)
    assert missing.returncode != 0 and b"listener 'tcp:7101' not found" in missing.stderr
    sim_phone.adb.reverse("tcp:7102", f"tcp:{upper_server}")
    sim_phone.adb.reverse("localabstract:mika_rev", f"tcp:{upper_server}")
    assert sim_phone.shell("echo abstract | nc -U @mika_rev") == "ABSTRACT\n"
    sim_phone.run_adb("reverse", "--remove-all")
    assert sim_phone.run_adb("reverse", "--list").stdout == b"\n"
    assert sim_phone.device.reverse_targets == {}


def test_nothing_listening_on_the_host_is_a_refused_connect(sim_phone: SimPhone) -> None:
    sim_phone.run_adb("reverse", "tcp:7103", f"tcp:{free_port()}")
    refused = sim_phone.run_adb("shell", "echo x | nc localhost 7103", check=False)
    assert (refused.returncode, refused.stderr) == (1, b"nc: connect: Connection refused\n")
    assert sim_phone.shell("echo still fine") == "still fine\n"


def test_a_reverse_goes_with_its_connection(sim_phone: SimPhone, upper_server: int) -> None:
    sim_phone.run_adb("reverse", "tcp:7104", f"tcp:{upper_server}")
    assert "tcp:7104" in sim_phone.device.reverse_targets
    sim_phone.running.drop_connections()
    sim_phone.run_adb("wait-for-device", timeout=30)
    assert sim_phone.run_adb("reverse", "--list").stdout == b"\n"
    assert "tcp:7104" not in sim_phone.device.reverse_targets


def test_a_port_the_phone_uses_itself_cannot_be_reversed(sim_phone: SimPhone, upper_server: int) -> None:
    d = uiautomator2.connect(sim_phone.serial)  # its server listens on tcp:9008
    try:
        d.info  # noqa: B018
        taken = sim_phone.run_adb("reverse", "tcp:9008", f"tcp:{upper_server}", check=False)
        assert taken.returncode != 0 and b"cannot bind listener" in taken.stderr
    finally:
        d.stop_uiautomator(wait=False)
