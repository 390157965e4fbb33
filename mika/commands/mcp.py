"""`mika mcp`: Mika as an MCP server (stdio by default, streamable HTTP with --http), and
`mika mcp servers …` (the MCP servers Mika's own runs use, mika/commands/mcp_servers.py)."""

from __future__ import annotations

import sys

import click

from mika.commands.mcp_servers import servers_group
from mika.exit_codes import ExitCode
from mika.pace_help import pace_option, with_pace_help
from mika.terminal_text import echo


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
    import asyncio

    from mika.cap.phone import PhoneOpenError
    from mika.config.errors import ConfigError
    from mika.headless_command import open_assembly
    from mika.mcp.http import BadHttpAddress, parse_address
    from mika.mcp.serve import serve
    from mika.model.errors import ModelError

    try:
        address = parse_address(http) if http else None
    except BadHttpAddress as exc:
        _fail(str(exc), ExitCode.USAGE)
        return
    try:
        asm = open_assembly(
            config_path or parent.get("config"),
            device=device or parent.get("device"),
            model=model or parent.get("model"),
        )
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)
        return
    except ModelError as exc:
        _fail(exc.user_message(), ExitCode.MODEL)
        return
    except PhoneOpenError as exc:
        _fail(str(exc), ExitCode.DEVICE)
        return
    try:
        asyncio.run(serve(asm, http=address))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        _fail(str(exc), ExitCode.USAGE)
    finally:
        asm.close()


# `mika mcp servers list|test`: the MCP servers Mika's own runs use (their own module).
mcp_group.add_command(servers_group)
