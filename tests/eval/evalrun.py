"""Running `mika eval` from the tests: the real command in-process (click's runner), its
task runs in their own processes (phone and headless run) on the tests' private adb
server (tests/adb_env sets its address in the environment, which the children inherit)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mika.cli import cli

MIXED = Path(__file__).with_name("tasks_mixed.json")


@dataclass
class EvalRun:
    code: int
    stdout: str
    stderr: str
    folder: Path

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.folder / "report.json").read_text(encoding="utf-8"))

    def rows(self) -> dict[str, dict[str, Any]]:
        return {r["task"]: r for r in self.report["rows"]}


def empty_config(folder: Path) -> Path:
    path = folder / "config.toml"
    path.write_text("", encoding="utf-8")
    return path


def mika(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def run_eval(folder: Path, *args: str) -> EvalRun:
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "report"
    code, out, err = mika("--config", str(empty_config(folder)), "eval", *args, "--report", str(report))
    return EvalRun(code, out, err, report)
