"""Everything `mika run` / `mika --no-ui` does before and after the run itself."""

from __future__ import annotations

import asyncio
import sys

import click

from mika.assembly import RunEnvironment, capabilities_for
from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.config.settings import load_settings
from mika.exit_codes import ExitCode
from mika.headless import run_headless
from mika.model.errors import ModelError
from mika.model_select import main_model
from mika.run.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.run.task_run import RunOptions


def _err(message: str) -> None:
    click.echo(f"mika: {message}", err=True)


def headless_main(
    *,
    goal: str,
    fmt: str,
    max_steps: int | None,
    read_only: bool,
    conversation_id: str | None,
    config_path: str | None,
    device: str | None,
    model: str | None,
) -> ExitCode:
    if not goal:
        _err("give the task in words, e.g. mika --no-ui \"turn on dark mode\"")
        return ExitCode.USAGE
    try:
        settings = load_settings(config_path)
        sdir = state_dir()
        chosen = main_model(settings, model, sdir)
    except ConfigError as exc:
        _err(str(exc))
        return ExitCode.USAGE
    except ModelError as exc:
        _err(exc.user_message())
        return ExitCode.MODEL
    # Headless runs have nobody to answer questions or approve payments.
    spec = RunSpec(
        goal=goal,
        provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED),
        conversation_id=conversation_id or "",
        read_only=read_only,
        step_budget=max_steps or 0,
    )
    env = RunEnvironment(autonomous=settings.autonomous)
    caps = capabilities_for(spec, env)
    options = RunOptions(autonomous=settings.autonomous, state_dir=sdir)
    try:
        outcome = asyncio.run(run_headless(spec, chosen, caps, options, fmt=fmt, out=sys.stdout, err=sys.stderr))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    return outcome.exit_code
