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
import tempfile
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
    write_bytes(path, text.encode("utf-8"), mode=mode)  # masked there, as bytes


def write_secret_file(path: Path | str, text: str) -> None:
    """A file whose job is to hold a secret (config.toml, a key file): atomic and 0600,
    and not masked (masking would destroy the key it stores)."""
    write_bytes(path, text.encode("utf-8"), mode=FILE_MODE, redact=False)


def write_json(path: Path | str, value: Any, *, mode: int | None = None) -> None:
    # Masked value by value first, so the JSON stays valid whatever a secret contains.
    text = json.dumps(scrub_value(value), ensure_ascii=False, indent=1, sort_keys=False) + "\n"
    write_text(path, text, mode=mode)


def append_line(path: Path | str, line: str) -> None:
    """Append one line to a JSONL file (append-only files are not rewritten)."""
    append_text(path, line.rstrip("\n") + "\n")


def append_json_line(path: Path | str, value: Any) -> None:
    """One JSON object as a JSONL line, masked value by value before serializing."""
    append_text(path, json.dumps(scrub_value(value), ensure_ascii=False) + "\n")


def append_text(path: Path | str, text: str) -> None:
    """Append to a log-like file (JSONL, crash.log): masked, 0600, fsynced."""
    path = Path(path)
    ensure_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o777 != FILE_MODE:
            os.fchmod(fd, FILE_MODE)  # the umask, or a file from an older Mika
        data = scrub(text).encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    finally:
        os.close(fd)


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
