"""List a provider's models with the capabilities the listing states.

OpenAI-compatible `GET {base}/models`, Anthropic `GET /v1/models` (paged), Gemini
`GET /v1beta/models` (paged). A listing may give each model an `api` table naming the
protocols it speaks; the first one we speak (Chat Completions, Messages,
generateContent, Responses) becomes its endpoint. Capabilities the listing doesn't
give stay None (unknown), never guessed.
"""

from __future__ import annotations

import builtins  # `list` below is also a method name of ModelCatalog
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from mika.atomic_write import read_json, write_json
from mika.model.adapters.endpoint import strip_version_suffix
from mika.model.classify import server_words
from mika.model.headers import client_headers

# Listing protocol names → our adapter kinds, in the order we prefer them.
API_KINDS = (
    ("chat-completions", "openai-chat"),
    ("messages", "anthropic"),
    ("generate-content", "gemini"),
    ("responses", "openai-responses"),
)
_NOT_CHAT_WORDS = (
    "embed",
    "rerank",
    "tts",
    "whisper",
    "transcribe",
    "speech",
    "dall-e",
    "moderation",
    "image-gen",
    "imagen",
    "audio",
    "bge-",
    "stable-diffusion",
    "flux",
)
ANTHROPIC_VERSION = "2023-06-01"
_MAX_PAGES = 50


@dataclass(frozen=True)
class ModelEndpoint:
    kind: str
    base_url: str
    reasoning_field: str | None = None


@dataclass(frozen=True)
class ListedModel:
    name: str
    display_name: str = ""
    tools: bool | None = None
    images: bool | None = None
    context_window: int | None = None
    reasoning: bool | None = None
    # False when the listing says it is an embedding/audio/image model; None = not said.
    chat: bool | None = None
    endpoint: ModelEndpoint | None = None
    unsupported_apis: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        """A model listed only with protocols we don't speak would always fail."""
        return not self.unsupported_apis or self.endpoint is not None

    @property
    def looks_like_chat(self) -> bool:
        if self.chat is not None:
            return self.chat
        lowered = f"{self.name} {self.display_name}".lower()
        return not any(word in lowered for word in _NOT_CHAT_WORDS)


class CatalogError(Exception):
    """Why listing failed: auth, network, no_list (404/405/501), server, bad_answer."""

    SENTENCES = {
        "auth": "The provider rejected the API key while listing models.",
        "network": "Could not reach the provider to list its models.",
        "no_list": "The provider does not offer a model list at this address (or the address or protocol is wrong).",
        "server": "The provider failed while listing models.",
        "bad_answer": "The provider's model list could not be read.",
        # A sign-in provider (the ChatGPT plan): Mika does not list its models.
        "sign_in": "Mika does not list the models of a ChatGPT plan.",
    }

    def __init__(self, kind: str, detail: str = "", status: int | None = None) -> None:
        self.kind = kind
        self.detail = detail
        self.status = status
        super().__init__(self.user_message())

    def user_message(self) -> str:
        sentence = self.SENTENCES[self.kind]
        return f"{sentence} ({self.detail})" if self.detail else sentence


def _bool_cap(caps: Any, name: str) -> bool | None:
    value = caps.get(name) if isinstance(caps, dict) else None
    if isinstance(value, dict):
        value = value.get("supported")
    return value if isinstance(value, bool) else None


def _endpoint(api: Any) -> tuple[ModelEndpoint | None, tuple[str, ...]]:
    if not isinstance(api, dict) or not api:
        return None, ()
    for name, kind in API_KINDS:
        entry = api.get(name)
        if isinstance(entry, dict) and isinstance(entry.get("base_url"), str):
            base = entry["base_url"]
            if kind == "anthropic":
                base = strip_version_suffix(base, "/v1")
            compat = entry.get("compatibility") or {}
            field = compat.get("reasoning_field") if isinstance(compat, dict) else None
            return ModelEndpoint(
                kind, base.rstrip("/"), field if field in ("reasoning_content", "reasoning") else None
            ), ()
    return None, tuple(sorted(api))


