"""The terminal app (placeholder until the TUI lands): says how to run headless."""

from __future__ import annotations

from typing import Any


def run_app(**_: Any) -> int:
    import sys

    sys.stderr.write("The terminal app is not built yet. Run a task with: mika --no-ui \"your task\"\n")
    return 2
