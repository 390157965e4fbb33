"""`mika mcp` over stdio answers a client's first requests before the heavy parts load
(issue 35; the time itself is benchmarks/first_answer.py's): `initialize` before any SDK,
phone stack or TUI is imported, `tools/list` before the MCP and model SDKs and (with a
phone) before adbutils / uiautomator2. The early answers are the ones the SDK gives: the
SDK's own answer to the same `initialize` is checked by the server itself (it says so on
stderr if they differ), and a later `tools/list`, answered by the SDK, is compared here.

The server is a real `mika` process (the console script's entry) with the wire's writes
watched: each line it writes to stdout is reported on stderr with the modules loaded at
that moment. The client is this test, speaking JSON-RPC lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.mcp_server.mcp_client import ROOT, script, server_env

# Reports, with each line the wire gets, the loaded modules of these top-level packages.
WATCHED = [
    "openai", "anthropic", "google", "adbutils", "uiautomator2", "requests", "urllib3", "PIL", "av",
    "textual", "playwright", "mcp", "mcp_types", "uvicorn", "starlette", "pydantic", "httpx", "httpx2",
]  # fmt: skip
NEVER_FIRST = [p for p in WATCHED if p != "PIL"]

# With gate=True the probe holds every import of a NEVER_FIRST package until the desk has answered
# `tools/list` (or 30 s went by, which it reports): the server's own thread would otherwise
# race the client's round trip, and on a loaded machine load the phone stack "first"
# without the answer having waited for it. Held, an answer that did wait for a heavy part
# never comes (the test fails on the report), and one that did not comes with nothing
# heavy loaded, every time.
_PROBE = """
import json, sys, threading
from mika.mcp import front_desk

watched = set(json.loads(sys.argv[1]))
held = set(json.loads(sys.argv[4]))
listed = threading.Event()
real_write = front_desk.StdioWire.write

class Gate:
    def find_spec(self, name, path=None, target=None):
        if "." not in name and name in held and not listed.is_set():
            if not listed.wait(30):
                sys.stderr.write("GATE-TIMEOUT " + name + "\\n")
                listed.set()  # reported once; the rest loads
        return None

if sys.argv[3] == "gate":
    sys.meta_path.insert(0, Gate())

def write(self, data):
    line = json.loads(data)
    loaded = sorted({m.split(".")[0] for m in sys.modules} & watched)
    sys.stderr.write("PROBE " + json.dumps({"line": line, "loaded": loaded}) + "\\n")
    sys.stderr.flush()
    real_write(self, data)
    if line.get("id") == 2:
        listed.set()

front_desk.StdioWire.write = write
from mika_tui.launcher import main
sys.argv = ["mika", *json.loads(sys.argv[2])]
main()
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


