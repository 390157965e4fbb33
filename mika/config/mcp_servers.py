"""`[mcp.servers.NAME]`: the MCP servers whose tools a run may use, validated here.

    [mcp.servers.files]                 # stdio: Mika starts the command, talks over its pipes
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
    env = { NOTES_TOKEN = "…" }

    [mcp.servers.search]                # streamable HTTP
    url = "https://mcp.example.org/mcp"
    bearer_token_env = "SEARCH_MCP_TOKEN"
    headers = { "X-Team" = "me" }

Exactly one of `command` and `url`. Every `env` value, every header value and the bearer
token are secrets for this process (`mika.config.secret_discovery` registers them), so
they are masked in records and state files like provider keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.config.errors import ConfigError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
SERVER_KEYS = frozenset(
    {
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "bearer_token_env",
        "enabled",
        "start_timeout_s",
        "call_timeout_s",
    }
)
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    bearer_token_env: str = ""
    enabled: bool = True
    # Starting (spawn or connect) and the one tool listing, together.
    start_timeout_s: float = START_TIMEOUT_S
    # One tools/call; past it the call is a tool error and the server is left running.
    call_timeout_s: float = CALL_TIMEOUT_S

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def where(self) -> str:
        """What a person recognises the server by: its command line or its address (never
        its env or headers)."""
        if self.url:
            return self.url
        return " ".join((self.command, *self.args))


def _strings(value: Any, dotted: str, file: Path | None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(file, dotted, "a list of strings", value)
    return tuple(value)


def _table(value: Any, dotted: str, file: Path | None) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        # Never echo the values: they are secrets.
        raise ConfigError(file, dotted, 'a table of NAME = "value" strings')
    return {str(k): v for k, v in value.items()}


def _seconds(value: Any, dotted: str, file: Path | None, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 3600:
        raise ConfigError(file, dotted, "a number of seconds from 1 to 3600", value)
    return float(value)


def parse_server(name: str, table: Any, file: Path | None) -> McpServerConfig:
    base = f"mcp.servers.{name}"
    if not NAME.match(name):
        raise ConfigError(file, base, "a server name of letters, digits, - and _ (at most 40)", name)
    if not isinstance(table, dict):
        raise ConfigError(file, base, "a table with command (and args, env) or url")
    command = table.get("command", "")
    url = table.get("url", "")
    if not isinstance(command, str):
        raise ConfigError(file, f"{base}.command", "a string", command)
    if not isinstance(url, str):
        raise ConfigError(file, f"{base}.url", "a string", url)
    command, url = command.strip(), url.strip()
    if bool(command) == bool(url):
        raise ConfigError(file, base, "exactly one of command (a program Mika starts) and url (an MCP address)")
    if url and not re.match(r"^https?://[^\s/]+", url):
        raise ConfigError(file, f"{base}.url", "an http:// or https:// address", url)
    stdio_only = [k for k in ("args", "env", "cwd") if k in table and url]
    http_only = [k for k in ("headers", "bearer_token_env") if k in table and command]
    if stdio_only or http_only:
        wrong = (stdio_only or http_only)[0]
        raise ConfigError(file, f"{base}.{wrong}", f"no {wrong} for a server reached by {'url' if url else 'command'}")
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(file, f"{base}.enabled", "true or false", enabled)
    cwd = table.get("cwd", "")
    if not isinstance(cwd, str):
        raise ConfigError(file, f"{base}.cwd", "a string (a folder)", cwd)
    token_env = table.get("bearer_token_env", "")
    if not isinstance(token_env, str) or (token_env and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", token_env)):
        raise ConfigError(file, f"{base}.bearer_token_env", "the name of an environment variable", token_env)
    return McpServerConfig(
        name=name,
        command=command,
        args=_strings(table.get("args", []), f"{base}.args", file),
        env=_table(table.get("env", {}), f"{base}.env", file),
        cwd=cwd,
        url=url,
        headers=_table(table.get("headers", {}), f"{base}.headers", file),
        bearer_token_env=token_env,
        enabled=enabled,
        start_timeout_s=_seconds(table.get("start_timeout_s"), f"{base}.start_timeout_s", file, START_TIMEOUT_S),
        call_timeout_s=_seconds(table.get("call_timeout_s"), f"{base}.call_timeout_s", file, CALL_TIMEOUT_S),
    )


def parse_mcp_servers(data: Mapping[str, Any], file: Path | None) -> tuple[McpServerConfig, ...]:
    """The `[mcp.servers.*]` tables in file order (their order names the tools' order)."""
    mcp = data.get("mcp", {})
    if not isinstance(mcp, dict):
        raise ConfigError(file, "mcp", "a table", mcp)
    servers = mcp.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(file, "mcp.servers", "tables [mcp.servers.NAME]", servers)
    return tuple(parse_server(str(name), table, file) for name, table in servers.items())
