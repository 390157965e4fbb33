"""The [providers.*] and [roles] tables: parsing, keys, roles, presets, session ids."""

from __future__ import annotations

import os
import tomllib
import uuid

import pytest

from mika.config.errors import ConfigError
from mika.model.adapters.anthropic import AnthropicModel
from mika.model.adapters.gemini import GeminiModel
from mika.model.adapters.openai_chat import OpenAIChatModel
from mika.model.adapters.openai_responses import OpenAIResponsesModel
from mika.model.headers import client_headers
from mika.model.metering import MeteredModel
from mika.model.presets import PRESETS, for_host, preset
from mika.model.providers_config import load_providers
from mika.model.roles import build_roles
from mika.model.session import ModelSession
from mika.usage.ledger import UsageLedger

ISSUE_EXAMPLE = """
[providers.local]
kind = "openai-chat"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "LOCAL_API_KEY"
preset = "custom"

[providers.local.models."some-model"]
context_window = 128000

[roles]
main = "local/some-model"
vision = "none"
light = "main"
"""


def load(text: str, file=None):
    return load_providers(tomllib.loads(text), file)


def test_issue_example_loads_and_builds(monkeypatch):
    monkeypatch.setenv("LOCAL_API_KEY", "sk-local")
    cfg = load(ISSUE_EXAMPLE)
    p = cfg.providers["local"]
    assert (p.kind, p.base_url, p.preset) == ("openai-chat", "http://127.0.0.1:8000/v1", "custom")
    assert p.models["some-model"].context_window == 128000
    roles = build_roles(cfg, UsageLedger(None))
    assert isinstance(roles.main, MeteredModel) and isinstance(roles.main.inner, OpenAIChatModel)
    assert roles.main.inner.endpoint.api_key == "sk-local"
    assert roles.vision is None
    assert roles.light.name == "some-model" and roles.light_is_main and roles.light.purpose_default == "light"
    assert roles.side is roles.light


def test_preset_fills_kind_url_and_session_header(monkeypatch):
    monkeypatch.setenv("OPENCODE_API_KEY", "k")
    cfg = load(
        '[providers.oc]\npreset = "opencode-go"\napi_key_env = "OPENCODE_API_KEY"\n[roles]\nmain = "oc/kimi-k2"\n'
    )
    p = cfg.providers["oc"]
    assert p.kind == "openai-chat" and p.base_url == "https://opencode.ai/zen/go/v1"
    assert p.session_header == "x-opencode-session"
    roles = build_roles(cfg, UsageLedger(None))
    assert roles.main.inner.endpoint.session_header == "x-opencode-session"


def test_each_protocol_gets_its_adapter(monkeypatch):
    monkeypatch.setenv("K", "x")
    text = "".join(
        f'[providers.p{i}]\nkind = "{k}"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "K"\n'
        for i, k in enumerate(["openai-chat", "openai-responses", "anthropic", "gemini"])
    )
    cfg = load(text)
    expected = [OpenAIChatModel, OpenAIResponsesModel, AnthropicModel, GeminiModel]
    for i, cls in enumerate(expected):
        roles = build_roles(cfg, UsageLedger(None), override_main=f"p{i}/m")
        assert isinstance(roles.main.inner, cls)


def test_vision_main_and_light_model(monkeypatch):
    monkeypatch.setenv("K", "x")
    cfg = load(
        '[providers.a]\nkind = "anthropic"\nbase_url = "http://127.0.0.1:9"\napi_key_env = "K"\n'
        '[providers.b]\nkind = "gemini"\nbase_url = "http://127.0.0.1:9"\napi_key_env = "K"\n'
        '[roles]\nmain = "a/claude"\nvision = "main"\nlight = "b/gemini-flash"\n'
    )
    roles = build_roles(cfg, UsageLedger(None))
    assert roles.vision.name == "claude" and roles.vision.supports_images and roles.vision_is_main
    assert not roles.main.supports_images  # main keeps its own flag
    assert roles.light.name == "gemini-flash" and not roles.light_is_main


def test_model_may_name_its_own_protocol_and_address(monkeypatch):
    monkeypatch.setenv("K", "x")
    cfg = load(
        '[providers.oc]\npreset = "opencode-go"\napi_key_env = "K"\n'
        '[providers.oc.models."gpt-5"]\nkind = "openai-responses"\n'
        'base_url = "https://opencode.ai/inference/go/openai/v1"\n'
    )
    roles = build_roles(cfg, UsageLedger(None), override_main="oc/gpt-5")
    assert isinstance(roles.main.inner, OpenAIResponsesModel)
    assert roles.main.inner.endpoint.base_url == "https://opencode.ai/inference/go/openai/v1"


