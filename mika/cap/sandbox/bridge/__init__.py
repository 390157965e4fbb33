"""The sandbox's bridge to the run's other tools (seed §6 SandboxBridge): `mika phone <op>
'<json>'` inside a command. `server.py` is the per-command socket, `protocol.py` its wire,
`bin/mika` the standard-library client bound at /opt/mika/bin inside every command."""

from __future__ import annotations

from pathlib import Path

from mika.cap.sandbox.bridge.server import SandboxBridge, callable_tools

# The client's folder on this machine, bound read-only at /opt/mika/bin (first on PATH).
CLIENT_DIR = Path(__file__).resolve().parent / "bin"

__all__ = ["CLIENT_DIR", "SandboxBridge", "callable_tools"]
