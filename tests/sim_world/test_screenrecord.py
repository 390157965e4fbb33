"""`screenrecord` on the simulated phone: an MP4 that plays, ended by its time limit or by
the signal mobilecli sends it (`pgrep -f FILE`, `kill -INT PID`), then pulled with adb."""

from __future__ import annotations

import io
import subprocess
import time
from pathlib import Path

import av

from mika.sim.phone import make_device
from tests.adb_env import ADB_BINARY, ADB_PORT, SimPhone
from tests.sim_world.driver import Local


def _video(data: bytes) -> tuple[str, tuple[int, int], int]:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return stream.codec_context.name, (stream.width, stream.height), frames


def test_time_limit_ends_it_and_the_file_plays() -> None:
    d = Local(make_device("r"))
    started = time.monotonic()
    assert d.shell("screenrecord --time-limit 1 --size 540x1200 /sdcard/a.mp4") == ""
    assert d.last_code == 0 and time.monotonic() - started >= 1
    data = d.phone.files.read("/sdcard/a.mp4")
    assert data is not None
    codec, size, frames = _video(data)
    assert (codec, size) == ("h264", (540, 1200)) and frames >= 1


def test_usage_errors_say_what_is_missing() -> None:
    d = Local(make_device("r"))
    d.shell("screenrecord")
    assert d.last_code == 2
    assert "Must specify output file (see --help)." in d.shell("screenrecord 2>&1")
    assert "Invalid size 'big'" in d.shell("screenrecord --size big /sdcard/x.mp4 2>&1")


def test_kill_int_from_another_shell_finishes_the_file(sim_phone: SimPhone, tmp_path: Path) -> None:
    remote = "/sdcard/mobilecli-rec-1.mp4"
    adb = [ADB_BINARY, "-P", str(ADB_PORT), "-s", sim_phone.serial]
    recording = subprocess.Popen([*adb, "shell", "screenrecord", remote], stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while not (pids := sim_phone.shell(f"pgrep -f {remote}; true").split()):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert sim_phone.shell("ps -A").count("screenrecord") == 1
        sim_phone.shell("am start -n com.android.settings/.Settings")
        sim_phone.shell(f"kill -INT {pids[0]}")
        assert recording.wait(timeout=20) == 0
    finally:
        recording.kill()
    local = tmp_path / "rec.mp4"
    sim_phone.run_adb("pull", remote, str(local))
    codec, size, frames = _video(local.read_bytes())
    assert (codec, size) == ("h264", sim_phone.device.world.displays[0].size) and frames >= 1
    assert "screenrecord" not in sim_phone.shell("ps -A")
