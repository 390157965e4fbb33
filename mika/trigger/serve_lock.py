"""Whether a `mika serve` is running on this state dir: it holds an exclusive flock on
`<state>/serve.lock` for its whole life (the kernel drops it however it dies). The
schedule_task tool and `mika schedule add` use it to say that nothing fires without one."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from mika.atomic_write import ensure_dir


def _path(state_dir: Path) -> Path:
    return Path(state_dir) / "serve.lock"


def hold(state_dir: Path) -> int:
    """Take the lock as a running serve (shared: two serves are safe, the store keeps each
    window to one). Returns the fd to keep open."""
    ensure_dir(Path(state_dir))
    fd = os.open(_path(state_dir), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def serve_running(state_dir: Path) -> bool:
    path = _path(state_dir)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
