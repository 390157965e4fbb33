"""The config file, validated in one place.

TOML at config_file() (see paths.py). Every key is documented in config.example.toml.
A bad file names the file, the key and what was expected. Environment variables
MIKA_LANGUAGE, MIKA_AUTONOMOUS, MIKA_PACE, MIKA_DEVICE, MIKA_REPLAY, MIKA_LEARNING_SKILLS,
MIKA_MEMORY_USE and MIKA_MEMORY_AUTO_EXTRACT override the file.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.config.errors import ConfigError
from mika.config.language import CHOICES as LANGUAGES
from mika.config.language import decide
from mika.config.mcp_servers import McpServerConfig, parse_mcp_servers
from mika.config.paths import config_file
from mika.config.unknown_keys import unknown_keys

PACES = ("fast", "standard", "human")
GRAPHICS = ("auto", "halfcell", "kitty", "sixel")
NOTIFY = ("auto", "bell", "off")
PHONE_DISPLAYS = ("virtual", "main")
# [phone] picture_long_side: the sizes the TUI offers (any 320–4096 is valid in the file).
PICTURE_SIDES = (768, 1024, 1280, 1568, 2048)
# [phone] picture_format: WebP is about half JPEG's bytes for the same screen; JPEG for
# a provider or local server that can't read WebP.
PICTURE_FORMATS = ("webp", "jpeg")


@dataclass(frozen=True)
class Settings:
    file: Path | None = None
    language: str = "auto"
    autonomous: bool = False
    pace: str = "standard"
    device: str = ""
    graphics: str = "auto"
    # [ui] notify: when a run needs the user while the terminal is in the background —
    # "auto" (bell + desktop notification), "bell" (bell only) or "off".
    notify: str = "auto"
    max_parallel: int = 1
    # After delivery, a side call judges done / partial / not possible (never changes the answer).
    judge_outcome: bool = True
    # Check numbers, ids and quotes of an answer against what was read (the seed keeps it off).
    review_final_answer: bool = False
    # [run] replay: a new goal matching a verified route is done again without the model
    # (seed §9 照着上次的做法做, off by default). Env: MIKA_REPLAY.
    replay: bool = False
    # [sandbox]: the Linux sandbox (bubblewrap). `sandbox_enabled`: offer its tools where
    # bwrap runs; `sandbox_network`: commands may reach the network (a run can't turn it on);
    # `sandbox_cpu_seconds`: the CPU time all of one run's commands may use together.
    sandbox_enabled: bool = True
    sandbox_network: bool = False
    sandbox_cpu_seconds: int = 300
    # [learning] skills: draft personal skills from verified runs (seed: off by default).
    learning_skills: bool = False
    keymap: dict[str, str] = field(default_factory=dict)
    # [phone] display: "virtual" (the agent works on a display of its own) or "main".
    phone_display: str = "virtual"
    # [phone] keep_apps_after_run: the run's apps move to the main screen at its end
    # (true) instead of being closed with its display (false, the default).
    keep_apps_after_run: bool = False
    # [phone] picture_long_side: the longest side, in pixels, of a phone picture sent to a
    # model (phone_screenshot, the vision tools); scaled down to it, never up.
    picture_long_side: int = 1024
    # [phone] picture_format: how that picture is encoded, "webp" (the default) or "jpeg".
    picture_format: str = "webp"
    # [memory] use: memory_search/memory_save and the run-start memory block (seed: on).
    memory_use: bool = True
    # [memory] auto_extract: after an answered conversation run, remember what the user said (seed: on).
    memory_auto_extract: bool = True
    # [web]: Mika's own browser. `web_enabled`: offer the web tools when a browser can be
    # found; `web_browser`: "auto" or the path of a Chromium/Chrome executable.
    web_enabled: bool = True
    web_browser: str = "auto"
    web_headless: bool = True
    web_download_cap_mb: int = 100
    # [mcp.servers.NAME]: MCP servers whose tools runs may use (mika.config.mcp_servers).
    mcp_servers: tuple[McpServerConfig, ...] = ()
    # [providers.*] and [roles], parsed by mika.model.providers_config.
    raw: dict[str, Any] = field(default_factory=dict)
    # Keys the file has that Mika does not know, each a sentence ("… did you mean …?").
    warnings: tuple[str, ...] = ()

    @property
    def ui_language(self) -> str:
        return decide(self.language)


def _pick(
    data: dict[str, Any],
    table: str,
    key: str,
    kind: type,
    default: Any,
    file: Path | None,
    choices: tuple[str, ...] = (),
) -> Any:
    section = data.get(table, {})
    if not isinstance(section, dict):
        raise ConfigError(file, table, "a table", section)
    value = section.get(key, default)
    dotted = f"{table}.{key}"
    if kind is bool and not isinstance(value, bool):
        raise ConfigError(file, dotted, "true or false", value)
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise ConfigError(file, dotted, "a whole number", value)
    if kind is str and not isinstance(value, str):
        raise ConfigError(file, dotted, "a string", value)
    if choices and value not in choices:
        raise ConfigError(file, dotted, "one of " + ", ".join(choices), value)
    return value


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(None, name, "1/0, true/false, yes/no or on/off", raw)


def parse_settings(data: dict[str, Any], file: Path | None = None) -> Settings:
    language = os.environ.get("MIKA_LANGUAGE") or _pick(data, "general", "language", str, "auto", file, LANGUAGES)
    if language not in LANGUAGES:
        raise ConfigError(None, "MIKA_LANGUAGE", "one of " + ", ".join(LANGUAGES), language)
    pace = os.environ.get("MIKA_PACE") or _pick(data, "general", "pace", str, "standard", file, PACES)
    if pace not in PACES:
        raise ConfigError(None, "MIKA_PACE", "one of " + ", ".join(PACES), pace)
    autonomous = _env_bool("MIKA_AUTONOMOUS", _pick(data, "general", "autonomous", bool, False, file))
    device = os.environ.get("MIKA_DEVICE") or _pick(data, "device", "default", str, "", file)
    graphics = _pick(data, "ui", "graphics", str, "auto", file, GRAPHICS)
    notify = _pick(data, "ui", "notify", str, "auto", file, NOTIFY)
    max_parallel = _pick(data, "run", "max_parallel", int, 1, file)
    judge_outcome = _pick(data, "run", "judge_outcome", bool, True, file)
    review_final_answer = _pick(data, "run", "review_final_answer", bool, False, file)
    replay = _env_bool("MIKA_REPLAY", _pick(data, "run", "replay", bool, False, file))
    sandbox_enabled = _pick(data, "sandbox", "enabled", bool, True, file)
    sandbox_network = _pick(data, "sandbox", "network", bool, False, file)
    sandbox_cpu_seconds = _pick(data, "sandbox", "cpu_seconds", int, 300, file)
    if not 1 <= sandbox_cpu_seconds <= 86_400:
        raise ConfigError(file, "sandbox.cpu_seconds", "a number of seconds from 1 to 86400", sandbox_cpu_seconds)
    learning_skills = _env_bool("MIKA_LEARNING_SKILLS", _pick(data, "learning", "skills", bool, False, file))
    if not 1 <= max_parallel <= 3:
        raise ConfigError(file, "run.max_parallel", "a number from 1 to 3", max_parallel)
    phone_display = _pick(data, "phone", "display", str, "virtual", file, PHONE_DISPLAYS)
    keep_apps_after_run = _pick(data, "phone", "keep_apps_after_run", bool, False, file)
    picture_long_side = _pick(data, "phone", "picture_long_side", int, 1024, file)
    if not 320 <= picture_long_side <= 4096:
        raise ConfigError(file, "phone.picture_long_side", "a number of pixels from 320 to 4096", picture_long_side)
    picture_format = _pick(data, "phone", "picture_format", str, "webp", file, PICTURE_FORMATS)
    memory_use = _env_bool("MIKA_MEMORY_USE", _pick(data, "memory", "use", bool, True, file))
    memory_auto_extract = _env_bool("MIKA_MEMORY_AUTO_EXTRACT", _pick(data, "memory", "auto_extract", bool, True, file))
    web_enabled = _pick(data, "web", "enabled", bool, True, file)
    web_browser = _pick(data, "web", "browser", str, "auto", file).strip()
    if not web_browser:
        raise ConfigError(file, "web.browser", '"auto" or the path of a Chromium or Chrome executable', web_browser)
    web_headless = _pick(data, "web", "headless", bool, True, file)
    web_download_cap_mb = _pick(data, "web", "download_cap_mb", int, 100, file)
    if not 1 <= web_download_cap_mb <= 10_000:
        raise ConfigError(file, "web.download_cap_mb", "a number of megabytes from 1 to 10000", web_download_cap_mb)
    mcp_servers = parse_mcp_servers(data, file)
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict) or not all(isinstance(v, str) for v in keymap.values()):
        raise ConfigError(file, "keymap", 'a table of binding id = "key" strings', keymap)
    return Settings(
        file=file,
        language=language,
        autonomous=autonomous,
        pace=pace,
        device=device,
        graphics=graphics,
        notify=notify,
        max_parallel=max_parallel,
        judge_outcome=judge_outcome,
        review_final_answer=review_final_answer,
        replay=replay,
        sandbox_enabled=sandbox_enabled,
        sandbox_network=sandbox_network,
        sandbox_cpu_seconds=sandbox_cpu_seconds,
        learning_skills=learning_skills,
        keymap=dict(keymap),
        phone_display=phone_display,
        keep_apps_after_run=keep_apps_after_run,
        picture_long_side=picture_long_side,
        picture_format=picture_format,
        memory_use=memory_use,
        memory_auto_extract=memory_auto_extract,
        web_enabled=web_enabled,
        web_browser=web_browser,
        web_headless=web_headless,
        web_download_cap_mb=web_download_cap_mb,
        mcp_servers=mcp_servers,
        raw=data,
        warnings=tuple(unknown_keys(data)),
    )


def _to_stderr(line: str) -> None:
    # Config is read before any UI exists, so the warning goes straight to stderr.
    print(f"mika: warning: {line}", file=sys.stderr)  # noqa: T201


def load_settings(
    explicit: str | os.PathLike[str] | None = None, warn: Callable[[str], None] | None = _to_stderr
) -> Settings:
    """Read and validate the config; a missing file (not given explicitly) means defaults.
    Each unknown key is passed to `warn` (stderr by default; None: only on `.warnings`)."""
    path = config_file(explicit)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit or os.environ.get("MIKA_CONFIG"):
            raise ConfigError(path, "", "an existing config file (see config.example.toml)") from None
        return parse_settings({}, None)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"a readable UTF-8 file ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"valid TOML ({exc})") from None
    settings = parse_settings(data, path)
    if warn is not None:
        for line in settings.warnings:
            warn(f"{path}: {line}")
    return settings
