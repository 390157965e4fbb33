"""`mika sim` in the foreground, as a user runs it: a real process, a real adb server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.adb_env import AdbServer


def _start(*args: str, lang: str = "en") -> subprocess.Popen[str]:
    env = dict(os.environ, MIKA_LANGUAGE=lang, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "sim", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_mika_sim_serves_until_stopped(adb_server: AdbServer, stop_signal: int) -> None:
    proc = _start("--serial", "cli-sim")
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:"), line
        port = int(line.strip().rsplit(":", 1)[1])
        serial = f"127.0.0.1:{port}"
        out = adb_server.run("connect", serial).stdout.decode()
        assert f"connected to {serial}" in out
        adb_server.run("-s", serial, "wait-for-device", timeout=20)
        echoed = adb_server.run("-s", serial, "shell", "echo from the cli sim").stdout.decode()
        assert echoed == "from the cli sim\n"
        adb_server.run("disconnect", serial, check=False)
    finally:
        proc.send_signal(stop_signal)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "simulated phone stopped." in err
    assert "Traceback" not in err


def test_mika_sim_bad_input_is_one_clear_line() -> None:
    for args, needle in (
        (("--faults", "slow_ms=fast"), "slow_ms needs a whole number"),
        (("--port", "5555"), "emulator range"),
        (("--scenario", "no-such-scenario"), "unknown scenario"),
    ):
        proc = _start(*args)
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 2, (args, err)
        assert needle in err and "Traceback" not in err


def test_mika_sim_tasks_json_is_a_list() -> None:
    env = dict(os.environ, MIKA_LANGUAGE="en")
    out = subprocess.run(
        [sys.executable, "-m", "mika.cli", "sim", "tasks", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    ).stdout
    tasks = json.loads(out)
    from mika.sim.tasks import list_tasks

    assert [t["id"] for t in tasks] == [t.id for t in list_tasks()]
    assert len(tasks) >= 25
    for task in tasks:
        assert task["id"] and task["goal"] and task["scenario"]
    table = subprocess.run(
        [sys.executable, "-m", "mika.cli", "sim", "tasks"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    assert len(table) == len(tasks)
    assert table[0].split()[0] == tasks[0]["id"] and tasks[0]["goal"] in table[0]


def test_mika_sim_on_a_given_port_in_chinese() -> None:
    from tests.adb_env import free_port

    port = free_port()
    proc = _start("--port", str(port), lang="zh")
    try:
        assert proc.stdout.readline().strip() == f"listening on 127.0.0.1:{port}"
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "模拟手机" in err and "已停止" in err