class Server:
    def __init__(self, tmp_path, *args: str, gate: bool = False) -> None:
        self.err_path = tmp_path / "server-stderr.txt"
        self._err = self.err_path.open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _PROBE,
                json.dumps(WATCHED),
                json.dumps(["mcp", *args]),
                "gate" if gate else "",
                json.dumps(NEVER_FIRST),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            env=server_env(tmp_path),
            cwd=str(ROOT),
        )

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in messages))
        self.proc.stdin.flush()

    def answer(self, rid: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            raw = self.proc.stdout.readline()
            assert raw, f"the server closed stdout before answering {rid}: {self.stderr()}"
            message = json.loads(raw)
            if message.get("id") == rid:
                return message

    def stderr(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.err_path.read_text(encoding="utf-8")

    def probes(self) -> dict[Any, list[str]]:
        """Per answered id, the watched packages loaded when the desk wrote the answer."""
        out: dict[Any, list[str]] = {}
        for line in self.stderr().splitlines():
            if line.startswith("PROBE "):
                report = json.loads(line[len("PROBE ") :])
                out.setdefault(report["line"].get("id"), report["loaded"])
        return out

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # the client leaves: the server ends
        code = self.proc.wait(timeout=60)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._err.close()
        return code


def _first_answers(server: Server) -> tuple[dict, dict, dict]:
    server.send(INITIALIZE)
    init = server.answer(1)
    server.send(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    )
    early = server.answer(2)
    # A ping only the SDK answers: once it is back the SDK has the wire, and it answers
    # the next tools/list itself.
    server.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert server.answer(3)["result"] == {}
    server.send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    late = server.answer(4)
    return init, early, late


@pytest.mark.parametrize("device", ["none", "sim"])
def test_first_answers_come_before_the_heavy_parts_and_equal_the_sdks(tmp_path, adb_server, device):
    server = Server(tmp_path, "--device", device, "--model", script(tmp_path, ["ok"]), gate=True)
    try:
        init, early, late = _first_answers(server)
    finally:
        assert server.close() == 0, server.stderr()
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert init["result"]["serverInfo"]["name"] == "mika"
    assert "differs from the SDK's" not in server.stderr()
    assert early["result"] == late["result"], "the desk's tool list is the SDK's"
    names = [t["name"] for t in early["result"]["tools"]]
    assert names[0] == "run_task"
    assert ("phone_tap" in names) is (device == "sim")

    assert "GATE-TIMEOUT" not in server.stderr(), "an early answer waited for a heavy import"
    probes = server.probes()
    assert probes[1] == [], f"initialize was answered after importing {probes[1]}"
    loaded = set(probes[2])
    assert not loaded & set(NEVER_FIRST), f"tools/list was answered after importing {sorted(loaded)}"
    if device == "none":
        assert not loaded, loaded
    # The later answers are the SDK's own (the wire's writes after the hand-over).
    assert "mcp" in probes[4] and "mcp_types" in probes[4]


def test_an_unknown_protocol_version_gets_the_newest_handshake_one(tmp_path):
    server = Server(tmp_path, "--device", "none", "--model", script(tmp_path, ["ok"]))
    try:
        odd = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "1999-01-01"}}
        server.send(odd)
        init = server.answer(1)
        server.send(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        )
        server.answer(3)  # the SDK has checked the desk's answer by now
    finally:
        assert server.close() == 0, server.stderr()
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    from mika.mcp import listing

    assert listing.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert init["result"]["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    assert "differs from the SDK's" not in server.stderr()


def test_the_listed_phone_tools_are_the_phone_sessions_own(sim_phone):
    """The desk lists the phone tools from their declarations, without a session; a
    session on a real (simulated) phone offers exactly those, with the same words."""
    import asyncio

    from mika.cap.phone import PhoneCapability
    from mika.cap.phone.adb.port import AdbPort
    from mika.mcp.listing import PHONE_TOOLS, tool_entries
    from mika.run.tool_session import ToolSession
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
    from mika.tool.declaration import Risk

    async def session_tools() -> list[dict[str, Any]]:
        cap = PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client()))
        session = ToolSession(RunSpec("look", RunProvenance(RunOrigin.MCP, Attendance.UNATTENDED)), [cap])
        session.start()
        try:
            tools = [session.tool(name) for name in PHONE_TOOLS]
        finally:
            await session.close()
        assert all(tools), [n for n, t in zip(PHONE_TOOLS, tools, strict=True) if t is None]
        return [
            {"name": t.name, "description": t.description(), "schema": dict(t.parameters), "read": t.risk is Risk.READ}
            for t in tools
            if t is not None
        ]

    listed = [
        {"name": e["name"], "description": e["description"], "schema": e["inputSchema"], "read": e["annotations"]["readOnlyHint"]}
        for e in tool_entries(True)[1:]
    ]  # fmt: skip
    assert listed == asyncio.run(session_tools())


def test_a_phone_that_is_not_there_still_ends_the_server_with_exit_3(tmp_path, adb_server):
    """The desk may have answered `initialize` already; the phone's error is still the
    process's: the sentence on stderr and exit 3, as before the desk."""
    server = Server(tmp_path, "--device", "no-such-serial", "--model", script(tmp_path, ["ok"]))
    server.send(INITIALIZE)
    assert server.answer(1)["result"]["serverInfo"]["name"] == "mika"
    assert server.close() == 3
    assert "mika: " in server.stderr() and "Traceback" not in server.stderr()
