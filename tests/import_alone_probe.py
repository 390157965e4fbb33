"""Imports each module given on stdin alone, one child process per module; prints JSON.

Run as a script in a fresh interpreter (tests/test_modules_import_alone.py). The parent
imports no module of Mika: it loads only the third-party packages Mika's modules import
at their top (so each child does not pay for Textual or PyAV again), then forks one child
per module. A child starts with the parent's modules and none of Mika's, which is what a
fresh `python -c "import mika.x.y"` has of Mika: an import circle among Mika's modules
shows there exactly as it would there. Output: {"failed": {module: last line of error}}.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import sys
import traceback
from pathlib import Path

OWN = ("mika", "mika_tui")
WORKERS = 2


def third_party(root: Path, modules: list[str]) -> list[str]:
    """The import statements at the top of the modules that load something not Mika's,
    as source lines (so `from textual.widgets import Button` loads what it loads)."""
    lines: set[str] = set()
    for module in modules:
        path = root.joinpath(*module.split("."))
        file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in ast.parse(file.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                lines.update(f"import {a.name}" for a in node.names if a.name.partition(".")[0] not in OWN)
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.partition(".")[0] not in (*OWN, "__future__")
            ):
                lines.update(f"from {node.module} import {a.name}" for a in node.names)
    return sorted(lines)


def _child(module: str, write_fd: int) -> None:
    try:
        importlib.import_module(module)
        message = ""
    except BaseException as exc:  # a module's fault of any kind is what we report
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        message = last or type(exc).__name__
    os.write(write_fd, message.encode("utf-8", errors="replace")[:2000])
    os._exit(0)


def _start(module: str) -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(module, write_fd)
    os.close(write_fd)
    return pid, read_fd


def _finish(pid: int, read_fd: int) -> str:
    chunks = []
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    message = b"".join(chunks).decode("utf-8", errors="replace")
    if not message and status != 0:
        message = f"the import ended the process (wait status {status})"
    return message


def main() -> None:
    root = Path(sys.argv[1])
    sys.path[0] = str(root)  # the packages under root, not this script's folder
    modules = [line.strip() for line in sys.stdin if line.strip()]
    for line in third_party(root, modules):
        try:
            exec(line, {})
        except Exception:
            pass  # an optional dependency: the child that needs it reports it
    assert not [m for m in sys.modules if m.partition(".")[0] in OWN], "the parent must hold none of Mika"
    failed: dict[str, str] = {}
    running: list[tuple[str, int, int]] = []
    pending = list(modules)
    while pending or running:
        while pending and len(running) < WORKERS:
            module = pending.pop(0)
            running.append((module, *_start(module)))
        module, pid, read_fd = running.pop(0)
        if message := _finish(pid, read_fd):
            failed[module] = message
    print(json.dumps({"failed": failed, "checked": len(modules)}))


if __name__ == "__main__":
    main()
