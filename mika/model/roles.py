"""The three model roles (main, vision, light), each an explicit choice, each metered.

Side calls (outcome judge, memory extraction, intent, stop summary) take `roles.light`,
which is the main model unless the user chose another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from mika.config.errors import ConfigError
from mika.model.adapters import build_adapter
from mika.model.adapters.endpoint import DEFAULT_CONTEXT_WINDOW, Endpoint
from mika.model.base import Model, StreamEvent
from mika.model.errors import ModelError
from mika.model.messages import ModelRequest
from mika.model.metering import UsageBook, metered
from mika.model.presets import preset
from mika.model.probe import MODEL_PROBLEMS
from mika.model.providers_config import ModelRef, ModelSettings, ProvidersConfig, ProviderSettings, parse_ref

MISSING_MAIN_EXAMPLE = (
    'roles.main = "deepseek/deepseek-chat"\n'
    'providers.deepseek.preset = "deepseek"\n'
    'providers.deepseek.api_key_env = "DEEPSEEK_API_KEY"'
)


class LightWithFallback:
    """The light model for side calls; when it turns out not to work for this account
    (not found, not available, no tools), the main model takes over for the rest of the
    run instead of failing every side call."""

    def __init__(self, light: Model, main: Model) -> None:
        self.light = light
        self.main = main
        self.fell_back: ModelError | None = None

    def prepare(self) -> None:
        """Build both models' clients now (their SDKs load at first use otherwise)."""
        for model in (self.light, self.main):
            prepare = getattr(model, "prepare", None)
            if prepare is not None:
                prepare()

    @property
    def current(self) -> Model:
        return self.main if self.fell_back is not None else self.light

    @property
    def provider(self) -> str:
        return self.current.provider

    @property
    def name(self) -> str:
        return self.current.name

    @property
    def context_window(self) -> int:
        return self.current.context_window

    @property
    def supports_images(self) -> bool:
        return self.current.supports_images

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self.fell_back is None:
            try:
                async for event in self.light.stream(request):
                    yield event
                return
            except ModelError as err:
                if err.kind not in MODEL_PROBLEMS:
                    raise
                self.fell_back = err  # nothing was yielded: these fail at the request
        async for event in self.main.stream(request):
            yield event


@dataclass(frozen=True)
class ModelRoles:
    main: Model
    vision: Model | None
    light: Model
    light_is_main: bool = True
    vision_is_main: bool = False
    _side: Model | None = field(default=None, repr=False, compare=False)

    @property
    def side(self) -> Model:
        """For judge, memory, intent and summary calls: the light model (main by default),
        falling back to main if the light model can't be used."""
        return self._side or self.light


def provider_settings(cfg: ProvidersConfig, provider_id: str, *, key: str) -> ProviderSettings:
    """A configured provider, or a bare preset used by id (`--model deepseek/…` with the
    key in the preset's usual environment variable)."""
    if provider_id in cfg.providers:
        return cfg.providers[provider_id]
    p = preset(provider_id)
    if p is not None and p.id != "custom":
        return ProviderSettings(
            id=p.id,
            kind=p.kind,
            base_url=p.base_url,
            preset=p.id,
            api_key_env=p.key_env or None,
            session_header=p.session_header,
            file=cfg.file,
        )
    if provider_id in cfg.scripted:
        raise ConfigError(
            cfg.file, key, "a real provider here (a scripted provider can only be the main model)", provider_id
        )
    known = ", ".join(sorted(cfg.providers)) or "none configured"
    raise ConfigError(
        cfg.file, key, f"a provider defined under [providers.*] or a preset id (configured: {known})", provider_id
    )


def build_model(cfg: ProvidersConfig, ref: ModelRef, *, images: bool | None = None, key: str = "roles.main") -> Model:
    """The adapter for one model, unmetered (callers hand it out through `metered`)."""
    p = provider_settings(cfg, ref.provider, key=key)
    ms = p.models.get(ref.model, ModelSettings())
    kind = ms.kind or p.kind
    endpoint = Endpoint(
        provider=p.id,
        model=ref.model,
        base_url=ms.base_url or p.base_url,
        api_key=p.api_key(),
        headers=dict(p.headers),
        session_header=p.session_header,
        context_window=ms.context_window or p.context_window or DEFAULT_CONTEXT_WINDOW,
        supports_images=images if images is not None else bool(ms.images),
        supports_tools=True if ms.tools is None else ms.tools,
        reasoning_field=ms.reasoning_field,
        streaming=p.stream if ms.stream is None else ms.stream,
        max_output_tokens=ms.max_output_tokens,
        read_timeout=p.timeout or 300.0,
    )
    if kind == "chatgpt":
        # The Responses adapter with the stored sign-in (mika login chatgpt).
        from mika.model.chatgpt.provider import ChatGptModel

        return ChatGptModel.signed_in(endpoint)
    return build_adapter(kind, endpoint)


def build_roles(cfg: ProvidersConfig, ledger: UsageBook, override_main: str | None = None) -> ModelRoles:
    if override_main:
        main_ref = parse_ref(override_main, file=None, key="--model")
        main_key = "--model"
    elif cfg.roles.main:
        main_ref = parse_ref(cfg.roles.main, file=cfg.file, key="roles.main")
        main_key = "roles.main"
    else:
        raise ConfigError(
            cfg.file,
            "roles.main",
            "a main model. Add it (or run `mika models add deepseek` then `mika models use main deepseek/MODEL`):\n"
            + MISSING_MAIN_EXAMPLE,
            None,
        )
    main_raw = build_model(cfg, main_ref, key=main_key)
    main = metered(main_raw, ledger, "main")

    vision: Model | None = None
    vision_is_main = cfg.roles.vision == "main"
    if vision_is_main:
        # The user said the main model can see: same model, with the images flag set.
        vision = metered(build_model(cfg, main_ref, images=True, key=main_key), ledger, "vision")
    elif cfg.roles.vision != "none":
        vision = metered(
            build_model(
                cfg, parse_ref(cfg.roles.vision, file=cfg.file, key="roles.vision"), images=True, key="roles.vision"
            ),
            ledger,
            "vision",
        )

    if cfg.roles.light == "main":
        light = metered(main_raw, ledger, "light")
        light_is_main = True
    else:
        light = metered(
            build_model(cfg, parse_ref(cfg.roles.light, file=cfg.file, key="roles.light"), key="roles.light"),
            ledger,
            "light",
        )
        light_is_main = False
    side = None if light_is_main else LightWithFallback(light, metered(main_raw, ledger, "light"))
    return ModelRoles(main, vision, light, light_is_main, vision_is_main, side)