def parse_openai_listing(data: Any) -> list[ListedModel]:
    rows = data.get("data") if isinstance(data, dict) else data
    if rows is None and isinstance(data, dict):
        rows = data.get("models")
    if not isinstance(rows, list):
        raise CatalogError("bad_answer", "no data array")
    out = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        name = row.get("id") or row.get("name") or row.get("slug")
        if not isinstance(name, str):
            continue
        caps = row.get("capabilities") or {}
        limit = row.get("limit") or {}
        modalities = row.get("modalities") or {}
        inputs = modalities.get("input") if isinstance(modalities, dict) else None
        inputs = inputs or row.get("input_modalities")
        images = None
        if isinstance(inputs, list):
            images = any(str(m).startswith("image") for m in inputs)
        elif _bool_cap(caps, "vision") is not None:
            images = _bool_cap(caps, "vision")
        context = (
            (limit.get("context") if isinstance(limit, dict) else None)
            or row.get("context_length")
            or row.get("context_window")
        )
        outputs = modalities.get("output") if isinstance(modalities, dict) else None
        chat = None
        mtype = row.get("type")
        if isinstance(mtype, str) and mtype:
            chat = mtype.lower() in ("chat", "llm", "text", "language", "model", "vlm")
        elif isinstance(outputs, list) and outputs:
            chat = "text" in outputs
        endpoint, unsupported = _endpoint(row.get("api"))
        supported_params = row.get("supported_parameters")
        tools = _bool_cap(caps, "tools")
        if tools is None and isinstance(supported_params, list):
            tools = "tools" in supported_params
        out.append(
            ListedModel(
                name=name,
                display_name=str(row.get("display_name") or row.get("name") or ""),
                tools=tools,
                images=images,
                context_window=int(context) if isinstance(context, (int, float)) and context > 0 else None,
                reasoning=_bool_cap(caps, "reasoning"),
                chat=chat,
                endpoint=endpoint,
                unsupported_apis=unsupported,
            )
        )
    return out


def parse_anthropic_page(data: Any) -> tuple[list[ListedModel], str | None]:
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise CatalogError("bad_answer", "no data array")
    out = []
    for row in data["data"]:
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            caps = row.get("capabilities") or {}
            context = row.get("max_input_tokens")
            out.append(
                ListedModel(
                    row["id"],
                    str(row.get("display_name") or ""),
                    tools=_bool_cap(caps, "tools"),
                    images=_bool_cap(caps, "image_input"),
                    context_window=context if isinstance(context, int) else None,
                    reasoning=_bool_cap(caps, "thinking"),
                    chat=True,
                )
            )
    next_id = data.get("last_id") if data.get("has_more") else None
    return out, next_id


def parse_gemini_page(data: Any) -> tuple[list[ListedModel], str | None]:
    if not isinstance(data, dict):
        raise CatalogError("bad_answer", "not an object")
    out = []
    for row in data.get("models") or []:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            continue
        methods = row.get("supportedGenerationMethods") or []
        context = row.get("inputTokenLimit")
        out.append(
            ListedModel(
                row["name"].removeprefix("models/"),
                str(row.get("displayName") or ""),
                context_window=context if isinstance(context, int) else None,
                reasoning=row.get("thinking") if isinstance(row.get("thinking"), bool) else None,
                chat="generateContent" in methods if methods else None,
            )
        )
    return out, data.get("nextPageToken") or None


