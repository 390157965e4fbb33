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
from mika.config.errors import ConfigError
from mika.config.secret_streams import guard_std_streams
from mika.exit_codes import ExitCode
from mika.pace_help import pace_option, with_pace_help
from mika.terminal_text import echo

# Every subcommand, by name: where it lives and the first paragraph of its help. `mika
# --help` prints these without importing any command module (each pulls in its own part
# of Mika: models, conversations, asyncio, tomlkit …, ~100 ms together); a command's module
# is imported only when that command runs or shows its own help.
# tests/core/test_cli_imports.py checks each summary against the command's own help.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": (
        "mika.commands.run:run_command",
        "Run one task headless and print its answer (also: mika --no-ui GOAL).",
    ),
    "runs": ("mika.commands.runs:runs_group", "Read the records of past runs."),
    "conversations": (
        "mika.commands.conversations:conversations_group",
        "List, show, rename and delete conversations.",
    ),
    "models": ("mika.commands.models:models_group", "Providers, presets and model roles."),
    "login": (
        "mika.commands.login:login_group",
        "Sign in with a ChatGPT plan instead of an API key (mika login chatgpt).",
    ),
    "logout": (
        "mika.commands.login:logout_command",
        "Sign out of ChatGPT: revoke the sign-in at OpenAI (best effort), delete the tokens here.",
    ),
    "usage": (
        "mika.commands.usage:usage_command",
        "Show how many tokens the models used, by time, provider and model.",
    ),
    "config": ("mika.commands.config:config_group", "Check the config file."),
    "knowledge": (
        "mika.commands.knowledge:knowledge_group",
        "App and site knowledge: the shipped files and your own (which win).",
    ),
    "skills": (
        "mika.commands.skills:skills_group",
        "Skills: shipped, your own (they win) and learned ones.",
    ),
    "devices": (
        "mika.commands.devices:devices_command",
        "Phones the adb server sees: serial, model, Android version, transport, state.",
    ),
    "connect": (
        "mika.commands.devices:connect_command",
        "Connect to a phone over Wi-Fi: HOST:PORT (from its wireless debugging page).",
    ),
    "disconnect": (
        "mika.commands.devices:disconnect_command",
        "Disconnect one Wi-Fi phone (HOST:PORT), or all of them.",
    ),
    "pair": (
        "mika.commands.devices:pair_command",
        "Pair with a phone's wireless debugging: HOST:PORT CODE, or --qr.",
    ),
    "inspect": (
        "mika.commands.inspect:inspect_live_command",
        "Show the screen listing Mika's model reads: for a saved dump, or a phone's live screen.",
    ),
    "sim": (
        "mika.commands.sim:sim_group",
        "Run a simulated Android phone that a real adb server can `adb connect` to.",
    ),
    "memory": (
        "mika.commands.memory:memory_group",
        "What Mika remembers about you: list, add, forget, approve.",
    ),
    "routes": (
        "mika.commands.routes:routes_group",
        "Routes recorded from verified runs and replayed without the model: list, show, delete.",
    ),
    "web": ("mika.commands.web:web_group", "Mika's own browser: the sites it is logged in to."),
    "eval": (
        "mika.commands.eval:eval_group",
        "Score a model on simulated-phone tasks: each on a fresh phone, with reports.",
    ),
    "serve": (
        "mika.commands.serve:serve_command",
        "Fire schedules: reminders, scheduled tasks and conditions (foreground; SIGTERM stops).",
    ),
    "schedule": (
        "mika.commands.schedule:schedule_group",
        "Schedules: add, list, pause, resume, delete, run now.",
    ),
    "mcp": ("mika.commands.mcp:mcp_group", "Serve Mika to MCP clients: run_task, the phone's own tools, run records."),
}


def load_subcommand(name: str) -> click.Command:
    """The real command object behind `name` (imports its module)."""
    from importlib import import_module

    module, attr = SUBCOMMANDS[name][0].split(":")
    return getattr(import_module(module), attr)


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, not at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*SUBCOMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in SUBCOMMANDS:
            return None
        command = load_subcommand(cmd_name)
        self.commands[cmd_name] = command  # imported once per process
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The listing from the summaries: a stand-in command per name formats its short
        # help exactly as the real one would, and imports nothing.
        stand_ins = {name: click.Command(name, help=summary) for name, (_, summary) in SUBCOMMANDS.items()}
        saved, self.commands = self.commands, {**stand_ins, **self.commands}
        try:
            super().format_commands(ctx, formatter)
        finally:
            self.commands = saved


def _fail(message: str, code: ExitCode) -> NoReturn:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


@click.group(
    cls=with_pace_help("mika", LazyGroup),
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
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
@pace_option
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
    4 model provider error (also: signed out of ChatGPT), 5 approval required or refused, 6 step budget used up,
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
        said = _model_error_sentence(exc)
        if said is not None:
            # A provider that failed (or a sign-in that ended) where no command caught it.
            _fail(said, ExitCode.MODEL)
        log = _write_crash_log(exc)
        echo(f"mika: internal error: {type(exc).__name__}: {exc} (details: {log})", err=True)
        sys.exit(int(ExitCode.NOT_DONE))


def _model_error_sentence(exc: BaseException) -> str | None:
    # Looked up, not imported: `mika --help` must not load mika.model, and a ModelError can
    # only have been raised once its module is loaded.
    errors = sys.modules.get("mika.model.errors")
    if errors is not None and isinstance(exc, errors.ModelError):
        return str(exc.user_message())
    return None


def _write_crash_log(exc: BaseException) -> str:
    from mika.config.paths import state_dir
    from mika.crash_log import write_crash_log

    return write_crash_log(state_dir(), exc, who=f"mika {__version__}")


if __name__ == "__main__":
    main()
