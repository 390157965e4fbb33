"""`mika mcp servers list [--json]` and `mika mcp servers test NAME`: the MCP servers in
`[mcp.servers.*]` whose tools Mika's runs use.

`list` reads the config only (nothing is started): name, transport, whether enabled, the
command line or address — never an env value or a header. `test NAME` starts the server
as a run would, lists its tools with the names and risks a run gives them, and stops it;
a server that cannot be started or listed is one sentence on stderr and exit 1. stdout
carries data only; never a traceback. The group is joined under `mika mcp` (the MCP
server face's command group adds it).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, NoReturn

import click

from mika.config.language import ui_language
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal, one_line

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "none": "No MCP servers are configured; add a [mcp.servers.NAME] table to {file} (see config.example.toml).",
        "col_name": "NAME",
        "col_transport": "TRANSPORT",
        "col_enabled": "ENABLED",
        "col_where": "COMMAND / URL",
        "col_tool": "TOOL",
        "col_risk": "RISK",
        "col_about": "DESCRIPTION",
        "yes": "yes",
        "no": "no",
        "unknown": "There is no MCP server named {name!r} in {file}{hint}. Configured: {names}.",
        "unknown_none": "There is no MCP server named {name!r}: none is configured in {file}.",
        "starting": "Starting MCP server {name} ({where}) …",
        "ok": "MCP server {name}: {n} tool(s); runs would offer them as listed above.",
        "ok_none": "MCP server {name} started but offers no tools.",
        "disabled": "Note: {name} is disabled in the config (enabled = false); runs do not use it.",
    },
    "zh": {
        "none": "没有配置 MCP 服务器；在 {file} 中加一个 [mcp.servers.NAME] 表（见 config.example.toml）。",
        "col_name": "名称",
        "col_transport": "传输",
        "col_enabled": "启用",
        "col_where": "命令 / 地址",
        "col_tool": "工具",
        "col_risk": "风险",
        "col_about": "说明",
        "yes": "是",
        "no": "否",
        "unknown": "{file} 中没有名为 {name!r} 的 MCP 服务器{hint}。已配置：{names}。",
        "unknown_none": "没有名为 {name!r} 的 MCP 服务器：{file} 中一个也没有配置。",
        "starting": "正在启动 MCP 服务器 {name}（{where}）…",
        "ok": "MCP 服务器 {name}：{n} 个工具；任务中会按上表提供。",
        "ok_none": "MCP 服务器 {name} 已启动，但没有提供工具。",
        "disabled": "注意：{name} 在配置中已停用（enabled = false），任务不会使用它。",
    },
}

ABOUT_MAX = 60  # characters of a tool's description in the table


def tr(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


def _fail(message: str, code: ExitCode = ExitCode.USAGE) -> NoReturn:
    echo(f"mika: {one_line(message)}", err=True)
    sys.exit(int(code))


def _settings(ctx: click.Context) -> Any:
    from mika.config.errors import ConfigError
    from mika.config.language import set_language
    from mika.config.secret_discovery import register_configured_secrets
    from mika.config.settings import load_settings

    root = ctx.find_root().obj or {}
    try:
        settings = load_settings(root.get("config"))
    except ConfigError as exc:
        _fail(str(exc))
    set_language(settings.language)
    # What the servers are given is masked in anything printed (an error may echo it).
    register_configured_secrets(settings)
    return settings


def _file(settings: Any) -> str:
    from mika.config.paths import config_file

    return str(settings.file or config_file(None))


def _table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        echo("  ".join([*(f"{c:<{w}}" for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip())


@click.group("servers", help="The MCP servers whose tools Mika's runs use ([mcp.servers.NAME] in the config).")
def servers_group() -> None:
    pass


@servers_group.command("list", help="The configured MCP servers (nothing is started).")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON: [{name, transport, enabled, command, args, url, env, headers}].",
)
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    settings = _settings(ctx)
    servers = settings.mcp_servers
    if as_json:
        echo(
            json_for_terminal(
                [
                    {
                        "name": s.name,
                        "transport": s.transport,
                        "enabled": s.enabled,
                        "command": s.command,
                        "args": list(s.args),
                        "url": s.url,
                        # Names only: the values are secrets.
                        "env": sorted(s.env),
                        "headers": sorted(s.headers),
                        "bearer_token_env": s.bearer_token_env,
                    }
                    for s in servers
                ],
                indent=1,
            )
        )
        return
    if not servers:
        echo(tr("none", file=_file(settings)), err=True)
        return
    rows = [[tr("col_name"), tr("col_transport"), tr("col_enabled"), tr("col_where")]]
    rows += [[s.name, s.transport, tr("yes") if s.enabled else tr("no"), one_line(s.where())] for s in servers]
    _table(rows)


@servers_group.command("test", help="Start server NAME as a run would, list its tools with their risk, stop it.")
@click.argument("name")
@click.pass_context
def test_command(ctx: click.Context, name: str) -> None:
    from mika.cap.mcp import list_server_tools
    from mika.cap.mcp.session import McpSession
    from mika.config.unknown_keys import did_you_mean

    settings = _settings(ctx)
    by_name = {s.name: s for s in settings.mcp_servers}
    server = by_name.get(name)
    if server is None:
        if not by_name:
            _fail(tr("unknown_none", name=name, file=_file(settings)))
        hint = did_you_mean(name, by_name)
        _fail(tr("unknown", name=name, file=_file(settings), hint=hint, names=", ".join(by_name)))
    echo(tr("starting", name=server.name, where=one_line(server.where())), err=True)

    async def probe() -> Any:
        session = McpSession()
        try:
            return (await list_server_tools([server], session))[0]
        finally:
            await asyncio.gather(*(c.close() for c in session.connections.values()), return_exceptions=True)

    try:
        offered = asyncio.run(probe())
    except KeyboardInterrupt:
        _fail("interrupted", ExitCode.INTERRUPTED)
    if offered.problem:
        _fail(offered.problem, ExitCode.NOT_DONE)
    if not offered.tools:
        echo(tr("ok_none", name=server.name), err=True)
    else:
        rows = [[tr("col_name"), tr("col_tool"), tr("col_risk"), tr("col_about")]]
        for tool in offered.tools:
            about = one_line(tool.server_description)
            about = about if len(about) <= ABOUT_MAX else about[: ABOUT_MAX - 1] + "…"
            rows.append([tool.name, one_line(tool.remote_name), tool.risk.value, about])
        _table(rows)
        echo(tr("ok", name=server.name, n=len(offered.tools)), err=True)
    if not server.enabled:
        echo(tr("disabled", name=server.name), err=True)
