"""`mika mcp`: Mika as an MCP server (stdio by default, streamable HTTP with --http), and
`mika mcp servers …` (the MCP servers Mika's own runs use, mika/commands/mcp_servers.py)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from mika.commands.mcp_servers import servers_group
from mika.exit_codes import ExitCode
from mika.pace_help import pace_option, with_pace_help
from mika.terminal_text import echo

if TYPE_CHECKING:
    from mika.mcp.front_desk import FrontDesk


def _fail(message: str, code: ExitCode) -> None:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


@click.group("mcp", cls=with_pace_help("mcp", click.Group), invoke_without_command=True)
@click.option("--device", default=None, help="Phone serial, 'sim' for the simulated phone, or 'none'.")
@click.option("--model", default=None, help="Main model for run_task as PROVIDER/MODEL, or script:PATH.")
@click.option(
    "--http",
    "http",
    default=None,
    metavar="HOST:PORT",
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio. A non-loopback HOST "
    "needs the bearer token printed once at start.",
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@pace_option
@click.pass_context
def mcp_group(
    ctx: click.Context, device: str | None, model: str | None, http: str | None, config_path: str | None
) -> None:
    """Serve Mika to MCP clients: run_task, the phone's own tools, run records."""
    if ctx.invoked_subcommand is not None:
        return
    parent = ctx.obj or {}
    # Everything heavy (the SDK, models, the phone layer) loads only when serving.
    from mika.mcp.http import BadHttpAddress, parse_address

    try:
        address = parse_address(http) if http else None
    except BadHttpAddress as exc:
        _fail(str(exc), ExitCode.USAGE)
        return
    desk = None
    if address is None:
        # Over stdio the client's first requests are answered while the rest loads
        # (mika.mcp.front_desk): `initialize` at once, `tools/list` once the phone is known.
        from mika.mcp.front_desk import FrontDesk

        desk = FrontDesk.open(sys.stderr)
    _serve(
        desk, address, config_path or parent.get("config"), device or parent.get("device"), model or parent.get("model")
    )


def _serve(
    desk: FrontDesk | None,
    address: tuple[str, int] | None,
    config_path: str | None,
    device: str | None,
    model: str | None,
) -> None:
    import asyncio

    from mika.assembly import Assembly
    from mika.assembly.device import phone_open_error
    from mika.config.errors import ConfigError
    from mika.config.settings import load_settings
    from mika.mcp.listing import tool_entries
    from mika.model.errors import ModelError

    try:
        settings = load_settings(config_path)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)
        return
    wanted = device or settings.device or ""
    if desk is not None and wanted:
        # Named, the phone decides the tool list before it is opened: "none" lists no phone
        # tools, "sim" or a serial lists them (a serial that is not there still ends the
        # process with exit 3, below). Only "the one attached" needs the adb server first.
        desk.offer_tools(tool_entries(wanted != "none"))
    try:
        # The models' SDKs load at run_task's first call; the phone may attach meanwhile.
        asm = Assembly.open(settings, device=device, model=model, prepare_models=False, wait_for_phone=False)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)
        return
    except ModelError as exc:
        _fail(exc.user_message(), ExitCode.MODEL)
        return
    except phone_open_error() as exc:  # the phone stack is imported only to match it
        _fail(str(exc), ExitCode.DEVICE)
        return
    try:
        if desk is not None and not wanted:
            desk.offer_tools(tool_entries(bool(asm.device.serial)))
        asm.device.wait_ready()
    except phone_open_error() as exc:
        asm.close()
        _fail(str(exc), ExitCode.DEVICE)
        return
    from mika.mcp.serve import serve

    try:
        asyncio.run(serve(asm, http=address, front=desk))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        _fail(str(exc), ExitCode.USAGE)
    finally:
        asm.close()


# `mika mcp servers list|test`: the MCP servers Mika's own runs use (their own module).
mcp_group.add_command(servers_group)
