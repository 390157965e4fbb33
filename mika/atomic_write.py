"""Every state file is written through here: temp file, fsync, rename.

A crash at any point leaves either the old content or the new, never a mix.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: Path | str, data: bytes, *, mode: int | None = None) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)


def write_text(path: Path | str, text: str, *, mode: int | None = None) -> None:
    write_bytes(path, text.encode("utf-8"), mode=mode)


def write_json(path: Path | str, value: Any, *, mode: int | None = None) -> None:
    write_text(path, json.dumps(value, ensure_ascii=False, indent=1, sort_keys=False) + "\n", mode=mode)


def append_line(path: Path | str, line: str) -> None:
    """Append one line to a JSONL file (append-only files are not rewritten)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(line.rstrip("\n") + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_json(path: Path | str, default: Any = None) -> Any:
    """Read a state file; a missing file gives `default`."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