def test_override_main_and_model_names_with_slashes(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "x")
    roles = build_roles(load(""), UsageLedger(None), override_main="openrouter/moonshotai/kimi-k2")
    assert roles.main.provider == "openrouter" and roles.main.name == "moonshotai/kimi-k2"


def test_missing_main_names_the_key_and_shows_an_example():
    with pytest.raises(ConfigError) as info:
        build_roles(load(""), UsageLedger(None))
    assert info.value.key == "roles.main"
    example = str(info.value).split("\n")[-3:]
    assert example[0].startswith("roles.main = ")
    assert tomllib.loads("\n".join(example))["roles"]["main"] == "deepseek/deepseek-chat"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[providers.x]\nkind = "openai"\nbase_url = "http://h/v1"\n', "providers.x.kind"),
        ('[providers.x]\nbase_url = "http://h/v1"\n', "providers.x.kind"),
        ('[providers.x]\nkind = "gemini"\n', "providers.x.base_url"),
        ('[providers.x]\nkind = "gemini"\nbase_url = "ftp://h"\n', "providers.x.base_url"),
        ('[providers.x]\npreset = "nope"\n', "providers.x.preset"),
        ('[providers.x]\npreset = "deepseek"\napi_key = "sk-in-config"\n', "providers.x.api_key"),
        (
            '[providers.x]\npreset = "deepseek"\n[providers.x.models.m]\ncontext_window = "big"\n',
            'providers.x.models."m".context_window',
        ),
        ('[roles]\nmain = "nobody/m"\n', "roles.main"),
        ('[roles]\nmain = "just-a-name"\n', "roles.main"),
        ('[roles]\nvision = "sometimes"\n', "roles.vision"),
        ('[roles]\nheavy = "x/y"\n', "roles.heavy"),
    ],
)
def test_bad_config_names_the_key(text, key):
    with pytest.raises(ConfigError) as info:
        load(text, "/tmp/config.toml")
    assert info.value.key == key
    assert str(info.value).startswith(f"/tmp/config.toml: {key}: expected")


def test_kind_error_lists_the_protocols():
    with pytest.raises(ConfigError) as info:
        load('[providers.x]\nkind = "openai"\nbase_url = "http://h/v1"\n')
    assert info.value.expected == "one of openai-chat, openai-responses, anthropic, gemini, chatgpt"
    assert info.value.got == "openai"


def test_keys_come_from_env_or_a_private_file(tmp_path, monkeypatch):
    monkeypatch.delenv("NOPE_KEY", raising=False)
    cfg = load('[providers.d]\npreset = "deepseek"\napi_key_env = "NOPE_KEY"\n')
    with pytest.raises(ConfigError) as info:
        cfg.providers["d"].api_key()
    assert "NOPE_KEY" in str(info.value)
    key_file = tmp_path / "key"
    key_file.write_text("sk-file\n")
    os.chmod(key_file, 0o644)
    cfg = load(f'[providers.d]\npreset = "deepseek"\napi_key_file = "{key_file}"\n')
    with pytest.raises(ConfigError) as info:
        cfg.providers["d"].api_key()
    assert "chmod 600" in str(info.value)
    os.chmod(key_file, 0o600)
    assert cfg.providers["d"].api_key() == "sk-file"
    # A self-hosted preset needs no key at all.
    assert load('[providers.o]\npreset = "ollama"\n').providers["o"].api_key() is None


def test_presets_cover_the_seed_list():
    ids = {p.id for p in PRESETS}
    assert ids >= {
        "deepseek",
        "qwen",
        "kimi",
        "zhipu",
        "siliconflow",
        "volcano-ark",
        "minimax",
        "stepfun",
        "hunyuan",
        "qianfan",
        "openrouter",
        "opencode-go",
        "anthropic",
        "gemini",
        "openai",
        "xai",
        "mistral",
        "groq",
        "ollama",
        "lmstudio",
        "custom",
    }
    assert preset("openai").kind == "openai-responses"
    assert preset("anthropic").kind == "anthropic" and preset("gemini").kind == "gemini"
    assert preset("ollama").base_url == "http://127.0.0.1:11434/v1" and not preset("ollama").key_required
    assert preset("lmstudio").base_url == "http://127.0.0.1:1234/v1"
    assert preset("minimax").base_url.startswith("https://api.minimax.cn")
    assert "tokenhub.tencentmaas.com" in preset("hunyuan").base_url
    assert preset("qianfan").base_url == "https://qianfan.baidubce.com/v2"
    assert [p.id for p in PRESETS if p.session_header] == ["opencode-go"]
    assert "qwen" in preset("qwen").family_tokens
    assert for_host("https://api.deepseek.com/v1/x").id == "deepseek"
    assert for_host("http://127.0.0.1:11434/v1") is None


