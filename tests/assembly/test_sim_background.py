"""The simulated phone attaches in the background (issue 16, start-up), and is still careful:
nothing uses it before the adb server has it, a failed attach is the same sentence (and
exit code) as before, in the same order after a config error, and closing while it
attaches leaves nothing running."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import adbutils
import pytest

from mika.assembly.device import DeviceChoice
from mika.cap.phone import PhoneOpenError
from mika.sim.launch import AdbServerAddress, SimLaunchError, begin_sim
from mika_tui.frames import PNG_MAGIC, FrameError
from mika_tui.launch import FramesWhenReady


class SilentAdbServer:
    """A listener that takes the adb client's connection and never answers, as a hung adb
    server does. The real adb server cannot be made to hang on demand, so this stands in
    for it; `release()` closes the connections, which the client sees as the server going away."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self.port = self._sock.getsockname()[1]
        self.accepted = threading.Event()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            if conn.recv(64):  # the client's first request arrived; it gets no answer
                self.accepted.set()

    def release(self) -> None:
        self._sock.close()
        for conn in self._conns:
            conn.close()


def _serials(adb_server) -> list[str]:
    return [d.serial for d in adbutils.AdbClient(host="127.0.0.1", port=adb_server.port).device_list()]


def test_begin_returns_before_the_adb_server_has_the_phone_and_wait_names_the_failure():
    hung = SilentAdbServer()
    pending = begin_sim(adb_address=AdbServerAddress("127.0.0.1", hung.port), timeout=60)
    try:
        assert pending.serial == f"127.0.0.1:{pending.port}"
        assert hung.accepted.wait(30), "the attach never reached the adb server"
        assert not pending.attached  # the adb server has not answered: still attaching
        with pytest.raises(SimLaunchError, match="still being attached"):
            pending.wait(timeout=0)
        hung.release()
        with pytest.raises(SimLaunchError, match=f"did not come online in the adb server at 127.0.0.1:{hung.port}"):
            pending.wait()
        with pytest.raises(SimLaunchError):  # asked again: the same answer, not a hang
            pending.wait()
    finally:
        hung.release()
        pending.close()


def test_closing_while_the_phone_attaches_stops_it_and_its_thread():
    hung = SilentAdbServer()
    pending = begin_sim(adb_address=AdbServerAddress("127.0.0.1", hung.port), timeout=60)
    assert hung.accepted.wait(30)
    phone_port = pending.port
    hung.release()  # the attach in flight fails …
    pending.close()  # … and close waits for it, then stops the phone
    assert pending.attached
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", phone_port), timeout=2).close()


def test_a_run_on_the_simulated_phone_waits_until_the_adb_server_has_it(tmp_path, adb_server):
    choice = DeviceChoice.open("sim", tmp_path)
    try:
        serial = choice.serial
        assert serial.startswith("127.0.0.1:") and choice.current.is_sim
        cap = choice.capability()  # waits for the attach: never a phone the adb server lacks
        assert serial in _serials(adb_server)
        assert cap.port.serial == serial
        phone = adbutils.AdbClient(host="127.0.0.1", port=adb_server.port).device(serial)
        assert phone.shell("echo ready").strip() == "ready"
    finally:
        choice.close()
    assert serial not in _serials(adb_server)


def test_a_failed_attach_is_a_phone_error_for_the_run_and_for_the_preview(tmp_path, adb_server, monkeypatch):
    # 127.0.0.2 is not "this machine" to the launcher: no adb server is started there.
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.2")
    choice = DeviceChoice.open("sim", tmp_path)
    try:
        assert choice.current.is_sim  # chosen at once; the failure is told where it is used
        for _ in range(2):
            with pytest.raises(PhoneOpenError, match=r"no adb server answers at 127\.0\.0\.2"):
                choice.capability()
        frames = FramesWhenReady(choice, choice.serial)
        for _ in range(2):  # every grab says it, none hangs
            with pytest.raises(FrameError, match=r"no adb server answers at 127\.0\.0\.2"):
                frames.grab()
    finally:
        choice.close()


def test_the_preview_gets_its_first_frame_once_the_phone_is_attached(tmp_path, adb_server):
    choice = DeviceChoice.open("sim", tmp_path)
    try:
        png = FramesWhenReady(choice, choice.serial).grab()
        assert png.startswith(PNG_MAGIC)
        assert choice.serial in _serials(adb_server)
    finally:
        choice.close()


def _mika(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    full.update({"MIKA_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), **env})
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=full,
        stdin=subprocess.DEVNULL,
    )


def test_headless_on_a_sim_that_cannot_attach_exits_3_before_any_model_call(tmp_path, adb_server):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["this reply must never be used"]))
    r = _mika(
        ["--no-ui", "--device", "sim", "--model", f"script:{script}", "go"],
        tmp_path,
        ANDROID_ADB_SERVER_HOST="127.0.0.2",
    )
    assert r.returncode == 3, r.stderr
    assert "no adb server answers at 127.0.0.2" in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""
    assert not (tmp_path / "state" / "runs").exists() or not any((tmp_path / "state" / "runs").iterdir())


def test_a_config_error_is_still_told_before_the_phone_error(tmp_path, adb_server):
    """Both broken: the model's error (exit 2) comes first, as when the phone started
    after the models; the phone attaching early changes no order."""
    r = _mika(
        ["--no-ui", "--device", "sim", "--model", "nosuch/model", "go"],
        tmp_path,
        ANDROID_ADB_SERVER_HOST="127.0.0.2",
    )
    assert r.returncode == 2, r.stderr
    assert "nosuch" in r.stderr and "127.0.0.2" not in r.stderr and "Traceback" not in r.stderr
