"""The models a face runs with (main, light, vision): `--model`, then `[roles] main` in the config.

Scripted models (offline demos, CI) are chosen with `--model script:PATH` or a provider
of `kind = "scripted"`; everything else is built by mika.model.roles from the config.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mika.config.errors import ConfigError
from mika.config.settings import Settings
from mika.model.base import Model
from mika.model.script_file import ScriptPlayer, load_script

EXAMPLE = (
    '[providers.deepseek]\npreset = "deepseek"\napi_key_env = "DEEPSEEK_API_KEY"\n\n'
    '[roles]\nmain = "deepseek/deepseek-chat"'
)


def load_reference_script(path: Path | str) -> ScriptPlayer:
    """A model script whose `pick`s are read off the run's screen listings (the model
    layer may not read listings itself: the resolver is injected here). The listing
    reader loads here: a run on a real provider needs none of it before its first request."""
    from mika.uistate.listing_read import pick_element

    return load_script(path, resolver=pick_element)


def _scripted(settings: Settings, choice: str) -> Model | None:
    if choice.startswith("script:"):
        return load_reference_script(choice[len("script:") :])
    provider = choice.split("/", 1)[0]
    conf = settings.raw.get("providers", {}).get(provider)
    if isinstance(conf, dict) and conf.get("kind") == "scripted":
        script = conf.get("script")
        if not isinstance(script, str):
            raise ConfigError(settings.file, f"providers.{provider}.script", "the path of a JSON model script", script)
        base = settings.file.parent if settings.file else Path.cwd()
        return load_reference_script(base / script)
    return None


@dataclass
class SelectedModels:
    main: Model
    # For side calls (intent, outcome judge, stop summary); None: they use main.
    light: Model | None
    vision: Model | None
    close: Callable[[], None]
    # A scripted model plays its replies in order: no side calls may take one of them.
    scripted: bool = False

    def prepare(self) -> None:
        """Load the models' SDKs and build their clients now. The SDK adapters build them
        at first use; a face that will call the model soon asks for it here, while the
        simulated phone still attaches in the background (mika.assembly.assembly)."""
        for model in (self.main, self.light, self.vision):
            prepare = getattr(model, "prepare", None)
            if prepare is not None:
                prepare()


def select_models(settings: Settings, override: str | None, state_dir: Path) -> SelectedModels:
    choice = override or settings.raw.get("roles", {}).get("main") or ""
    if choice:
        scripted = _scripted(settings, choice)
        if scripted is not None:
            return SelectedModels(scripted, None, None, lambda: None, scripted=True)
    if not choice and not settings.raw.get("providers"):
        raise ConfigError(
            settings.file,
            "roles.main",
            "a main model. Add a provider and pick a model, for example:\n" + EXAMPLE + "\n"
            "(or run `mika models presets` to see providers, or pass --model PROVIDER/MODEL)",
        )
    from mika.model.providers_config import load_providers  # imported only when a real provider is used
    from mika.model.roles import build_roles
    from mika.usage.ledger import UsageLedger

    cfg = load_providers(settings.raw, settings.file)
    ledger = UsageLedger(state_dir / "usage-v1.json")
    try:
        roles = build_roles(cfg, ledger, override_main=override)
    except BaseException:
        ledger.close()
        raise
    light = None if roles.light_is_main else roles.side
    return SelectedModels(roles.main, light, roles.vision, ledger.close)
