"""The two processes of one task run: its simulated phone (`mika sim --port 0`) and the
headless run (`mika run --output-format stream-json`) — Mika as a user runs it, so an
evaluation measures the product, not a harness beside it. Each task gets its own phone
on its own port; several run side by side on the one adb server."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import adbutils

from mika.cap.phone.adb.server import AdbServerError, adb_client

# `mika …` in this interpreter, whatever entry point this process was started from.
MIKA = [sys.executable, "-c", "import sys; from mika.cli import main; main(sys.argv[1:])"]


# Every child process alive now, so an interrupted evaluation ends them all (each runs in
# its own session, out of reach of the terminal's Ctrl+C).
_ALIVE: set[subprocess.Popen[str]] = set()
_ALIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _spawn(argv: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    with _ALIVE_LOCK:
        if _STOPPING.is_set():
            raise Interrupted()
        proc = subprocess.Popen(argv, text=True, stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        _ALIVE.add(proc)
    return proc


def stop_everything() -> None:
    """End every child process of this evaluation now (Ctrl+C); none starts after this."""
    _STOPPING.set()
    with _ALIVE_LOCK:
        alive = list(_ALIVE)
    for proc in alive:
        _stop(proc, grace=2.0)


def begin() -> None:
    """A new evaluation in this process: children may start again."""
    _STOPPING.clear()


def stopping() -> bool:
    return _STOPPING.is_set()


class Interrupted(Exception):
    """The evaluation was stopped while this task ran."""


class PhoneError(RuntimeError):
    """The task's simulated phone could not be started, reached or prepared."""


def _read_line(stream: IO[str], deadline: float) -> str | None:
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        if not sel.select(max(0.0, deadline - time.monotonic())):
            return None
    return stream.readline()


def _stop(proc: subprocess.Popen[str], grace: float = 5.0) -> None:
    with _ALIVE_LOCK:
        _ALIVE.discard(proc)
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class TaskPhone:
    """One simulated phone in its own process, attached to the adb server."""

    def __init__(self, env: dict[str, str], log: Path, timeout: float = 30.0) -> None:
        self.serial = ""
        self._log = log.open("w", encoding="utf-8")
        # Its own session and group: a timeout ends all of it.
        self.proc = _spawn([*MIKA, "sim", "--port", "0"], stdout=subprocess.PIPE, stderr=self._log, env=env)
        try:
            self._attach(timeout)
        except BaseException:
            self.close()
            raise

    def _attach(self, timeout: float) -> None:
        assert self.proc.stdout is not None
        line = _read_line(self.proc.stdout, time.monotonic() + timeout) or ""
        if not line.startswith("listening on "):
            raise PhoneError(
                f"the simulated phone did not start: {line.strip() or 'no port printed'} (see {self._log.name})"
            )
        self.serial = line.split()[-1]
        try:
            # The adb server Mika's runs use (this process's environment is the children's).
            self.client = adb_client()
            answer = self.client.connect(self.serial, timeout=timeout)
            if "connected to" not in answer:
                raise PhoneError(f"the adb server could not connect to {self.serial}: {answer}")
            self.client.wait_for(self.serial, transport="any", state="device", timeout=timeout)
        except (AdbServerError, adbutils.AdbError, OSError) as exc:
            raise PhoneError(
                f"the simulated phone {self.serial} did not come online in the adb server: {exc}"
            ) from None

    def shell(self, command: str) -> str:
        """The command's output; PhoneError when it fails (non-zero exit)."""
        try:
            ret = self.client.device(self.serial).shell2(command, timeout=60)
        except (adbutils.AdbError, OSError) as exc:
            raise PhoneError(f"`{command}` on {self.serial}: {exc}") from None
        if ret.returncode != 0:
            raise PhoneError(f"`{command}` on {self.serial} failed ({ret.returncode}): {str(ret.output).strip()[:300]}")
        return str(ret.output)

    def state(self) -> dict[str, Any]:
        text = self.shell("simctl state")
        try:
            data = json.loads(text)
        except ValueError:
            raise PhoneError(f"`simctl state` on {self.serial} is not JSON: {text[:200]!r}") from None
        if not isinstance(data, dict):
            raise PhoneError(f"`simctl state` on {self.serial} is not a JSON object")
        return data

    def close(self) -> None:
        if self.serial and hasattr(self, "client"):
            with contextlib.suppress(adbutils.AdbError, OSError):
                self.client.disconnect(self.serial)
        _stop(self.proc)
        self._log.close()


def _pump(stream: IO[str], out: queue.Queue[str]) -> None:
    for line in stream:
        out.put(line)
    out.put("")  # end of stream


# The first thing a person watching the run would see happen: a word of the answer, a
# tool called, an activity line, a held-back payment step.
FEEDBACK_TYPES = {"delta", "tool_call", "activity", "approval", "question"}


def run_headless_process(
    argv: list[str],
    env: dict[str, str],
    timeout: float,
    log: Path,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[int | None, dict[str, Any] | None, list[dict[str, Any]]]:
    """(exit code or None on timeout, the final result object or None, events)."""
    events: list[dict[str, Any]] = []
    result: dict[str, Any] | None = None
    with log.open("w", encoding="utf-8") as err:
        proc = _spawn([*MIKA, *argv], stdout=subprocess.PIPE, stderr=err, env=env)
        assert proc.stdout is not None
        # A reader thread: select() on a buffered text pipe misses lines already buffered.
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
        reader.start()
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:  # the deadline passed
                    return None, result, events
                if not line:
                    break
                try:
                    item = json.loads(line)
                except ValueError:
                    continue  # stdout carries only JSON lines; anything else is not ours
                if not isinstance(item, dict):
                    continue
                if item.get("type") == "result":
                    result = item
                else:
                    events.append(item)
                    if on_event is not None:
                        on_event(item)
            try:
                return proc.wait(max(1.0, deadline - time.monotonic())), result, events
            except subprocess.TimeoutExpired:
                return None, result, events
        finally:
            _stop(proc)
