"""`mika config check`: is the config file what Mika expects?

Exit 0 with one OK line when it is; exit 2 with one line per problem when a key is unknown
(with the closest known key) or a value is wrong, so scripts and CI can gate on it.
"""

from __future__ import annotations

import sys

import click

from mika.config.errors import ConfigError
from mika.config.paths import config_file
from mika.config.settings import load_settings
from mika.exit_codes import ExitCode


@click.group("config")
def config_group() -> None:
    """Check the config file."""


@config_group.command("check")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Config file (default: $XDG_CONFIG_HOME/mika/config.toml).",
)
@click.pass_context
def check_command(ctx: click.Context, config_path: str | None) -> None:
    """Report unknown keys and bad values; exit 2 on any, 0 when the file is clean."""
    from mika.model.providers_config import load_providers

    explicit = config_path or (ctx.find_root().obj or {}).get("config")
    try:
        settings = load_settings(explicit, warn=None)
        load_providers(settings.raw, settings.file)
    except ConfigError as exc:
        click.echo(f"mika: {exc}", err=True)
        sys.exit(int(ExitCode.USAGE))
    if settings.warnings:
        for line in settings.warnings:
            click.echo(f"mika: {settings.file}: {line}", err=True)
        sys.exit(int(ExitCode.USAGE))
    if settings.file is None:
        click.echo(f"config OK: no file at {config_file(explicit)}; the defaults are used")
    else:
        click.echo(f"config OK: {settings.file}")
