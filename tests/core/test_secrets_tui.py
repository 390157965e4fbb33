"""The issue-11 reproduction through the terminal app: a Pilot run against the same
loopback provider answering 401 with the key. The secrets are registered by the same
start-up call `mika_tui.launch.build_deps` makes; afterwards the app's state dir and
the text it shows (exported screen) hold the key 0 times.

The provider is the loopback replay server (the one part we can't run here).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from replay_server import ReplayServer, Reply

from mika.config.secret_discovery import register_configured_secrets
from mika.config.secrets import REGISTRY
from mika.config.settings import load_settings
from mika.model.providers_config import load_providers, parse_ref
from mika.model.roles import build_model
from tests.core.test_secrets_e2e import KEY, bad_modes, body_401, hits, state_hits, write_config
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MIKA_CONFIG", "MIKA_LANGUAGE", "MIKA_AUTONOMOUS", "MIKA_PACE", "MIKA_DEVICE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BAD_PROVIDER_KEY", KEY)
    REGISTRY.clear()
    yield
    REGISTRY.clear()


async def test_a_tui_run_against_a_401_that_echoes_the_key_leaves_it_nowhere(tmp_path):
    with ReplayServer() as server:
        server.default = Reply(body_401(KEY), status=401)
        settings = load_settings(write_config(tmp_path, server.url, "env"))
        register_configured_secrets(settings)
        cfg = load_providers(settings.raw, settings.file)
        model = build_model(cfg, parse_ref("bad/some-model", file=settings.file, key="roles.main", cfg=cfg))
        app = make_app(tmp_path, model)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await scenes.type_task(pilot, "read my messages")
            await until(lambda: scenes.view(pilot) is not None and scenes.view(pilot).status == "failed", 20)
            await until(lambda: app.center.state().running == ())
            await settle(pilot)
            exported = app.export_screenshot()
            shown = "\n".join(_text_of(w) for w in app.screen.query("*"))
        assert server.requests and KEY in server.requests[0].headers.get("authorization", "")
    assert "rejected the API key" in shown and "Incorrect API key provided: [redacted]" in shown
    assert hits(shown.encode(), KEY) == [] and hits(exported.encode(), KEY) == []
    state = tmp_path / "state" / "mika"  # made by the test helper; what Mika made is below it
    events = "".join(p.read_text() for p in state.rglob("events.jsonl"))
    assert "Incorrect API key provided: [redacted]" in events
    assert state_hits(state, KEY) == {}
    assert [m for m in bad_modes(state) if not m.startswith("mika ")] == []


def _text_of(widget) -> str:
    try:
        return str(widget.render())
    except Exception:  # a container without its own text
        return ""