def test_session_ids_are_uuid3_and_stable():
    a = ModelSession.of("conversation-42")
    assert uuid.UUID(a.value).version == 3
    assert a == ModelSession.of("conversation-42") != ModelSession.of("conversation-43")
    assert "conversation-42" not in a.value
    assert ModelSession.fresh() != ModelSession.fresh()


def test_client_headers():
    h = client_headers(session_header="x-opencode-session", conversation_id="c", extra={"X-Title": "Mika"})
    assert h["User-Agent"].startswith("Mika/") and h["X-Title"] == "Mika"
    assert h["x-opencode-session"] == ModelSession.of("c").value
    assert "x-opencode-session" not in client_headers(conversation_id="c")


def test_config_example_loads(monkeypatch):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    data = tomllib.loads(example.read_text())
    # Uncomment every optional provider/model key to prove the documented ones parse.
    text = example.read_text()
    cfg = load_providers(data, example)
    assert cfg.roles.main == "local/some-model"
    monkeypatch.setenv("LOCAL_API_KEY", "k")
    assert build_roles(cfg, UsageLedger(None)).main.name == "some-model"
    lines = []
    inside = False
    for line in text.splitlines():
        if line.startswith("[providers.local]"):
            inside = True
        elif line.startswith("# An offline"):
            inside = False
        stripped = line.lstrip("# ")
        key = stripped.split("=", 1)[0].strip()
        if (
            inside
            and line.startswith("# ")
            and key
            in {
                "name",
                "headers",
                "session_header",
                "stream",
                "context_window",
                "timeout",
                "images",
                "tools",
                "kind",
                "base_url",
                "reasoning_field",
                "max_output_tokens",
            }
        ):
            line = stripped
        lines.append(line)
    full = load_providers(tomllib.loads("\n".join(lines)), example)
    m = full.providers["local"].models["some-model"]
    assert m.kind == "openai-responses" and m.images is True and full.providers["local"].timeout == 300
    assert m.max_output_tokens == 4096


def test_scripted_providers_are_left_to_model_select():
    cfg = load(
        '[providers.demo]\nkind = "scripted"\nscript = "demo.json"\n[roles]\nmain = "demo/x"\nlight = "demo/x"\n'
    )
    assert "demo" not in cfg.providers and cfg.scripted == {"demo"}
    with pytest.raises(ConfigError) as info:
        build_roles(cfg, UsageLedger(None), override_main=None)
    assert "scripted" in str(info.value)


async def test_side_calls_fall_back_to_main_when_the_light_model_is_unavailable(monkeypatch):
    from replay_server import ReplayServer, Reply

    from mika.model.base import complete
    from mika.model.messages import Message, ModelRequest

    monkeypatch.setenv("K", "x")
    with ReplayServer() as server:
        cfg = load(
            f'[providers.a]\nkind = "anthropic"\nbase_url = "{server.url}"\napi_key_env = "K"\n'
            '[roles]\nmain = "a/claude-main"\nlight = "a/claude-light"\n'
        )
        ledger = UsageLedger(None)
        roles = build_roles(cfg, ledger)
        ok = "anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"
        server.queue(
            Reply(
                b'{"type":"error","error":{"type":"permission_error","message":"model is not activated"}}', status=403
            ),
            Reply.recording(ok),
            Reply.recording(ok),
        )
        request = ModelRequest("s", (Message.user("judge this"),), purpose="judge")
        await complete(roles.side, request)
        await complete(roles.side, request)
        assert [r.json()["model"] for r in server.requests] == ["claude-light", "claude-main", "claude-main"]
        assert roles.side.fell_back is not None and roles.side.name == "claude-main"
        # Every call is counted once: the failed light call as a call without usage.
        by_model = {(r.model, r.purpose): (r.calls, r.unreported) for r in ledger.rows()}
        assert by_model == {("claude-light", "judge"): (0, 1), ("claude-main", "judge"): (2, 0)}
