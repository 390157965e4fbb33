"""The public MCP server @mobilenext/mobile-mcp 1.0.4 drives the simulated phone over a
real adb server, through the `mcp` SDK's stdio client (issue 35): every tool it lists,
each checked against the simulated phone's state afterwards.

The peer's Android work goes through mobilecli 1.0.9, which runs `adb` commands and its
on-device DeviceServer (mika/sim/devicekit) on the phone; the sim plays both. Tools that
need what can't exist here — mobilenext's device cloud and its login — are called too,
with outbound HTTP sent to a closed local port, and the peer's refusal is what is checked.

The peer is found at MIKA_PEER_MOBILE_MCP (its package dir, or its lib/index.js); this
test installs nothing. Without node or the peer it is skipped, unless MIKA_REQUIRE_PEER=1
(CI), where that is a failure. One peer session (and one phone) serves the module; each
test starts from a reset world, so they pass in any order or split over workers.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import av
import pytest
from mcp import StdioServerParameters
from PIL import Image

from mika.sim.launch import RunningSim, start_sim
from mika.sim.phone import Phone
from mika.sim.shell.commands import screenrecord
from tests.adb_env import ADB_BINARY, ADB_PORT, AdbServer, free_port
from tests.peer.mcp_session import PeerSession, peer_entry, peer_env, stop_peer_daemon

SIGN_IN = "com.mika.account/.SignInActivity"
REFUSED = "Please fix the issue and try again."  # how the peer ends an ActionableError

# Every tool the peer lists, and the test that calls it: a tool the peer adds fails
# test_every_listed_tool_is_exercised until a test here covers it.
COVERED = {
    "mobile_list_available_devices": "test_device_facts",
    "mobile_get_screen_size": "test_device_facts",
    "mobile_get_orientation": "test_device_facts",
    "mobile_set_orientation": "test_device_facts",
    "mobile_list_apps": "test_apps_listed_launched_stopped_and_removed",
    "mobile_get_foreground_app": "test_apps_listed_launched_stopped_and_removed",
    "mobile_launch_app": "test_apps_listed_launched_stopped_and_removed",
    "mobile_terminate_app": "test_apps_listed_launched_stopped_and_removed",
    "mobile_uninstall_app": "test_apps_listed_launched_stopped_and_removed",
    "mobile_install_app": "test_apps_listed_launched_stopped_and_removed",
    "mobile_list_elements_on_screen": "test_touch_and_type_into_a_field",
    "mobile_click_on_screen_at_coordinates": "test_touch_and_type_into_a_field",
    "mobile_type_keys": "test_touch_and_type_into_a_field",
    "mobile_long_press_on_screen_at_coordinates": "test_touch_and_type_into_a_field",
    "mobile_double_tap_on_screen": "test_touch_and_type_into_a_field",
    "mobile_clipboard": "test_clipboard_round_trips",
    "mobile_press_button": "test_buttons_swipes_and_urls",
    "mobile_swipe_on_screen": "test_buttons_swipes_and_urls",
    "mobile_open_url": "test_buttons_swipes_and_urls",
    "mobile_batch_commands": "test_buttons_swipes_and_urls",
    "mobile_take_screenshot": "test_screenshots_and_recording",
    "mobile_save_screenshot": "test_screenshots_and_recording",
    "mobile_start_screen_recording": "test_screenshots_and_recording",
    "mobile_stop_screen_recording": "test_screenshots_and_recording",
    "mobile_set_location": "test_location_logs_and_crashes",
    "mobile_get_device_logs": "test_location_logs_and_crashes",
    "mobile_list_crashes": "test_location_logs_and_crashes",
    "mobile_get_crash": "test_location_logs_and_crashes",
    "mobile_login_to_cloud_provider": "test_cloud_tools_refuse_without_the_cloud",
    "mobile_list_remote_devices": "test_cloud_tools_refuse_without_the_cloud",
    "mobile_allocate_remote_device": "test_cloud_tools_refuse_without_the_cloud",
    "mobile_release_remote_device": "test_cloud_tools_refuse_without_the_cloud",
}


def _need_peer() -> Path:
    node = shutil.which("node")
    entry = peer_entry()
    problem = None
    if node is None:
        problem = "node is not installed"
    elif entry is None:
        problem = "MIKA_PEER_MOBILE_MCP does not name an installed @mobilenext/mobile-mcp (see .ci/run)"
    if problem:
        if os.environ.get("MIKA_REQUIRE_PEER") == "1":
            pytest.fail(f"peer required (MIKA_REQUIRE_PEER=1) but {problem}")
        pytest.skip(problem)
    assert entry is not None
    return entry


@dataclass
class Rig:
    peer: PeerSession
    sim: RunningSim
    tmp: Path

    @property
    def serial(self) -> str:
        return self.sim.serial

    @property
    def phone(self) -> Phone:
        device = self.sim.device
        assert isinstance(device, Phone)
        return device

    def ok(self, name: str, **args: object) -> str:
        """A tool that must succeed: neither an error result nor the peer's refusal."""
        text = self.peer.ok(name, device=self.serial, **args)
        assert REFUSED not in text, f"{name}: {text}"
        return text

    def shell(self, command: str) -> str:
        out = subprocess.run(
            [ADB_BINARY, "-P", str(ADB_PORT), "-s", self.serial, "shell", command],
            capture_output=True,
            timeout=30,
            check=True,
        )
        return out.stdout.decode()

    def elements(self) -> list[dict[str, Any]]:
        text = self.ok("mobile_list_elements_on_screen", format="json")
        return json.loads(text.removeprefix("Found these elements on screen: "))

    def element(self, identifier: str) -> dict[str, Any]:
        found = [e for e in self.elements() if (e.get("identifier") or "").endswith(identifier)]
        assert found, f"no element with id …{identifier} on screen"
        return found[0]


