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
from mika.headless import UnknownConversation, run_headless
from mika.model.errors import ModelError
from mika.model_select import main_model
from mika.run.spec import RunSpec
from mika.run.task_run import RunOptions, TaskRun


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
    from mika.run.ui_text import set_language

    set_language(settings.ui_language)
    env = RunEnvironment(autonomous=settings.autonomous, state_dir=sdir)
    options = RunOptions(autonomous=settings.autonomous, state_dir=sdir)

    def factory(spec: RunSpec) -> TaskRun:
        return TaskRun(spec, chosen, capabilities_for(spec, env), options)

    try:
        outcome = asyncio.run(run_headless(
            goal, factory, sdir, conversation_id=conversation_id, read_only=read_only,
            step_budget=max_steps or 0, fmt=fmt, out=sys.stdout, err=sys.stderr,
        ))
    except UnknownConversation as exc:
        _err(f"no conversation {exc.args[0]!r} (see `mika conversations list`)")
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    return outcome.exit_code
