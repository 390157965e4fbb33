"""The public MCP server @mobilenext/mobile-mcp 1.0.4 drives the simulated phone over a
real adb server, through the `mcp` SDK's stdio client (issue 35).

The peer is found at MIKA_PEER_MOBILE_MCP (its package dir, or its lib/index.js); this
test installs nothing. Without node or the peer it is skipped, unless MIKA_REQUIRE_PEER=1
(CI), where that is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.adb_env import ADB_BINARY, ADB_PORT, SimPhone


def _peer_entry() -> Path | None:
    raw = os.environ.get("MIKA_PEER_MOBILE_MCP", "")
    if not raw:
        return None
    p = Path(raw)
    for cand in (p, p / "lib" / "index.js", p / "node_modules" / "@mobilenext" / "mobile-mcp" / "lib" / "index.js"):
        if cand.is_file():
            return cand
    return None


def _need_peer() -> Path:
    node = shutil.which("node")
    entry = _peer_entry()
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


def _env(bin_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    # The peer and its mobilecli run `adb` from PATH against our private server.
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["ANDROID_ADB_SERVER_PORT"] = str(ADB_PORT)
    env["MOBILEMCP_DISABLE_TELEMETRY"] = "1"  # no network from tests
    # mobilecli starts a daemon that outlives the call and keeps the adb port it began
    # with; a home of our own keeps it apart from any other (and lets us stop it).
    env["MOBILECLI_HOME"] = os.path.join(bin_dir, "mobilecli-home")
    env.pop("ANDROID_HOME", None)
    return env


async def _call(session: ClientSession, name: str, **args: object) -> str:
    result = await session.call_tool(name, args)
    text = "".join(getattr(c, "text", "") for c in result.content)
    failed = getattr(result, "isError", None) or getattr(result, "is_error", False)
    assert not failed, f"{name}: {text}"
    return text


async def _drive(entry: Path, serial: str, bin_dir: str, shot: Path) -> dict[str, str]:
    params = StdioServerParameters(command="node", args=[str(entry)], env=_env(bin_dir))
    out: dict[str, str] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        out["tools"] = " ".join(sorted(tools))
        dev = {"device": serial}
        out["devices"] = await _call(session, "mobile_list_available_devices")
        out["size"] = await _call(session, "mobile_get_screen_size", **dev)
        out["orientation"] = await _call(session, "mobile_get_orientation", **dev)
        out["foreground"] = await _call(session, "mobile_get_foreground_app", **dev)
        out["launch"] = await _call(session, "mobile_launch_app", packageName="com.android.settings", **dev)
        out["foreground2"] = await _call(session, "mobile_get_foreground_app", **dev)
        out["elements"] = await _call(session, "mobile_list_elements_on_screen", **dev)
        out["back"] = await _call(session, "mobile_press_button", button="HOME", **dev)
        out["foreground3"] = await _call(session, "mobile_get_foreground_app", **dev)
        out["tap"] = await _call(session, "mobile_click_on_screen_at_coordinates", x=540, y=1200, **dev)
        out["save"] = await _call(session, "mobile_save_screenshot", saveTo=str(shot), **dev)
    return out


def _stop_daemon(entry: Path, bin_dir: str) -> None:
    modules = entry.resolve().parents[2]  # node_modules/@mobilenext/mobile-mcp/lib/index.js
    for binary in modules.glob("mobilecli-*/mobilecli-*"):
        if binary.is_file() and os.access(binary, os.X_OK):
            subprocess.run([str(binary), "daemon", "stop"], env=_env(bin_dir), capture_output=True, timeout=20)


def test_mobile_mcp_tools_on_the_sim(sim_phone: SimPhone) -> None:
    entry = _need_peer()
    with tempfile.TemporaryDirectory() as bin_dir:
        os.symlink(ADB_BINARY, os.path.join(bin_dir, "adb"))
        shot = Path(bin_dir) / "shot.png"
        try:
            out = asyncio.run(asyncio.wait_for(_drive(entry, sim_phone.serial, bin_dir, shot), 90))
        finally:
            _stop_daemon(entry, bin_dir)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "mobile_list_apps" in out["tools"] and "mobile_type_keys" in out["tools"]
    devices = json.loads(out["devices"])["devices"]
    assert any(d["id"] == sim_phone.serial and d["platform"] == "android" for d in devices)
    assert "1080" in out["size"] and "2400" in out["size"]
    assert "portrait" in out["orientation"]
    assert "com.android.launcher3" in out["foreground"]
    assert "com.android.settings" in out["foreground2"]
    assert 'text="Network & internet"' in out["elements"]
    assert "Clicked" in out["tap"] or "Tapped" in out["tap"] or "540" in out["tap"], out["tap"]
    assert "com.android.launcher3" in out["foreground3"]