@pytest.fixture(scope="module")
def module_rig(adb_server: AdbServer) -> Iterator[Rig]:
    entry = _need_peer()
    sim = start_sim(adb_address=adb_server.address)
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(ADB_BINARY, os.path.join(tmp, "adb"))
        env = peer_env(tmp, ADB_PORT, free_port())
        params = StdioServerParameters(command="node", args=[str(entry)], env=env)
        peer = PeerSession(params)
        try:
            yield Rig(peer, sim, Path(tmp))
        finally:
            peer.close()
            stop_peer_daemon(entry, env)
            sim.close()


@pytest.fixture
def rig(module_rig: Rig) -> Rig:
    # A fresh world for each test; the DeviceServer (a process in the phone) stays up.
    module_rig.phone.world.reset("default")
    return module_rig


def test_every_listed_tool_is_exercised(rig: Rig) -> None:
    assert rig.peer.tool_names() == set(COVERED)
    assert len(COVERED) == 32
    assert {name for name in COVERED.values() if not callable(globals().get(name))} == set()


def test_device_facts(rig: Rig) -> None:
    devices = json.loads(rig.peer.ok("mobile_list_available_devices"))["devices"]
    mine = [d for d in devices if d["id"] == rig.serial]
    props = rig.phone.world.props
    assert len(mine) == 1 and mine[0]["platform"] == "android" and mine[0]["state"] == "online"
    assert mine[0]["version"] == props["ro.build.version.release"]
    width, height = rig.phone.world.displays[0].size
    assert rig.ok("mobile_get_screen_size") == f"Screen size is {width}x{height} pixels"
    assert rig.ok("mobile_get_orientation") == "Current device orientation is portrait"
    system = rig.phone.world.extra_settings["system"]
    rig.ok("mobile_set_orientation", orientation="landscape")
    assert (system["user_rotation"], system["accelerometer_rotation"]) == ("1", "0")
    assert rig.ok("mobile_get_orientation") == "Current device orientation is landscape"
    rig.ok("mobile_set_orientation", orientation="portrait")
    assert system["user_rotation"] == "0"


def test_apps_listed_launched_stopped_and_removed(rig: Rig) -> None:
    world = rig.phone.world
    listed = rig.ok("mobile_list_apps")
    # Labels come from the DeviceServer's package list; the peer lists the launchable apps.
    for app in world.apps.values():
        assert (f"{app.label} ({app.package})" in listed) == app.launcher, app.package
    assert "微聊 (com.mika.chat)" in listed

    assert "(com.android.launcher3)" in rig.ok("mobile_get_foreground_app")
    rig.ok("mobile_launch_app", packageName="com.android.settings")
    assert world.top_activity(0).package == "com.android.settings"
    assert "(com.android.settings)" in rig.ok("mobile_get_foreground_app")
    assert 'text="Network & internet"' in rig.ok("mobile_list_elements_on_screen")
    rig.ok("mobile_terminate_app", packageName="com.android.settings")
    assert world.displays[0].task_for("com.android.settings") is None
    assert world.top_activity(0).package == "com.android.launcher3"

    rig.ok("mobile_uninstall_app", bundle_id="com.mika.notes")
    assert "com.mika.notes" not in world.apps
    assert "com.mika.notes" not in rig.ok("mobile_list_apps")
    # Removing it again: pm's own failure, passed on by mobilecli and the peer.
    again = rig.peer.call("mobile_uninstall_app", device=rig.serial, bundle_id="com.mika.notes")
    assert again.failed and "DELETE_FAILED_INTERNAL_ERROR" in again.text

    # The sim runs only the apps of its app files and has no APK to install; a file that
    # isn't an APK is refused the way a phone refuses it.
    bogus = rig.tmp / "notes.apk"
    bogus.write_bytes(b"not an apk")
    installed = rig.peer.call("mobile_install_app", device=rig.serial, path=str(bogus))
    assert installed.failed and "INSTALL_PARSE_FAILED_NOT_APK" in installed.text
    missing = rig.peer.call("mobile_install_app", device=rig.serial, path=str(rig.tmp / "none.apk"))
    assert missing.text.startswith("App file not found") and REFUSED in missing.text


