"""Every state file is written through here: temp file, fsync, rename.

A crash at any point leaves either the old content or the new, never a mix.

Two guards hold for every file written here, so no caller can forget them:
- every configured secret (`mika.config.secrets`) is masked in what is written;
- files are 0600 and the folders created on the way 0700, whatever the umask
  (the records hold contacts, codes and screens).
Files that are *meant* to hold a secret (the config, key files) go through
`write_secret_file`, which keeps the text as given.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from mika.config.secrets import scrub, scrub_bytes, scrub_value

FILE_MODE = 0o600
DIR_MODE = 0o700


def ensure_dir(directory: Path | str) -> Path:
    """`mkdir -p` with every folder it creates set to 0700 (chmod after mkdir, so the
    umask can't loosen or tighten it). Folders that already exist are left alone."""
    directory = Path(directory)
    missing = []
    d = directory
    while not d.exists():
        missing.append(d)
        if d.parent == d:
            break
        d = d.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue  # another process made it meanwhile
        os.chmod(d, DIR_MODE)
    return directory


def write_bytes(path: Path | str, data: bytes, *, mode: int | None = None, redact: bool = True) -> None:
    path = Path(path)
    ensure_dir(path.parent)
    if redact:
        data = scrub_bytes(data)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), FILE_MODE if mode is None else mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_text(path: Path | str, text: str, *, mode: int | None = None) -> None:
    write_bytes(path, _utf8(text), mode=mode)  # masked there, as bytes


def _utf8(text: str) -> bytes:
    # A lone surrogate (a model's "\ud800" escape, a broken file name) can't be UTF-8; a
    # record that refused to be written would lose the event, so it becomes U+FFFD instead.
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def _json_text(value: Any, **options: Any) -> str:
    """JSON as readable UTF-8 where it can be; with \\u escapes where a string holds a
    lone surrogate, so the exact value still reads back and the line is still written."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, **options)
    return text


def write_secret_file(path: Path | str, text: str) -> None:
    """A file whose job is to hold a secret (config.toml, a key file): atomic and 0600,
    and not masked (masking would destroy the key it stores)."""
    write_bytes(path, text.encode("utf-8"), mode=FILE_MODE, redact=False)


def write_json(path: Path | str, value: Any, *, mode: int | None = None) -> None:
    # Masked value by value first, so the JSON stays valid whatever a secret contains.
    text = _json_text(scrub_value(value), indent=1, sort_keys=False) + "\n"
    write_text(path, text, mode=mode)


def append_line(path: Path | str, line: str) -> None:
    """Append one line to a JSONL file (append-only files are not rewritten)."""
    append_text(path, line.rstrip("\n") + "\n")


def append_json_line(path: Path | str, value: Any, *, sync: bool = True) -> None:
    """One JSON object as a JSONL line, masked value by value before serializing."""
    append_text(path, _json_text(scrub_value(value)) + "\n", sync=sync)


def append_text(path: Path | str, text: str, *, sync: bool = True) -> None:
    """Append to a log-like file (JSONL, crash.log): masked, 0600, fsynced — unless the
    caller syncs it itself (`sync=False`: a run's event log, mika.record.event_sync)."""
    path = Path(path)
    ensure_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o777 != FILE_MODE:
            os.fchmod(fd, FILE_MODE)  # the umask, or a file from an older Mika
        data = _utf8(scrub(text))
        while data:
            data = data[os.write(fd, data) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


STALE_TEMP_S = 600.0  # a write lasts milliseconds: a temp file this old was left by a kill


def tidy_state_dir(root: Path | str, *, now: float | None = None) -> list[Path]:
    """Put a state folder right at start: the folder itself 0700 (one made by an older Mika,
    or by hand, may be 0755 while it holds contacts and codes), and the temp files that a
    process killed between writing and renaming left behind removed. A temp file younger
    than STALE_TEMP_S may be a live process's write in progress and is left alone.
    Returns the files removed."""
    root = Path(root)
    if not root.is_dir():
        return []
    try:
        if root.stat().st_mode & 0o077:
            os.chmod(root, DIR_MODE)
    except OSError:
        pass  # not ours to change (a shared folder): the files inside are 0600 regardless
    cutoff = (time.time() if now is None else now) - STALE_TEMP_S
    removed = []
    for tmp in root.rglob(".*.tmp"):
        try:
            if tmp.is_file() and tmp.stat().st_mtime < cutoff:
                tmp.unlink()
                removed.append(tmp)
        except OSError:
            continue  # gone already, or renamed by its writer just now
    return removed


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
