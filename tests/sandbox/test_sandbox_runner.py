"""The bubblewrap runner itself, with real bwrap: what a command can and cannot reach, and
the limits on it (network, read-only system, hidden home and state, CPU, timeout, output)."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from mika.cap.sandbox.bwrap import BwrapSandbox
from mika.cap.sandbox.port import OUTPUT_HEAD, OUTPUT_TAIL, Bind, SandboxError


async def test_network_is_off_a_loopback_listener_on_the_host_is_unreachable(port, workspace) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    accepted: list[object] = []
    listener.settimeout(0.2)

    def accept() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    host_port = listener.getsockname()[1]
    try:
        probe = (
            "import socket,sys\n"
            "s=socket.socket()\n"
            "s.settimeout(3)\n"
            "try:\n"
            f"    s.connect(('127.0.0.1',{host_port})); print('CONNECTED')\n"
            "except OSError as e:\n"
            "    print('REFUSED', type(e).__name__)\n"
        )
        r = await port.run(["python3", "-c", probe], workspace=workspace.root, timeout=20)
        waiter = threading.Thread(target=accept)
        waiter.start()
        waiter.join()
    finally:
        listener.close()
    assert r.ok, r.stderr.text
    assert r.stdout.text.startswith("REFUSED"), r.stdout.text
    assert accepted == []  # the host's listener never saw a connection
    # And the namespace has no interface but the loopback.
    r = await port.run("cat /proc/net/dev", workspace=workspace.root)
    names = [line.split(":")[0].strip() for line in r.stdout.text.splitlines()[2:] if ":" in line]
    assert names == ["lo"], r.stdout.text


async def test_system_folders_are_read_only_and_the_workspace_is_writable(port, workspace) -> None:
    r = await port.run("echo x > /usr/mika-was-here; echo $?; echo ok > made.txt", workspace=workspace.root)
    assert r.stdout.text.strip() != "0"
    assert "Read-only file system" in r.stderr.text
    assert "mika-was-here" not in os.listdir("/usr")
    assert (workspace.root / "made.txt").read_text() == "ok\n"


async def test_home_and_state_are_invisible_and_the_environment_is_clean(port, workspace, state, monkeypatch) -> None:
    secret_file = state / "secret.json"
    secret_file.write_text("{}")
    monkeypatch.setenv("MIKA_TEST_SECRET", "sk-do-not-leak")
    home = os.environ.get("HOME", "/root")
    r = await port.run(f"ls -d {home} {state} {secret_file} 2>&1; env; cat /etc/passwd", workspace=workspace.root)
    out = r.stdout.text
    assert "sk-do-not-leak" not in out and "MIKA_TEST_SECRET" not in out
    assert out.count("No such file or directory") == 3, out
    # The host's account list is not shown: passwd names only the sandbox's user.
    assert [line.split(":")[0] for line in out.splitlines() if line.count(":") == 6] == ["sandbox"]


async def test_cpu_limit_stops_a_busy_loop(port, workspace) -> None:
    r = await port.run("while :; do :; done", workspace=workspace.root, cpu_seconds=1, timeout=30)
    assert r.cpu_limited and r.exit_code is None
    assert r.cpu_seconds >= 0.9  # measured by the kernel, not guessed
    assert r.wall_seconds < 30  # stopped by the CPU limit, not the timeout


async def test_timeout_kills_the_whole_namespace(port, workspace) -> None:
    r = await port.run("(sleep 60; echo late > late.txt) & sleep 60", workspace=workspace.root, timeout=1)
    assert r.timed_out and r.exit_code is None
    assert r.cpu_seconds >= r.wall_seconds * 0.99  # a killed command is charged its wall time
    # Nothing of it is left running: a later command sees no late file, and the sleeper
    # in the background died with its namespace.
    r2 = await port.run("ls", workspace=workspace.root)
    assert "late.txt" not in r2.stdout.text


async def test_output_is_capped_head_and_tail_kept_and_the_cut_said(port, workspace) -> None:
    r = await port.run(
        "python3 -c \"import sys; sys.stdout.write('A'*50000 + 'MIDDLE' + 'B'*50000 + 'END')\"",
        workspace=workspace.root,
    )
    out = r.stdout
    assert out.total_bytes == 100009
    assert out.cut_bytes == 100009 - OUTPUT_HEAD - OUTPUT_TAIL
    assert out.text.startswith("A" * 100) and out.text.endswith("BEND")
    assert "MIDDLE" not in out.text and f"[… {out.cut_bytes} bytes cut …]" in out.text


async def test_extra_binds_and_env_reach_one_command_read_only(port, workspace, tmp_path) -> None:
    shared = tmp_path / "bridge"
    shared.mkdir()
    (shared / "token").write_text("t-123")
    r = await port.run(
        'cat /run/mika/token; echo " $MIKA_BRIDGE"; echo x > /run/mika/token',
        workspace=workspace.root,
        extra_ro_binds=[Bind(shared, "/run/mika")],
        env={"MIKA_BRIDGE": "on"},
    )
    assert r.stdout.text.startswith("t-123 on")
    assert "Read-only file system" in r.stderr.text
    assert (shared / "token").read_text() == "t-123"
    r = await port.run("echo $MIKA_BRIDGE; ls /run", workspace=workspace.root)
    assert r.stdout.text.split() == []  # the next command gets neither


@pytest.mark.parametrize("inside", ["/workspace", "/workspace/x", "/usr/local", "/etc", "/", "relative", "/opt/../etc"])
async def test_extra_bind_over_the_sandbox_furniture_is_refused(port, workspace, tmp_path, inside) -> None:
    with pytest.raises(SandboxError):
        await port.run("true", workspace=workspace.root, extra_ro_binds=[Bind(tmp_path, inside)])


async def test_network_setting_is_the_ports_not_the_commands() -> None:
    # The only way to get a network is the constructor (the user's [sandbox] network);
    # run() has no such argument, and the flag is read-only.
    assert BwrapSandbox(network=False).network is False
    with pytest.raises(AttributeError):
        BwrapSandbox(network=False).network = True  # type: ignore[misc]