def test_touch_and_type_into_a_field(rig: Rig) -> None:
    world = rig.phone.world
    rig.shell(f"am start -n {SIGN_IN}")
    user = rig.element("username")
    # A click by ref: mobilecli finds the element again and taps its middle.
    assert rig.ok("mobile_click_on_screen_at_coordinates", ref=user["ref"]) == f"Clicked on element {user['ref']}"
    activity = world.top_activity(0)
    assert activity.focus == "user" and world.ime_visible

    # Not ASCII: mobilecli puts it on the DeviceServer's clipboard, pastes, clears it.
    assert rig.ok("mobile_type_keys", text="你好 café", submit=False) == "Typed text: 你好 café"
    assert activity.fields["user"] == "你好 café"
    assert world.data["clipboard"] == ""
    password = rig.element("password")
    box = password["coordinates"]
    x, y = box["x"] + box["width"] // 2, box["y"] + box["height"] // 2
    rig.ok("mobile_click_on_screen_at_coordinates", x=x, y=y)
    rig.ok("mobile_type_keys", text="pw 1!", submit=False)  # ASCII goes through `input text`
    assert activity.focus == "pw" and activity.fields["pw"] == "pw 1!"
    assert rig.element("username").get("text") == "你好 café"

    taps = world.taps
    rig.ok("mobile_double_tap_on_screen", x=x, y=y)
    assert world.taps == taps + 2
    # A long press on a field raises its text toolbar (Copy / Paste).
    rig.ok("mobile_long_press_on_screen_at_coordinates", x=x, y=y, duration=800)
    assert activity.popup is not None and activity.popup["field"] == "pw"


def test_clipboard_round_trips(rig: Rig) -> None:
    text = "héllo 你好 🎉\nline two"
    assert rig.ok("mobile_clipboard", text=text) == "Clipboard updated"
    assert rig.phone.world.data["clipboard"] == text
    assert rig.ok("mobile_clipboard") == text
    rig.phone.world.data["clipboard"] = "set on the phone"
    assert rig.ok("mobile_clipboard") == "set on the phone"


def test_buttons_swipes_and_urls(rig: Rig) -> None:
    world = rig.phone.world
    rig.ok("mobile_launch_app", packageName="com.android.settings")
    rig.ok("mobile_swipe_on_screen", direction="up")
    scrolled = world.top_activity(0).scroll
    assert scrolled and max(scrolled.values()) > 0
    rig.ok("mobile_press_button", button="BACK")
    assert world.top_activity(0).package == "com.android.launcher3"

    assert rig.ok("mobile_open_url", url="https://example.com/a") == "Opened URL: https://example.com/a"
    page = world.top_activity(0)
    assert (page.package, page.screen, page.params["url"]) == ("com.mika.browser", "Page", "https://example.com/a")
    refused = rig.peer.call("mobile_open_url", device=rig.serial, url="file:///etc/passwd")
    assert "Only http:// and https:// URLs are allowed" in refused.text
    assert world.top_activity(0) is page

    # Steps in one call: home, the browser, its address bar, typed and submitted.
    rig.ok("mobile_press_button", button="HOME")
    rig.ok("mobile_launch_app", packageName="com.mika.browser")
    bar = rig.element("url_bar")["coordinates"]
    steps = [
        {"name": "mobile_click_on_screen_at_coordinates", "arguments": {"x": bar["x"] + 20, "y": bar["y"] + 20}},
        {"name": "mobile_type_keys", "arguments": {"text": "example.org", "submit": True}},
    ]
    out = rig.ok("mobile_batch_commands", steps=steps)
    assert "Step 2 (mobile_type_keys): Typed text: example.org" in out, out
    top = world.top_activity(0)
    assert (top.screen, top.params["url"]) == ("Page", "example.org")


