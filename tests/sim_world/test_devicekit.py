"""mobilecli's DeviceServer on the simulated phone, set up the way mobilecli 1.0.9 does it
(push the dex, `nohup app_process … &`, `adb forward tcp:0 localabstract:mobilecli-server`)
through the real adb server, and spoken to over real HTTP. The peer test
(tests/peer/test_mobile_mcp.py) only sees what mobilecli makes of the answers; these
check the answers themselves, and the process's life around them."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.adb_env import SimPhone
from tests.sim_world.driver import OverAdb, tap

DEX = "/data/local/tmp/mobilecli.dex"
MAIN = "com.mobilenext.mobilecli.DeviceServer"
LAUNCH = f"CLASSPATH={DEX} nohup app_process / {MAIN} >/dev/null 2>&1 &"
SIGN_IN = "com.mika.account/.SignInActivity"


def _post(port: int, body: bytes, timeout: float = 5) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read())


def _call(port: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": "1", "method": method}
    if params is not None:
        request["params"] = params
    status, reply = _post(port, json.dumps(request).encode())
    assert status == 200
    return reply


def _result(port: int, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = _call(port, method, params)
    assert "error" not in reply, reply
    assert reply["id"] == "1" and reply["jsonrpc"] == "2.0"
    return reply["result"]


def _start(sim_phone: SimPhone, tmp_path: Path, dex: bytes = b"dex\n\x00mobilecli") -> int:
    local = tmp_path / "mobilecli.dex"
    local.write_bytes(dex)
    sim_phone.run_adb("push", str(local), DEX)
    sim_phone.shell(LAUNCH)
    port = int(sim_phone.run_adb("forward", "tcp:0", "localabstract:mobilecli-server").stdout.strip())
    deadline = time.monotonic() + 5
    while True:  # mobilecli's readiness probe: any HTTP answer to `{}`
        try:
            _post(port, b"{}", timeout=0.3)
            return port
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_it_outlives_its_shell_answers_json_rpc_and_goes_when_killed(sim_phone: SimPhone, tmp_path: Path) -> None:
    dex = b"the dex of one mobilecli build"
    port = _start(sim_phone, tmp_path, dex)
    # The probe has no method: an error still answered with HTTP 200, and no id to echo.
    status, probe = _post(port, b"{}")
    assert status == 200 and probe == {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found: "}}
    assert _result(port, "device.version") == {"dexSha256": hashlib.sha256(dex).hexdigest()}
    assert _call(port, "device.nope")["error"]["code"] == -32601
    assert _call(port, "device.clipboard.set", {})["error"] == {"code": -32602, "message": "missing params.text"}

    pid = sim_phone.shell(f"pgrep -f '[c]om.mobilenext.mobilecli.{MAIN.rsplit('.', 1)[1]}'").split()
    assert len(pid) == 1 and f" {pid[0]} " in sim_phone.shell("ps -A")
    # Only one process can hold the socket name; a second one fails to bind.
    second = sim_phone.run_adb("shell", f"CLASSPATH={DEX} app_process / {MAIN}", check=False)
    assert second.returncode == 1 and b"Address already in use" in second.stdout + second.stderr

    sim_phone.shell("pkill -f '[D]eviceServer'; true")
    assert sim_phone.run_adb("shell", "pgrep -f DeviceServer", check=False).returncode == 1
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        _post(port, b"{}", timeout=2)


def test_without_its_dex_app_process_finds_no_class(sim_phone: SimPhone) -> None:
    out = sim_phone.run_adb("shell", f"CLASSPATH=/data/local/tmp/none.dex app_process / {MAIN}", check=False)
    assert out.returncode == 1 and b"ClassNotFoundException: " + MAIN.encode() in out.stdout + out.stderr


def test_apps_list_is_every_installed_package_with_its_label(sim_phone: SimPhone, tmp_path: Path) -> None:
    port = _start(sim_phone, tmp_path)
    apps = {a["packageName"]: a for a in _result(port, "device.apps.list")}
    listed = {line.removeprefix("package:") for line in sim_phone.shell("pm list packages").split()}
    assert set(apps) == listed
    assert apps["com.mika.notes"]["appName"] == "Notes"
    assert apps["com.mika.chat"]["appName"] == "微聊"
    # No label to load: PackageLister falls back to the package name.
    assert apps["com.android.adbkeyboard"]["appName"] == "com.android.adbkeyboard"
    version = sim_phone.shell("dumpsys package com.mika.notes")
    assert f"versionName={apps['com.mika.notes']['version']}" in version
    assert f"versionCode={apps['com.mika.notes']['versionCode']} " in version


def test_typing_clipboard_and_paste_land_in_the_focused_field(sim_phone: SimPhone, tmp_path: Path) -> None:
    port = _start(sim_phone, tmp_path)
    d = OverAdb(sim_phone)
    sim_phone.shell(f"am start -n {SIGN_IN}")
    tap(d, rid="username")
    fields = sim_phone.device.world.top_activity(0).fields
    assert _result(port, "device.io.text", {"text": "ann"}) == {"ok": True}
    # The virtual keyboard's key map has no key for these: refused, nothing typed.
    refused = _call(port, "device.io.text", {"text": "你好"})["error"]
    assert refused["code"] == -32602 and fields["user"] == "ann"

    assert _result(port, "device.clipboard.set", {"text": "你好 café"}) == {"ok": True}
    assert _result(port, "device.clipboard.get") == {"text": "你好 café"}
    sim_phone.shell("input keyevent KEYCODE_PASTE")  # how mobilecli 1.0.9 pastes
    assert fields["user"] == "ann你好 café"
    _result(port, "device.clipboard.clear")
    assert _result(port, "device.clipboard.get") == {"text": ""}
    assert _result(port, "device.io.button", {"button": "KEYCODE_DEL"}) == {"ok": True}
    assert fields["user"] == "ann你好 caf"
    assert _call(port, "device.io.button", {"button": "KEYCODE_NOPE"})["error"]["code"] == -32602


def test_dump_ui_is_the_windows_top_first_without_the_keyboard(sim_phone: SimPhone, tmp_path: Path) -> None:
    port = _start(sim_phone, tmp_path)
    sim_phone.shell(f"am start -n {SIGN_IN}")
    tap(OverAdb(sim_phone), rid="username")
    assert sim_phone.device.world.ime_visible

    def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
        return [node, *(n for child in node.get("children", []) for n in walk(child))]

    roots = _result(port, "device.dump.ui", {"waitUntilIdle": 2000, "full": False})["hierarchy"]
    nodes = [n for root in roots for n in walk(root)]
    user = next(n for n in nodes if n["resource-id"].endswith("username"))
    assert user["editable"] and user["focused"] and user["class"] == "android.widget.EditText"
    assert set(user["rect"]) == {"x", "y", "width", "height"} and user["rect"]["width"] > 0
    assert all("children" not in n or n["children"] for n in nodes)  # only when there are some
    packages = [root["package"] for root in roots]
    assert "com.android.inputmethod.latin" not in packages
    full = _result(port, "device.dump.ui", {"full": True})["hierarchy"]
    assert full[0]["package"] == "com.android.inputmethod.latin"  # the keyboard is on top


def test_screenshot_is_encoded_shrunk_and_clipped_on_the_phone(sim_phone: SimPhone, tmp_path: Path) -> None:
    port = _start(sim_phone, tmp_path)
    shot = _result(port, "device.screenshot", {"format": "jpeg", "quality": 75, "maxSize": 1024, "scale": 1})
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"])))
    assert image.format == "JPEG" and image.size == (461, 1024)
    clip = {"x": 0, "y": 0, "width": 540, "height": 600}
    png = _result(port, "device.screenshot", {"format": "png", "clip": clip, "screenWidth": 1080})
    image = Image.open(io.BytesIO(base64.b64decode(png["data"])))
    assert image.format == "PNG" and image.size == (540, 600)
    assert _call(port, "device.screenshot", {"clip": clip})["error"]["code"] == -32602


def test_touches_keys_keyboard_and_location_act_on_the_world(sim_phone: SimPhone, tmp_path: Path) -> None:
    port = _start(sim_phone, tmp_path)
    world = sim_phone.device.world
    sim_phone.shell(f"am start -n {SIGN_IN}")
    roots = _result(port, "device.dump.ui")["hierarchy"]

    def rect(rid: str) -> dict[str, int]:
        stack = list(roots)
        while stack:
            node = stack.pop()
            if node["resource-id"].endswith(rid):
                return node["rect"]
            stack += node.get("children", [])
        raise AssertionError(rid)

    box = rect("username")
    x, y = box["x"] + box["width"] // 2, box["y"] + box["height"] // 2
    assert _result(port, "device.io.tap", {"x": x, "y": y}) == {"ok": True}
    activity = world.top_activity(0)
    assert activity.focus == "user" and world.ime_visible
    keys = [{"keycode": "KEYCODE_A"}, {"keycode": "KEYCODE_B", "modifiers": ["KEYCODE_SHIFT_LEFT"]}]
    _result(port, "device.io.keys", {"keys": keys})
    assert activity.fields["user"] == "ab"
    assert _call(port, "device.io.tap", {"x": 1.5, "y": 2})["error"]["code"] == -32602
    assert _result(port, "device.io.keyboard.hide") == {"dismissed": True} and not world.ime_visible
    assert _result(port, "device.io.keyboard.hide") == {"dismissed": False}
    _result(port, "device.io.longpress", {"x": x, "y": y, "duration": 800})
    assert activity.popup is not None and activity.popup["field"] == "user"

    sim_phone.shell("am start -n com.android.settings/.Settings")
    _result(port, "device.io.swipe", {"x1": 540, "y1": 1600, "x2": 540, "y2": 900, "duration": 300})
    assert max(world.top_activity(0).scroll.values()) > 0

    assert _result(port, "device.location.set", {"lat": 52.52, "lon": 13.405}) == {"ok": True}
    assert world.data["mock_location"] == {"lat": 52.52, "lon": 13.405}
    assert _call(port, "device.location.set", {"lat": 1})["error"] == {"code": -32602, "message": "missing params.lon"}
    _result(port, "device.location.clear")
    assert "mock_location" not in world.data
