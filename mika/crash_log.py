"""`crash.log` in the state dir: the details behind "internal error", for both faces.

Appended through `mika.atomic_write.append_text`, so a configured key inside an
exception's message or repr is masked, and the file is 0600 (a traceback can carry
what the user typed).
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from mika.atomic_write import append_text


def write_crash_log(state_dir: Path, exc: BaseException | None, *, who: str) -> str:
    """Append one entry; returns the file's path, or "unavailable" if it can't be written."""
    path = Path(state_dir) / "crash.log"
    details = "".join(traceback.format_exception(exc)) if exc is not None else "unknown error\n"
    try:
        append_text(path, f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {who}\n{details}")
    except OSError:
        return "unavailable"
    return str(path)