def test_screenshots_and_recording(rig: Rig) -> None:
    width, height = rig.phone.world.displays[0].size
    shot = rig.tmp / "shot.png"
    assert rig.ok("mobile_save_screenshot", saveTo=str(shot)) == f"Screenshot saved to: {shot}"
    image = Image.open(shot)
    assert image.format == "PNG" and image.size == (width, height)

    reply = rig.peer.call("mobile_take_screenshot", device=rig.serial)
    assert not reply.failed, reply.text
    picture = next(c for c in reply.content if getattr(c, "type", "") == "image")
    small = Image.open(io.BytesIO(base64.b64decode(picture.data)))
    assert picture.mime_type == "image/jpeg" and small.format == "JPEG" and max(small.size) == 1024
    assert f"Screen coordinates are {width}x{height}" in reply.text

    video = rig.tmp / "run.mp4"
    started = rig.ok("mobile_start_screen_recording", output=str(video))
    assert started == f"Screen recording started. Output will be saved to: {video}"
    # The peer returns before mobilecli's `adb shell screenrecord` is up; wait for it.
    deadline = time.monotonic() + 10
    while not rig.shell("pgrep screenrecord; true").strip():
        assert time.monotonic() < deadline, "screenrecord never started"
        time.sleep(0.05)
    (recorder,) = screenrecord.running(rig.phone).values()

    def wait_for_frame(after: int, what: str) -> None:
        while recorder.frames <= after:
            assert time.monotonic() < deadline, f"screenrecord took no frame of {what}"
            time.sleep(0.05)

    wait_for_frame(0, "the launcher")
    rig.ok("mobile_launch_app", packageName="com.android.settings")  # a change to record
    wait_for_frame(recorder.frames, "Settings")
    stopped = rig.ok("mobile_stop_screen_recording")
    assert stopped.startswith(f"Recording stopped. File: {video}"), stopped
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.name, stream.width, stream.height) == ("h264", width, height)
        frames = [f.to_image() for f in container.decode(stream)]
    # It starts on the launcher and ends on Settings.
    assert len(frames) >= 2 and frames[0].tobytes() != frames[-1].tobytes()
    assert not [p for p in rig.shell("ls /sdcard").split() if p.startswith("mobilecli-rec-")]  # pulled, removed


def test_location_logs_and_crashes(rig: Rig) -> None:
    world = rig.phone.world
    assert rig.ok("mobile_set_location", latitude=48.8584, longitude=2.2945) == "Set device location to 48.8584,2.2945"
    assert world.data["mock_location"] == {"lat": 48.8584, "lon": 2.2945}
    assert rig.ok("mobile_set_location") == "Cleared location override"
    assert "mock_location" not in world.data
    half = rig.peer.call("mobile_set_location", device=rig.serial, latitude=1.0)
    assert half.text.startswith("Both latitude and longitude are required") and REFUSED in half.text

    rig.ok("mobile_launch_app", packageName="com.mika.notes")
    logs = rig.ok("mobile_get_device_logs", limit=1, filter=["tag=ActivityTaskManager"])
    entry = json.loads(logs.splitlines()[0])
    assert entry["tag"] == "ActivityTaskManager" and "com.mika.notes" in entry["message"], entry

    assert json.loads(rig.ok("mobile_list_crashes")) == []  # the sim's apps don't crash by themselves
    rig.shell("simctl fault crash=com.mika.notes")  # … but this one will, at its next start
    rig.ok("mobile_press_button", button="HOME")
    rig.ok("mobile_terminate_app", packageName="com.mika.notes")
    rig.ok("mobile_launch_app", packageName="com.mika.notes")
    assert world.top_activity(0).package == "com.android.launcher3" and len(world.crashes) == 1
    (listed,) = json.loads(rig.ok("mobile_list_crashes"))
    assert listed["processName"] == "com.mika.notes", listed
    report = rig.ok("mobile_get_crash", id=listed["id"])
    assert "AndroidRuntime: FATAL EXCEPTION: main" in report.splitlines()[0]
    assert f"Process: com.mika.notes, PID: {world.crashes[0].pid}" in report
    missing = rig.peer.call("mobile_get_crash", device=rig.serial, id="no-such-crash")
    assert missing.failed and "crash no-such-crash not found" in missing.text


def test_cloud_tools_refuse_without_the_cloud(rig: Rig) -> None:
    # mobilenext's device cloud can't exist in a test: the login's HTTP goes nowhere, and
    # the others need that login's token first. Each says so instead of touching the phone.
    login = rig.peer.call("mobile_login_to_cloud_provider", timeout=30)
    assert "mobilecli auth login exited early" in login.text and "app.mobilenext.ai" in login.text, login.text
    for name, command, args in (
        ("mobile_list_remote_devices", "remote list-devices", {}),
        ("mobile_allocate_remote_device", "remote allocate", {"platform": "android"}),
        ("mobile_release_remote_device", "remote release", {"device": "remote-1"}),
    ):
        reply = rig.peer.call(name, **args)
        # Why it stops depends on the machine (no keyring here: "failed to get token from
        # keyring"; elsewhere no saved login, or the request that can't get out).
        why = ("token", "keyring", "login", "proxyconnect")
        assert reply.failed and command in reply.text and any(w in reply.text for w in why), (name, reply.text)
    assert rig.phone.world.top_activity(0).package == "com.android.launcher3"