class ModelCatalog:
    def __init__(self, client: httpx.AsyncClient | None = None, timeout: float = 20.0) -> None:
        self._client = client or httpx.AsyncClient(timeout=timeout)

    async def _get(self, url: str, headers: dict[str, str], params: dict[str, str] | None = None) -> Any:
        try:
            response = await self._client.get(url, headers=headers, params=params)
        except httpx.HTTPError as exc:
            raise CatalogError("network", f"{type(exc).__name__}: {exc}".strip(": ")) from exc
        if response.status_code in (401, 403):
            raise CatalogError("auth", server_words(response.text), response.status_code)
        if response.status_code in (404, 405, 501):
            raise CatalogError("no_list", f"HTTP {response.status_code}", response.status_code)
        if response.status_code >= 400:
            raise CatalogError(
                "server", f"HTTP {response.status_code}: {server_words(response.text)}", response.status_code
            )
        try:
            return response.json()
        except json.JSONDecodeError as exc:
            raise CatalogError("bad_answer", str(exc)) from exc

    async def list(
        self,
        kind: str,
        base_url: str,
        api_key: str | None,
        *,
        extra_headers: dict[str, str] | None = None,
        session_header: str | None = None,
    ) -> list[ListedModel]:
        headers = client_headers(session_header=session_header, extra=extra_headers)
        if kind == "anthropic":
            return await self._list_anthropic(base_url, api_key, headers)
        if kind == "gemini":
            return await self._list_gemini(base_url, api_key, headers)
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return parse_openai_listing(await self._get(f"{base_url.rstrip('/')}/models", headers))

    async def _list_anthropic(
        self, base_url: str, api_key: str | None, headers: dict[str, str]
    ) -> builtins.list[ListedModel]:
        headers = {**headers, "anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        url = strip_version_suffix(base_url, "/v1") + "/v1/models"
        out: list[ListedModel] = []
        after: str | None = None
        for _ in range(_MAX_PAGES):
            params = {"limit": "1000", **({"after_id": after} if after else {})}
            page, after = parse_anthropic_page(await self._get(url, headers, params))
            out.extend(page)
            if not after:
                break
        return out

    async def _list_gemini(
        self, base_url: str, api_key: str | None, headers: dict[str, str]
    ) -> builtins.list[ListedModel]:
        if api_key:
            headers = {**headers, "x-goog-api-key": api_key}
        url = strip_version_suffix(base_url, "/v1beta", "/v1") + "/v1beta/models"
        out: list[ListedModel] = []
        token: str | None = None
        for _ in range(_MAX_PAGES):
            params = {"pageSize": "1000", **({"pageToken": token} if token else {})}
            page, token = parse_gemini_page(await self._get(url, headers, params))
            out.extend(page)
            if not token:
                break
        return out

    async def aclose(self) -> None:
        await self._client.aclose()


def probe_candidates(models: list[ListedModel], family_tokens: tuple[str, ...] = ()) -> list[str]:
    """Which models to try first (seed: ModelOptions.candidates): the provider's own
    family, then those the listing says call tools, then the rest in listing order;
    never ones that say they can't call tools or aren't chat models. With no candidate
    at all, the first listed."""
    usable = [m for m in models if m.usable]
    fit = [m for m in usable if m.tools is not False and m.looks_like_chat]
    tokens = tuple(t.lower() for t in family_tokens if t)

    def own(m: ListedModel) -> bool:
        text = f"{m.name} {m.display_name}".lower()
        return bool(tokens) and any(t in text for t in tokens)

    ordered = [m for m in fit if own(m)]
    ordered += [m for m in fit if m not in ordered and m.tools is True]
    ordered += [m for m in fit if m not in ordered]
    if not ordered and usable:
        ordered = usable[:1]
    return [m.name for m in ordered]


def save_listing(path: Path, models: list[ListedModel]) -> None:
    """Remember a provider's last listing (state dir), so choosing a model later can
    record the protocol, address and context window the listing gave for it."""
    write_json(path, {"version": 1, "models": [asdict(m) for m in models]})


def load_listing(path: Path) -> list[ListedModel]:
    try:
        data = read_json(path, default=None)
    except ValueError:
        return []
    out = []
    for row in (data or {}).get("models") or []:
        try:
            endpoint = row.get("endpoint")
            out.append(
                ListedModel(
                    **{
                        **row,
                        "endpoint": ModelEndpoint(**endpoint) if endpoint else None,
                        "unsupported_apis": tuple(row.get("unsupported_apis") or ()),
                    }
                )
            )
        except TypeError:
            continue  # written by another version; a fresh `mika models list` rewrites it
    return out
