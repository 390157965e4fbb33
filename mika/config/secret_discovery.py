"""Which secrets this process has: found once at start from the config and environment,
and registered with `mika.config.secrets` so every write and output masks them.

`mika.assembly.Assembly.open` calls `register_configured_secrets(settings)` first, for every face.
The config's raw tables are read here, not through mika.model (a higher layer).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mika.config.paths import chatgpt_auth_file, state_dir
from mika.config.secrets import MIN_SECRET_LEN, REGISTRY

# The fields of the ChatGPT sign-in's token store that are secrets (mika.model.chatgpt.token_store).
_SIGN_IN_TOKENS = ("access_token", "refresh_token", "id_token")

# Environment variables whose values are secrets whatever the config says: a preset used
# by id (`--model deepseek/…`) reads DEEPSEEK_API_KEY without naming it in the config.
_SECRET_ENV_NAME = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)
# Header names whose values are public by design (presets declare them); never masked.
_PUBLIC_HEADERS = frozenset(
    {
        "user-agent",
        "http-referer",
        "referer",
        "x-title",
        "accept",
        "content-type",
        "accept-language",
        "anthropic-version",
        "anthropic-beta",
        "openai-beta",
    }
)
# "Bearer abc…", "Basic abc…", "token abc…": the server may echo only the part after the scheme.
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|key|apikey)\s+(\S+)$", re.I)


def configured_secrets(
    raw: Mapping[str, Any], config_file: Path | None, environ: Mapping[str, str] | None = None
) -> list[str]:
    """Every secret the config and environment hold: the value of each provider's
    `api_key_env`, the content of each `api_key_file`, each non-public header value (and
    the token after `Bearer`), the env values, headers and bearer tokens of
    `[mcp.servers.*]`, and any environment variable named like a key. Read here
    from the raw tables, not through mika.model (a higher layer); unreadable files are
    skipped (the model layer reports them when it needs the key)."""
    env = os.environ if environ is None else environ
    found: list[str] = []
    providers = raw.get("providers") if isinstance(raw, Mapping) else None
    for table in (providers or {}).values() if isinstance(providers, Mapping) else ():
        if not isinstance(table, Mapping):
            continue
        name = table.get("api_key_env")
        if isinstance(name, str) and env.get(name):
            found.append(env[name])
        key_file = table.get("api_key_file")
        if isinstance(key_file, str) and key_file:
            path = Path(key_file).expanduser()
            if not path.is_absolute() and config_file is not None:
                path = config_file.parent / path
            with contextlib.suppress(OSError, UnicodeDecodeError):
                found.append(path.read_text(encoding="utf-8"))
        headers = table.get("headers")
        if isinstance(headers, Mapping):
            found.extend(_header_secrets(headers))
    found.extend(_mcp_secrets(raw, env))
    for name, value in env.items():
        # Named like a key but not configured: only values shaped like one (no spaces, 12+).
        if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= 12 and not any(c.isspace() for c in value.strip()):
            found.append(value)
    return [s.strip() for s in found if isinstance(s, str) and len(s.strip()) >= MIN_SECRET_LEN]


def _mcp_secrets(raw: Mapping[str, Any], env: Mapping[str, str]) -> Iterable[str]:
    """`[mcp.servers.*]`: every env value given to a server, every header value, and the
    bearer token its `bearer_token_env` names (a server's env is where its keys live)."""
    mcp = raw.get("mcp") if isinstance(raw, Mapping) else None
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    for table in servers.values() if isinstance(servers, Mapping) else ():
        if not isinstance(table, Mapping):
            continue
        values = table.get("env")
        if isinstance(values, Mapping):
            yield from (v for v in values.values() if isinstance(v, str))
        headers = table.get("headers")
        if isinstance(headers, Mapping):
            yield from _header_secrets(headers)
        name = table.get("bearer_token_env")
        if isinstance(name, str) and env.get(name):
            yield env[name]


def _header_secrets(headers: Mapping[str, Any]) -> Iterable[str]:
    for name, value in headers.items():
        if not isinstance(value, str) or str(name).lower() in _PUBLIC_HEADERS:
            continue
        yield value
        m = _AUTH_SCHEME.match(value.strip())
        if m:
            yield m.group(1)


def stored_sign_in_secrets(path: Path) -> list[str]:
    """The tokens of a stored sign-in (`auth/chatgpt.json`); none when there is no such
    file or it cannot be read (then there is nothing in it to leak)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    return [v for k in _SIGN_IN_TOKENS if isinstance(v := data.get(k), str) and len(v) >= MIN_SECRET_LEN]


def register_configured_secrets(settings: Any) -> int:
    """The one start-up call of every face: registers what `configured_secrets` finds for
    these settings (a `mika.config.settings.Settings`), and the tokens of a stored
    ChatGPT sign-in. Returns how many were new."""
    found = register_config_secrets(getattr(settings, "raw", None) or {}, getattr(settings, "file", None))
    return found + sum(REGISTRY.add(s) for s in stored_sign_in_secrets(chatgpt_auth_file(state_dir())))


def register_config_secrets(raw: Mapping[str, Any], config_file: Path | None) -> int:
    """The same from a parsed config mapping (commands that read the TOML themselves)."""
    return sum(REGISTRY.add(s) for s in configured_secrets(raw, config_file))
