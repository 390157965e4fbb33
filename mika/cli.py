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
from typing import Any

import click

from mika import __version__
from mika.config.errors import ConfigError
from mika.config.paths import state_dir
from mika.config.secret_streams import guard_std_streams
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal, one_line

_OPTIONAL_COMMANDS = {
    # name: (module, attribute) — registered when the module is present.
    "sim": ("mika.sim.command", "sim_group"),
    "models": ("mika.model.commands", "models_group"),
    "usage": ("mika.usage.commands", "usage_command"),
    "config": ("mika.config.commands", "config_group"),
    "conversations": ("mika.run.commands", "conversations_group"),
    "inspect": ("mika.cap.phone.adb.inspect_live", "inspect_live_command"),
    "devices": ("mika.cap.phone.adb.commands", "devices_command"),
    "connect": ("mika.cap.phone.adb.commands", "connect_command"),
    "disconnect": ("mika.cap.phone.adb.commands", "disconnect_command"),
    "pair": ("mika.cap.phone.adb.commands", "pair_command"),
}


class MikaGroup(click.Group):
    """Loads the optional command modules only when one of them is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        for name, (module, _) in _OPTIONAL_COMMANDS.items():
            if _module_exists(module):
                names.add(name)
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in _OPTIONAL_COMMANDS:
            return cmd
        module, attr = _OPTIONAL_COMMANDS[name]
        if not _module_exists(module):
            return None
        import importlib

        return getattr(importlib.import_module(module), attr, None)


def _module_exists(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _fail(message: str, code: ExitCode) -> None:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


@click.group(cls=MikaGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mika")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default: $XDG_CONFIG_HOME/mika/config.toml).")
@click.option("--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none' to run without one.")
@click.option("--model", default=None, help="Main model as PROVIDER/MODEL (overrides [roles] main).")
@click.option("--graphics", type=click.Choice(["auto", "halfcell", "kitty", "sixel"]), default=None, help="How the TUI draws the phone screen.")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, device: str | None, model: str | None, graphics: str | None) -> None:
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
        _fail("the terminal app is not available from this entry point; run `mika`, or use `mika --no-ui GOAL`", ExitCode.USAGE)
    sys.exit(_tui_opener(settings=settings, device=opts.get("device"), model=opts.get("model"), graphics=opts.get("graphics")))


def _settings(path: str | None):
    from mika.config.settings import load_settings

    try:
        return load_settings(path)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)


@cli.command("run")
@click.argument("goal", nargs=-1, required=True)
@click.option("--output-format", "fmt", type=click.Choice(["text", "json", "stream-json"]), default="text", show_default=True)
@click.option("--max-steps", type=click.IntRange(min=1), default=None, help="End the run after this many steps (exit 6).")
@click.option("--read-only", is_flag=True, help="Only read: no tool that changes anything is offered.")
@click.option("--conversation", "conversation_id", default=None, help="Continue this conversation.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none'.")
@click.option("--model", default=None, help="Main model as PROVIDER/MODEL, or script:PATH.")
@click.pass_context
def run_command(ctx: click.Context, goal: tuple[str, ...], fmt: str, max_steps: int | None, read_only: bool,
                conversation_id: str | None, config_path: str | None, device: str | None, model: str | None) -> None:
    """Run one task headless and print its answer (also: mika --no-ui GOAL)."""
    parent = ctx.obj or {}
    from mika.headless_command import headless_main

    code = headless_main(
        goal=" ".join(goal).strip(), fmt=fmt, max_steps=max_steps, read_only=read_only,
        conversation_id=conversation_id, config_path=config_path or parent.get("config"),
        device=device or parent.get("device"), model=model or parent.get("model"),
    )
    sys.exit(int(code))


@cli.group("runs")
def runs_group() -> None:
    """Read the records of past runs."""


def _add_recover() -> None:
    from mika.run.commands import runs_recover_command

    runs_group.add_command(runs_recover_command)


_add_recover()


@runs_group.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", type=int, default=30, show_default=True)
def runs_list(as_json: bool, limit: int) -> None:
    """Past runs, newest first."""
    from mika.record.recorder import list_runs

    runs = list_runs(state_dir())[:limit]
    if as_json:
        echo(json_for_terminal(runs, indent=1))
        return
    if not runs:
        echo("No runs recorded yet.", err=True)
        return
    for r in runs:
        m = r.get("metrics", {})
        secs = (m.get("total_ms") or 0) / 1000
        echo(f"{one_line(r.get('id', '?')):12} {one_line(r.get('outcome', r.get('state', '?'))):18} "
             f"{m.get('steps', 0):>3} steps {secs:7.1f}s  {one_line(str(r.get('goal', ''))[:60])}")


@runs_group.command("show")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print run.json and every event.")
def runs_show(run_id: str, as_json: bool) -> None:
    """One run: its summary and timeline."""
    from mika.atomic_write import read_json
    from mika.record.recorder import find_run, read_events

    run_dir = find_run(state_dir(), run_id)
    if run_dir is None:
        _fail(f"no run {run_id!r} in {state_dir() / 'runs'} (see `mika runs list`)", ExitCode.USAGE)
    summary = read_json(run_dir / "run.json", {}) or {}
    events = read_events(run_dir)
    if as_json:
        echo(json_for_terminal({"run": summary, "events": events}, indent=1))
        return
    echo(one_line(f"run {summary.get('id')} · {summary.get('outcome', summary.get('state'))} · {summary.get('goal', '')}"))
    for e in events:
        t = e.get("type")
        if t == "tool_call":
            echo(f"  step {e.get('step')}: {one_line(e.get('name'))} {json_for_terminal(e.get('arguments', {}))}")
        elif t == "tool_result":
            flag = "ok" if e.get("ok") else f"! {e.get('code')}"
            echo(f"    → {one_line(flag)} {one_line(str(e.get('text', ''))[:100])}")
        elif t == "outcome":
            echo("  " + one_line(f"outcome: {e.get('status')} {e.get('subtype', '')}: {str(e.get('answer', ''))[:200]}"))


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
