"""The `mika` command.

    mika                      open the terminal app
    mika --no-ui GOAL         run one task headless (same as `mika run GOAL`)
    mika runs list|show ID    read run records
    mika sim | devices | models | usage | conversations | inspect …

stdout carries data only; diagnostics go to stderr. Exit codes: see mika/exit_codes.py.
No Python traceback ever reaches the user: known errors become one readable line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from mika import __version__
from mika.commands.config import config_group
from mika.commands.conversations import conversations_group
from mika.commands.devices import (
    connect_command,
    devices_command,
    disconnect_command,
    pair_command,
)
from mika.commands.inspect import inspect_live_command
from mika.commands.knowledge import knowledge_group
from mika.commands.memory import memory_group
from mika.commands.models import models_group
from mika.commands.run import run_command
from mika.commands.runs import runs_group
from mika.commands.sim import sim_group
from mika.commands.skills import skills_group
from mika.commands.usage import usage_command
from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.config.secret_streams import guard_std_streams
from mika.exit_codes import ExitCode
from mika.terminal_text import echo


def _fail(message: str, code: ExitCode) -> NoReturn:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mika")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Config file (default: $XDG_CONFIG_HOME/mika/config.toml).",
)
@click.option(
    "--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none' to run without one."
)
@click.option("--model", default=None, help="Main model as PROVIDER/MODEL (overrides [roles] main).")
@click.option(
    "--graphics",
    type=click.Choice(["auto", "halfcell", "kitty", "sixel"]),
    default=None,
    help="How the TUI draws the phone screen.",
)
@click.pass_context
def cli(
    ctx: click.Context, config_path: str | None, device: str | None, model: str | None, graphics: str | None
) -> None:
    """Mika: let a language model operate your Android phone from the terminal.

    \b
    mika                 open the terminal app
    mika --no-ui GOAL    run one task headless (same as `mika run GOAL`)

    \b
    Exit codes: 0 done, 1 not done, 2 usage or config error, 3 device unavailable,
    4 model provider error, 5 approval required or refused, 6 step budget used up,
    130 interrupted.
    """
    ctx.ensure_object(dict)
    ctx.obj.update(config=config_path, device=device, model=model, graphics=graphics)
    if ctx.invoked_subcommand is None:
        _open_tui(ctx.obj)


# The terminal app registers itself here (mika_tui.launcher, the console script's entry):
# the core never imports the TUI, and headless runs never load Textual.
_tui_opener: Callable[..., int] | None = None


def set_tui_opener(opener: Callable[..., int]) -> None:
    global _tui_opener
    _tui_opener = opener


def _open_tui(opts: dict[str, Any]) -> None:
    settings = _settings(opts.get("config"))
    if _tui_opener is None:
        _fail(
            "the terminal app is not available from this entry point; run `mika`, or use `mika --no-ui GOAL`",
            ExitCode.USAGE,
        )
    sys.exit(
        _tui_opener(
            settings=settings, device=opts.get("device"), model=opts.get("model"), graphics=opts.get("graphics")
        )
    )


def _settings(path: str | None):
    from mika.config.settings import load_settings

    try:
        return load_settings(path)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)


# Each group lives in its own module under mika/commands/ (cheap to import: see there).
cli.add_command(run_command)
cli.add_command(runs_group)
cli.add_command(conversations_group)
cli.add_command(models_group)
cli.add_command(usage_command)
cli.add_command(config_group)
cli.add_command(knowledge_group)
cli.add_command(skills_group)
cli.add_command(devices_command)
cli.add_command(connect_command)
cli.add_command(disconnect_command)
cli.add_command(pair_command)
cli.add_command(inspect_live_command)
cli.add_command(sim_group)
cli.add_command(memory_group)


def main(argv: list[str] | None = None) -> None:
    guard_std_streams()  # every configured secret is masked on stdout and stderr, whatever prints
    args = list(sys.argv[1:] if argv is None else argv)
    # `mika --no-ui GOAL …` is `mika run GOAL …` (options may come before or after).
    if "--no-ui" in args:
        args.remove("--no-ui")
        args.insert(0, "run")
    try:
        cli.main(args=args, prog_name="mika", standalone_mode=True)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)
    except KeyboardInterrupt:
        echo("mika: interrupted", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception as exc:  # the last line of defence: one readable line, details in the log
        log = _write_crash_log(exc)
        echo(f"mika: internal error: {type(exc).__name__}: {exc} (details: {log})", err=True)
        sys.exit(int(ExitCode.NOT_DONE))


def _write_crash_log(exc: BaseException) -> str:
    from mika.crash_log import write_crash_log

    return write_crash_log(state_dir(), exc, who=f"mika {__version__}")


if __name__ == "__main__":
    main()
