"""Two Mika processes on one state dir: a lock around every read-modify-write, and
leases that tell a live process from a dead one.

The lock is `fcntl.flock` on a sibling `.lock` file that is never deleted (deleting a
lock file while someone waits on it would let two holders in). The write itself still
goes through `mika.atomic_write`, so a crash inside the lock leaves the old file.

A lease is a file each process holds an exclusive flock on for its whole life. The
kernel drops the flock when the process dies, however it dies (SIGKILL included), so
"can I take this lease?" is an exact answer to "is its owner gone?" — no pid reuse
guesswork.

A lease file is removed when its process releases it, at the latest when the interpreter
exits (atexit); one left by a killed process is removed by `sweep_leases`, which recovery
runs at every start, so `leases/` holds about one file per live process.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mika.atomic_write import STALE_TEMP_S, ensure_dir, write_json

log = logging.getLogger("mika.run")

# flock belongs to an open file description, so two threads (or two processes) that
# each open the lock file exclude each other. The same thread nesting the lock would
# deadlock on itself; this per-thread set makes nested use a no-op instead.
_held = threading.local()


class StateFileError(Exception):
    """A state file could not be read or locked; the sentence says which and what to do."""


@contextlib.contextmanager
def state_lock(path: Path | str) -> Iterator[None]:
    """Hold the exclusive lock for `path` (a state file or a directory of them)."""
    lock_path = Path(str(path) + ".lock")
    held: set[str] = getattr(_held, "paths", None) or set()
    _held.paths = held
    key = str(lock_path)
    if key in held:  # nested use in the same thread: already ours
        yield
        return
    ensure_dir(lock_path.parent)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StateFileError(
            f"Cannot open the lock file {lock_path}: {exc.strerror}. Check that the state directory is writable."
        ) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_state(path: Path | str, default: Any) -> Any:
    """Read a JSON state file. A file that is not valid JSON (hand-edited, disk fault)
    is moved aside to `<name>.corrupt-<time>` and `default` returned, so one bad file
    never stops Mika from starting; the move is logged with both names."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return default
    except (json.JSONDecodeError, UnicodeDecodeError):
        quarantine(path, "was not valid JSON")
        return default


def quarantine(path: Path | str, why: str) -> Path:
    """Move a state file Mika can't use to `<name>.corrupt-<time>` (kept for the user
    to look at) so the next write starts fresh; logged with both names."""
    path = Path(path)
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d%H%M%S')}")
    with contextlib.suppress(OSError):
        os.replace(path, aside)
    log.warning("state file %s %s; moved it to %s and started fresh", path, why, aside)
    return aside


def update_json(path: Path | str, change: Callable[[Any], Any], default: Any) -> Any:
    """Locked read-modify-write: `change` gets the current value (or `default`) and
    returns the new one, which is written atomically. Returns what was written."""
    path = Path(path)
    with state_lock(path):
        value = read_state(path, default)
        new = change(value)
        write_json(path, new)
        return new


# -- leases --------------------------------------------------------------------------


def _lease_dir(state_dir: Path) -> Path:
    return Path(state_dir) / "leases"


class ProcessLease:
    """This process's lease on a state dir. Records (runs, borrowed things) carry its
    token; another process may treat them as orphaned only once the lease is free."""

    def __init__(self, state_dir: Path | str) -> None:
        self.state_dir = Path(state_dir)
        self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._fd: int | None = None

    def acquire(self) -> ProcessLease:
        if self._fd is not None:
            return self
        directory = _lease_dir(self.state_dir)
        ensure_dir(directory)
        while True:
            # Locked under a temporary name, then renamed: a checker never sees the lease
            # file before it is held (it would take it for a dead one and remove it).
            tmp = directory / f".{self.token}.new"
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.replace(tmp, directory / f"{self.token}.lock")
                break
            except (BlockingIOError, FileNotFoundError):
                # A sweep took the temp file for a dead acquire's (between our open and
                # our flock) and holds or removed it: start again under a new name.
                os.close(fd)
                tmp.unlink(missing_ok=True)
                self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
            except BaseException:
                os.close(fd)
                raise
        self._fd = fd
        with _held_leases_lock:
            _held_leases.add(self)
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with _held_leases_lock:
            _held_leases.discard(self)
        try:
            (_lease_dir(self.state_dir) / f"{self.token}.lock").unlink(missing_ok=True)
        finally:
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None


# Every lease this process holds, released at exit: the kernel would drop the flocks
# anyway, but only a release removes the files (a normal `mika runs recover` left its own).
_held_leases: set[ProcessLease] = set()
_held_leases_lock = threading.Lock()


@atexit.register
def _release_at_exit() -> None:
    with _held_leases_lock:
        leases = list(_held_leases)
    for lease in leases:
        with contextlib.suppress(OSError):
            lease.release()


_process_leases: dict[str, ProcessLease] = {}
_process_leases_lock = threading.Lock()


def process_lease(state_dir: Path | str) -> ProcessLease:
    """The one lease this process holds on `state_dir` (taken on first use, kept until exit)."""
    key = str(Path(state_dir).resolve())
    with _process_leases_lock:
        lease = _process_leases.get(key)
        if lease is None or not lease.held:
            lease = ProcessLease(state_dir).acquire()
            _process_leases[key] = lease
        return lease


def lease_alive(state_dir: Path | str, token: str) -> bool:
    """True while the process that took lease `token` is still running."""
    if not token:
        return False
    for lease in list(_process_leases.values()):
        if lease.token == token and lease.held:
            return True
    path = _lease_dir(Path(state_dir)) / f"{token}.lock"
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False  # released cleanly, or never existed
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        # We got it: the owner is dead. Remove the stale file while we hold it.
        fcntl.flock(fd, fcntl.LOCK_UN)
        path.unlink(missing_ok=True)
        return False
    finally:
        os.close(fd)


def sweep_leases(state_dir: Path | str, *, now: float | None = None) -> list[Path]:
    """Remove the lease files of processes that are gone; returns the files removed.

    A `<token>.lock` whose flock can be taken has no holder: it is removed while we hold
    its flock, so nobody can be holding it at that moment. A held one is never touched.
    No acquire can be caught half-way, because a lease only gets its `.lock` name once it
    is held. A `.<token>.new` is an acquire between its open and its rename (microseconds);
    one that can be locked and is older than STALE_TEMP_S was left by a process killed
    there. A younger one may be an acquire that has not taken its flock yet: left alone
    (and if a sweep did take one, that acquire starts again under a new name)."""
    directory = _lease_dir(Path(state_dir))
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    cutoff = (time.time() if now is None else now) - STALE_TEMP_S
    removed = []
    for name in names:
        path = directory / name
        # Our own leases are held too (flock is per open file: our second open can't take it).
        if name.endswith(".lock"):
            stale = _remove_if_free(path)
        elif name.startswith(".") and name.endswith(".new"):
            stale = _remove_if_free(path, older_than=cutoff)
        else:
            continue
        if stale:
            removed.append(path)
    return removed


def _remove_if_free(path: Path, *, older_than: float | None = None) -> bool:
    """Unlink `path` if its flock can be taken (and, with `older_than`, it was last
    changed before then), holding the flock while it goes."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False  # gone already (released, renamed, swept by another start)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # held: its process is alive
        try:
            st = os.fstat(fd)
            if older_than is not None and st.st_mtime >= older_than:
                return False
            # The name must still be this file: never unlink a file we don't hold.
            if os.stat(path).st_ino != st.st_ino:
                return False
            path.unlink()
            return True
        except OSError:
            return False
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
