"""The `[providers.*]` and `[roles]` tables of the config, validated in one place.

```toml
[providers.local]
kind = "openai-chat"            # openai-chat | openai-responses | anthropic | gemini | chatgpt
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "LOCAL_API_KEY"   # or: api_key_file = "…" (0600)
preset = "custom"               # a preset id fills kind, base_url and headers

[providers.local.models."some-model"]
context_window = 128000         # when the listing doesn't say

[providers.chatgpt]
kind = "chatgpt"                # signed in with `mika login chatgpt`: no key, no address

[roles]
main = "local/some-model"
vision = "none"                 # a model, "main" or "none"
light = "main"                  # a model or "main"
```
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mika.config.errors import ConfigError
from mika.config.unknown_keys import did_you_mean
from mika.model.adapters import ALL_KINDS
from mika.model.chatgpt.endpoints import BASE_URL as CHATGPT_BASE_URL
from mika.model.presets import Preset, preset, preset_ids

_KIND_LIST = "one of " + ", ".join(ALL_KINDS)
SCRIPTED = "scripted"
_PROVIDER_KEYS = {
    "kind",
    "base_url",
    "api_key_env",
    "api_key_file",
    "preset",
    "headers",
    "session_header",
    "stream",
    "name",
    "models",
    "context_window",
    "timeout",
}
_MODEL_KEYS = {
    "context_window",
    "images",
    "tools",
    "kind",
    "base_url",
    "reasoning_field",
    "stream",
    "max_output_tokens",
}


@dataclass(frozen=True)
class ModelSettings:
    """What the user says about one model (overrides what the listing or preset say)."""

    context_window: int | None = None
    images: bool | None = None
    tools: bool | None = None
    # One provider, several protocols: a model may name its own protocol and address.
    kind: str | None = None
    base_url: str | None = None
    reasoning_field: str | None = None
    stream: bool | None = None
    max_output_tokens: int | None = None


@dataclass(frozen=True)
class ProviderSettings:
    id: str
    kind: str
    base_url: str
    preset: str = "custom"
    name: str = ""
    api_key_env: str | None = None
    api_key_file: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    session_header: str | None = None
    stream: bool = True
    context_window: int | None = None
    timeout: float | None = None
    models: Mapping[str, ModelSettings] = field(default_factory=dict)
    file: Path | None = None

    @property
    def display_name(self) -> str:
        known = preset(self.preset) if self.preset != "custom" else None
        return self.name or (known.name if known else self.id)

    @property
    def key_required(self) -> bool:
        p = preset(self.preset)
        if p is not None and p.id != "custom":
            return p.key_required
        # A custom OpenAI-compatible server is most often local and keyless; others need a
        # key, except a sign-in provider (its tokens come from `mika login`).
        return self.kind not in ("openai-chat", "chatgpt")

    def api_key(self) -> str | None:
        """The key from the environment variable or the 0600 key file; never from code."""
        key_name = f"providers.{self.id}"
        if self.api_key_env:
            value = os.environ.get(self.api_key_env, "").strip()
            if value:
                return value
            if self.key_required:
                raise ConfigError(
                    self.file,
                    f"{key_name}.api_key_env",
                    f"the environment variable {self.api_key_env} to hold the API key (export {self.api_key_env}=…)",
                    "unset",
                )
            return None
        if self.api_key_file:
            path = Path(self.api_key_file).expanduser()
            if not path.is_absolute() and self.file is not None:
                path = self.file.parent / path
            try:
                mode = path.stat().st_mode
            except FileNotFoundError:
                raise ConfigError(self.file, f"{key_name}.api_key_file", "an existing key file", str(path)) from None
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise ConfigError(
                    self.file,
                    f"{key_name}.api_key_file",
                    f"a key file only you can read (chmod 600 {path})",
                    oct(mode & 0o777),
                )
            value = path.read_text(encoding="utf-8").strip()
            if value:
                return value
            raise ConfigError(self.file, f"{key_name}.api_key_file", "a file holding the API key", "an empty file")
        if self.key_required:
            raise ConfigError(
                self.file,
                f"{key_name}.api_key_env",
                'the name of an environment variable holding the API key (or api_key_file = "…" with mode 0600)',
                None,
            )
        return None


@dataclass(frozen=True)
class RoleChoices:
    """Each role is an explicit choice (seed: RoleChoices); nothing is inferred."""

    main: str | None = None
    vision: str = "none"  # "provider/model", "main" or "none"
    light: str = "main"  # "provider/model" or "main"


@dataclass(frozen=True)
class ProvidersConfig:
    providers: Mapping[str, ProviderSettings]
    roles: RoleChoices = RoleChoices()
    file: Path | None = None
    # Ids of `kind = "scripted"` providers (left to mika.assembly.models).
    scripted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_ref(text: Any, *, file: Path | None, key: str, cfg: ProvidersConfig | None = None) -> ModelRef:
    """ "provider/model"; the model part may itself contain slashes (OpenRouter names)."""
    if not isinstance(text, str) or "/" not in text or text.startswith("/") or text.endswith("/"):
        raise ConfigError(file, key, 'PROVIDER/MODEL, e.g. "deepseek/deepseek-chat"', text)
    provider, model = text.split("/", 1)
    if (
        cfg is not None
        and provider not in cfg.providers
        and not _is_preset_id(provider)
        and provider not in cfg.scripted
    ):
        known = ", ".join(sorted(cfg.providers)) or "none configured"
        raise ConfigError(file, key, f"a provider defined under [providers.*] (known: {known})", provider)
    return ModelRef(provider, model)


def _is_preset_id(provider_id: str) -> bool:
    p = preset(provider_id)
    return p is not None and p.id != "custom"


def _str(value: Any, file: Path | None, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(file, key, "a string", value)
    return value


def _bool(value: Any, file: Path | None, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(file, key, "true or false", value)
    return value


def _int(value: Any, file: Path | None, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(file, key, "a positive whole number", value)
    return value


def _url(value: Any, file: Path | None, key: str) -> str:
    text = _str(value, file, key).strip()
    if not text.startswith(("http://", "https://")):
        raise ConfigError(file, key, "an address starting with http:// or https://", value)
    return text.rstrip("/")


def _kind(value: Any, file: Path | None, key: str) -> str:
    if not isinstance(value, str) or value not in ALL_KINDS:
        raise ConfigError(file, key, _KIND_LIST, value)
    return value


def _model(name: str, data: Any, file: Path | None, prefix: str) -> ModelSettings:
    if not isinstance(data, dict):
        raise ConfigError(file, prefix, "a table of model settings", data)
    unknown = set(data) - _MODEL_KEYS
    if unknown:
        first = sorted(unknown)[0]
        raise ConfigError(
            file,
            f"{prefix}.{first}",
            "one of " + ", ".join(sorted(_MODEL_KEYS)) + did_you_mean(first, _MODEL_KEYS, prefix + "."),
            None,
        )
    rf = data.get("reasoning_field")
    if rf is not None and rf not in ("reasoning_content", "reasoning"):
        raise ConfigError(file, f"{prefix}.reasoning_field", "reasoning_content or reasoning", rf)
    return ModelSettings(
        context_window=_int(data["context_window"], file, f"{prefix}.context_window")
        if "context_window" in data
        else None,
        images=_bool(data["images"], file, f"{prefix}.images") if "images" in data else None,
        tools=_bool(data["tools"], file, f"{prefix}.tools") if "tools" in data else None,
        kind=_kind(data["kind"], file, f"{prefix}.kind") if "kind" in data else None,
        base_url=_url(data["base_url"], file, f"{prefix}.base_url") if "base_url" in data else None,
        reasoning_field=rf,
        stream=_bool(data["stream"], file, f"{prefix}.stream") if "stream" in data else None,
        max_output_tokens=(
            _int(data["max_output_tokens"], file, f"{prefix}.max_output_tokens")
            if "max_output_tokens" in data
            else None
        ),
    )


def _provider(pid: str, data: Any, file: Path | None) -> ProviderSettings:
    key = f"providers.{pid}"
    if not isinstance(data, dict):
        raise ConfigError(file, key, "a table", data)
    unknown = set(data) - _PROVIDER_KEYS
    if unknown:
        first = sorted(unknown)[0]
        raise ConfigError(
            file,
            f"{key}.{first}",
            "one of " + ", ".join(sorted(_PROVIDER_KEYS)) + did_you_mean(first, _PROVIDER_KEYS, key + "."),
            None,
        )
    preset_id = data.get("preset", "custom")
    base: Preset | None = preset(preset_id) if isinstance(preset_id, str) else None
    if base is None:
        raise ConfigError(file, f"{key}.preset", "one of " + ", ".join(preset_ids()), preset_id)
    if "kind" in data:
        kind = _kind(data["kind"], file, f"{key}.kind")
    elif base.id != "custom":
        kind = base.kind
    else:
        raise ConfigError(file, f"{key}.kind", _KIND_LIST, None)
    if "base_url" in data:
        base_url = _url(data["base_url"], file, f"{key}.base_url")
    elif base.base_url:
        base_url = base.base_url
    elif kind == "chatgpt":
        base_url = CHATGPT_BASE_URL  # MIKA_CHATGPT_BASE_URL still wins, when the model is built
    else:
        raise ConfigError(file, f"{key}.base_url", 'the provider\'s address, e.g. "http://127.0.0.1:8000/v1"', None)
    headers = data.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ConfigError(file, f"{key}.headers", "a table of header names to string values", headers)
    models_data = data.get("models", {})
    if not isinstance(models_data, dict):
        raise ConfigError(file, f"{key}.models", "a table of models", models_data)
    if "api_key_env" in data and "api_key_file" in data:
        raise ConfigError(file, f"{key}.api_key_file", "either api_key_env or api_key_file, not both", None)
    return ProviderSettings(
        id=pid,
        kind=kind,
        base_url=base_url,
        preset=base.id,
        name=_str(data["name"], file, f"{key}.name") if "name" in data else "",
        api_key_env=_str(data["api_key_env"], file, f"{key}.api_key_env") if "api_key_env" in data else None,
        api_key_file=_str(data["api_key_file"], file, f"{key}.api_key_file") if "api_key_file" in data else None,
        headers=dict(headers),
        session_header=(
            _str(data["session_header"], file, f"{key}.session_header")
            if "session_header" in data
            else base.session_header
        ),
        stream=_bool(data["stream"], file, f"{key}.stream") if "stream" in data else True,
        context_window=_int(data["context_window"], file, f"{key}.context_window")
        if "context_window" in data
        else None,
        timeout=float(_int(data["timeout"], file, f"{key}.timeout")) if "timeout" in data else None,
        models={name: _model(name, m, file, f'{key}.models."{name}"') for name, m in models_data.items()},
        file=file,
    )


def load_providers(data: dict[str, Any], file: Path | None) -> ProvidersConfig:
    """Parse the whole config mapping (from tomllib); other tables are left alone."""
    raw = data.get("providers", {})
    if not isinstance(raw, dict):
        raise ConfigError(file, "providers", "a table of [providers.NAME] tables", raw)
    providers = {}
    for pid, pdata in raw.items():
        if isinstance(pdata, dict) and pdata.get("kind") == SCRIPTED:
            continue  # offline scripted models are built by mika.assembly.models, not here
        if not pid or "/" in pid:
            raise ConfigError(file, f"providers.{pid}", "a provider id without '/'", pid)
        providers[pid] = _provider(pid, pdata, file)
    scripted = frozenset(pid for pid, pdata in raw.items() if isinstance(pdata, dict) and pdata.get("kind") == SCRIPTED)
    cfg = ProvidersConfig(providers, RoleChoices(), file, scripted)
    roles_data = data.get("roles", {})
    if not isinstance(roles_data, dict):
        raise ConfigError(file, "roles", "a [roles] table", roles_data)
    unknown = set(roles_data) - {"main", "vision", "light"}
    if unknown:
        first = sorted(unknown)[0]
        raise ConfigError(
            file,
            f"roles.{first}",
            "main, vision or light" + did_you_mean(first, ("main", "vision", "light"), "roles."),
            None,
        )
    main = roles_data.get("main")
    if main is not None:
        parse_ref(main, file=file, key="roles.main", cfg=cfg)
    vision = roles_data.get("vision", "none")
    if vision not in ("main", "none"):
        parse_ref(vision, file=file, key="roles.vision", cfg=cfg)
    light = roles_data.get("light", "main")
    if light != "main":
        parse_ref(light, file=file, key="roles.light", cfg=cfg)
    return ProvidersConfig(providers, RoleChoices(main, vision, light), file, scripted)
