"""The run recorder: `runs/<time>-<id>/run.json`, `events.jsonl` and frames.

Every event passes through the Redactor before it is written. JSONL is append-only;
run.json is rewritten atomically at start and end. The newest 30 runs are kept; the
metrics summary of each run goes to `run-metrics.jsonl` (newest 500 kept), which is
not trimmed with the runs.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from mika.atomic_write import append_json_line, ensure_dir, read_json, write_bytes, write_json, write_text
from mika.model.messages import Image
from mika.record.event_sync import SYNC
from mika.record.events import RunEvent
from mika.record.metrics import RunMetrics
from mika.record.redactor import Redactor

KEEP_RUNS = 30
KEEP_METRICS = 500


def runs_root(state_dir: Path) -> Path:
    return state_dir / "runs"


class RunRecorder:
    def __init__(
        self, state_dir: Path, run_id: str, redactor: Redactor | None = None, *, started: float | None = None
    ) -> None:
        self.state_dir = state_dir
        self.run_id = run_id
        self.redactor = redactor or Redactor()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(started or time.time()))
        self.dir = runs_root(state_dir) / f"{stamp}-{run_id}"
        ensure_dir(self.dir)  # 0700: the record holds contacts, codes and screens
        self.events_path = self.dir / "events.jsonl"
        self._events: list[dict[str, Any]] = []
        self._frames = 0
        self._summary: dict[str, Any] = {"id": run_id, "state": "running"}
        self.closed = False
        self.redactor.on_new_secret(self._scrub)

    def begin(self, summary: dict[str, Any]) -> None:
        self._summary.update(self.redactor.value(summary))
        write_json(self.dir / "run.json", self._summary)
        _prune(runs_root(self.state_dir), KEEP_RUNS, keep=self.dir)

    def __call__(self, event: RunEvent) -> None:
        if event.ephemeral or self.closed:
            return
        data = self.redactor.event_dict(event.to_dict())
        self._events.append(data)
        append_json_line(self.events_path, data, sync=False)
        SYNC.later(self.events_path)

    def _scrub(self) -> None:
        """Rewrite what is already on disk with the newly known secret masked. The one
        exception to append-only, done atomically, so a crash leaves old or new, never half."""
        self._events = [self.redactor.event_dict(e) for e in self._events]
        write_text(self.events_path, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self._events))

    def save_frame(self, image: Image, step: int) -> str:
        self._frames += 1
        ext = {"image/png": "png", "image/webp": "webp"}.get(image.mime, "jpg")
        name = f"frame-{self._frames:04d}-s{step}.{ext}"
        write_bytes(self.dir / "frames" / name, image.data)
        return name

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self._events)

    def close(self, summary: dict[str, Any]) -> RunMetrics:
        SYNC.now(self.events_path)
        metrics = RunMetrics.of(self._events)
        self._summary.update(self.redactor.value(summary))
        self._summary["state"] = "ended"
        self._summary["metrics"] = metrics.as_dict()
        write_json(self.dir / "run.json", self._summary)
        append_metrics(self.state_dir, metrics.as_dict())
        self.closed = True
        return metrics


def append_metrics(state_dir: Path, row: dict[str, Any]) -> None:
    path = state_dir / "run-metrics.jsonl"
    append_json_line(path, row)
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) > KEEP_METRICS:
        write_text(path, "\n".join(lines[-KEEP_METRICS:]) + "\n")


def _prune(root: Path, keep_n: int, keep: Path) -> None:
    """Keep the newest `keep_n` run folders, always including the current one."""
    others = sorted((d for d in root.iterdir() if d.is_dir() and d != keep), key=_age_key)
    for old in others[: max(0, len(others) + 1 - keep_n)]:
        shutil.rmtree(old, ignore_errors=True)


def _age_key(d: Path) -> tuple[float, str]:
    try:
        return (d.stat().st_mtime, d.name)
    except OSError:
        return (0.0, d.name)


def list_runs(state_dir: Path) -> list[dict[str, Any]]:
    """Every recorded run, newest first, from run.json (unreadable ones are skipped)."""
    root = runs_root(state_dir)
    if not root.is_dir():
        return []
    out = []
    for d in sorted(root.iterdir(), key=lambda d: d.name, reverse=True):
        try:
            data = read_json(d / "run.json")
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            data["dir"] = str(d)
            out.append(data)
    return out


def find_run(state_dir: Path, run_id: str) -> Path | None:
    root = runs_root(state_dir)
    if not root.is_dir():
        return None
    matches = [d for d in root.iterdir() if d.is_dir() and (d.name.endswith(run_id) or run_id in d.name)]
    return sorted(matches)[-1] if matches else None


def read_events(run_dir: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    path = run_dir / "events.jsonl"
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a crash
    return out
