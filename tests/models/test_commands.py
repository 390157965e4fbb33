"""`mika models …` and `mika usage` through click's runner, with real config files in a
temp dir and the loopback server as the provider."""

from __future__ import annotations

import json
import tomllib

import pytest
from click.testing import CliRunner
from replay_server import Reply

from mika.commands.models import models_group
from mika.commands.usage import usage_command
from mika.usage.ledger import UsageLedger


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LOOP_KEY", "sk-loop")
    monkeypatch.delenv("MIKA_LANGUAGE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    return tmp_path


def run(cmd, *args):
    return CliRunner().invoke(cmd, list(args), catch_exceptions=False)


def test_presets_lists_every_preset(env):
    out = run(models_group, "presets")
    assert out.exit_code == 0
    assert "opencode-go" in out.output and "https://api.deepseek.com/v1" in out.output
    data = json.loads(run(models_group, "presets", "--json").output)
    assert {"id": "openai", "kind": "openai-responses"}.items() <= data[[d["id"] for d in data].index("openai")].items()


def test_add_then_use_edits_the_config_and_keeps_comments(env):
    cfg = env / "config.toml"
    cfg.write_text('# my settings\n[ui]\ntheme = "dark"\n')
    out = run(models_group, "add", "deepseek")
    assert out.exit_code == 0, out.output
    assert "DEEPSEEK_API_KEY" in out.output
    out = run(models_group, "use", "main", "deepseek/deepseek-chat")
    assert out.exit_code == 0, out.output
    run(models_group, "use", "vision", "none")
    run(models_group, "use", "main", "deepseek/deepseek-reasoner")
    text = cfg.read_text()
    assert text.startswith('# my settings\n[ui]\ntheme = "dark"\n')
    data = tomllib.loads(text)
    assert data["providers"]["deepseek"] == {"preset": "deepseek", "api_key_env": "DEEPSEEK_API_KEY"}
    assert data["roles"] == {"main": "deepseek/deepseek-reasoner", "vision": "none"}


def test_add_rejects_duplicates_and_incomplete_custom(env):
    assert run(models_group, "add", "ollama").exit_code == 0
    dup = CliRunner().invoke(models_group, ["add", "ollama"])
    assert dup.exit_code == 2 and "providers.ollama" in dup.stderr and "Traceback" not in dup.output
    custom = CliRunner().invoke(models_group, ["add", "custom"])
    assert custom.exit_code == 2 and "--base-url and --kind" in custom.stderr


def test_add_custom_warns_on_cleartext_and_known_hosts(env):
    out = CliRunner().invoke(
        models_group,
        ["add", "custom", "--id", "relay", "--kind", "openai-chat", "--base-url", "http://api.deepseek.com/v1"],
    )
    assert out.exit_code == 0
    assert "plain http" in out.stderr and "'deepseek'" in out.stderr
    lan = CliRunner().invoke(
        models_group,
        ["add", "custom", "--id", "lan", "--kind", "openai-chat", "--base-url", "http://192.168.1.20:8000/v1"],
    )
    assert lan.exit_code == 0 and "plain http" not in lan.stderr


def test_use_rejects_unknown_provider_without_changing_the_file(env):
    cfg = env / "config.toml"
    cfg.write_text('[roles]\nmain = "x/y"\n[providers.x]\nkind = "gemini"\nbase_url = "http://h"\n')
    before = cfg.read_text()
    out = CliRunner().invoke(models_group, ["use", "light", "nobody/m"])
    assert out.exit_code == 2 and "roles.light" in out.stderr
    assert cfg.read_text() == before


def test_bad_config_is_one_line_and_exit_2(env):
    (env / "config.toml").write_text('[providers.x]\nkind = "openai"\nbase_url = "http://h/v1"\n')
    out = CliRunner().invoke(models_group, ["list"])
    assert out.exit_code == 2
    assert out.stderr.strip().count("\n") == 0 and "providers.x.kind" in out.stderr


def _local_provider(env, server, kind="anthropic", extra=""):
    (env / "config.toml").write_text(
        f'[providers.loop]\nkind = "{kind}"\nbase_url = "{server.url}"\napi_key_env = "LOOP_KEY"\n{extra}'
    )


def test_list_prints_models(env, server):
    _local_provider(env, server, "openai-chat")
    server.queue(Reply(json.dumps({"data": [{"id": "m-1", "capabilities": {"tools": {"supported": True}}}]}).encode()))
    out = run(models_group, "list", "loop")
    assert out.exit_code == 0 and "m-1" in out.output and "tools" in out.output
    server.queue(Reply(b"not found", status=404))
    missing = CliRunner().invoke(models_group, ["list", "loop"])
    assert missing.exit_code == 4 and "does not offer a model list" in missing.stderr


def test_test_json_reports_the_probe(env, server):
    _local_provider(env, server)
    server.queue(Reply.recording("anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"))
    out = run(models_group, "test", "loop/claude-x", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["ok"] is True and data["outcome"] == "tool_called"
    assert data["text"] == "I'll check the current weather in Paris for you."
    assert data["tool_calls"] == [{"name": "get_weather", "arguments": {"location": "Paris"}}]
    assert data["usage"] == {"input": 377, "output": 65, "cached": 0}
    assert data["error"] is None and data["latency_ms"] >= 0
    assert server.requests[0].headers["x-api-key"] == "sk-loop"
    # The probe call was counted in the usage ledger, under "probe".
    rows = UsageLedger(env / "state" / "usage-v1.json").rows()
    assert [(r.provider, r.model, r.purpose, r.input) for r in rows] == [("loop", "claude-x", "probe", 377)]


def test_test_lists_then_tries_candidates(env, server):
    _local_provider(env, server)
    server.queue(
        Reply(json.dumps({"data": [{"id": "claude-a"}, {"id": "claude-b"}], "has_more": False}).encode()),
        Reply.recording("anthropic_messages_stream/pydantic-ai__cache_read_55096_tokens_stream.sse"),
        Reply.recording("anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"),
    )
    out = run(models_group, "test", "loop")
    assert out.exit_code == 0, out.output
    assert "claude-a answered with text only" in out.output and "OK: loop/claude-b" in out.output


def test_test_provider_error_exits_4_with_the_servers_words(env, server):
    _local_provider(env, server)
    server.queue(
        Reply(b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', status=401)
    )
    out = CliRunner().invoke(models_group, ["test", "loop/claude-x", "--json"])
    assert out.exit_code == 4
    data = json.loads(out.stdout)
    assert data["ok"] is False and data["outcome"] == "auth" and data["error"]["server"] == "invalid x-api-key"


def test_usage_command_reports_the_ledger(env):
    ledger = UsageLedger(env / "state" / "usage-v1.json")
    from mika.model.messages import NO_USAGE, Usage

    ledger.record("deepseek", "deepseek-chat", "main", Usage(1200, 300, 1000))
    ledger.record("deepseek", "deepseek-chat", "main", NO_USAGE)
    ledger.close()
    data = json.loads(run(usage_command, "--range", "24h", "--json").output)
    assert data["total"] == {"input": 1200, "output": 300, "cached": 1000, "calls": 1, "unreported": 1, "tokens": 1500}
    assert len(data["buckets"]) == 24 and data["buckets"][-1]["providers"]["deepseek"]["tokens"] == 1500
    text = run(usage_command).output
    assert "1500" in text and "deepseek/deepseek-chat" in text and "1 calls reported no usage" in text
    zh = CliRunner(env={"MIKA_LANGUAGE": "zh"}).invoke(usage_command, [])
    assert "合计" in zh.output
    bad = CliRunner().invoke(usage_command, ["--range", "1y"])
    assert bad.exit_code == 2 and "24h, 7d, 30d, 90d" in bad.stderr


def _add_loop(server, *more):
    return CliRunner().invoke(
        models_group,
        [
            "add",
            "custom",
            "--id",
            "loop",
            "--kind",
            "anthropic",
            "--base-url",
            server.url,
            "--api-key-env",
            "LOOP_KEY",
            "--test",
            *more,
        ],
    )


def test_add_with_test_saves_and_picks_the_main_model(env, server):
    server.queue(
        Reply(json.dumps({"data": [{"id": "claude-a"}], "has_more": False}).encode()),
        Reply.recording("anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse"),
    )
    out = _add_loop(server)
    assert out.exit_code == 0, out.output + out.stderr
    data = tomllib.loads((env / "config.toml").read_text())
    assert data["providers"]["loop"]["kind"] == "anthropic" and data["roles"]["main"] == "loop/claude-a"


def test_add_with_test_saves_nothing_when_the_key_is_wrong(env, server):
    server.queue(
        Reply(b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', status=401)
    )
    out = _add_loop(server, "--model", "claude-a")
    assert out.exit_code == 4 and "nothing was saved" in out.stderr and "invalid x-api-key" in out.stderr
    assert not (env / "config.toml").exists()


def test_add_with_test_keeps_the_provider_when_only_the_model_fails(env, server):
    server.queue(Reply.recording("anthropic_messages_stream/pydantic-ai__cache_read_55096_tokens_stream.sse"))
    out = _add_loop(server, "--model", "claude-chatty")
    assert out.exit_code == 1
    data = tomllib.loads((env / "config.toml").read_text())
    assert "loop" in data["providers"] and "roles" not in data


def test_use_records_what_the_listing_said_about_the_model(env, server):
    (env / "config.toml").write_text(
        f'[providers.oc]\npreset = "opencode-go"\nbase_url = "{server.url}/v1"\napi_key_env = "LOOP_KEY"\n'
    )
    server.queue(
        Reply(
            json.dumps(
                {
                    "data": [
                        {
                            "id": "gpt-5",
                            "api": {"responses": {"base_url": "https://opencode.ai/inference/go/openai/v1"}},
                            "limit": {"context": 400000},
                        },
                        {
                            "id": "kimi-k2",
                            "api": {
                                "chat-completions": {
                                    "base_url": f"{server.url}/v1",
                                    "compatibility": {"reasoning_field": "reasoning_content"},
                                }
                            },
                        },
                    ]
                }
            ).encode()
        )
    )
    assert run(models_group, "list", "oc").exit_code == 0
    assert run(models_group, "use", "main", "oc/gpt-5").exit_code == 0
    assert run(models_group, "use", "light", "oc/kimi-k2").exit_code == 0
    models = tomllib.loads((env / "config.toml").read_text())["providers"]["oc"]["models"]
    assert models["gpt-5"] == {
        "context_window": 400000,
        "kind": "openai-responses",
        "base_url": "https://opencode.ai/inference/go/openai/v1",
    }
    assert models["kimi-k2"] == {"reasoning_field": "reasoning_content"}


def test_language_and_config_come_from_the_root_command(env):
    import click

    other = env / "other.toml"
    other.write_text('[general]\nlanguage = "zh"\n')

    @click.group()
    @click.option("--config", "config_path", default=None)
    @click.pass_context
    def root(ctx, config_path):  # stands in for `mika --config …` (mika/cli.py stores it in ctx.obj)
        ctx.obj = {"config": config_path}

    root.add_command(models_group)
    root.add_command(usage_command)
    out = CliRunner().invoke(root, ["--config", str(other), "models", "add", "ollama"])
    assert out.exit_code == 0 and "已把服务商 ollama" in out.output
    assert "[providers.ollama]" in other.read_text()
    assert "这段时间没有模型调用" in CliRunner().invoke(root, ["--config", str(other), "usage"]).output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_test_over_its_time_limit_says_so_not_network(env, server, lang):
    # A loopback server that answers, but one SSE event per second: the probe's 0.5 s runs out first.
    _local_provider(env, server)
    server.queue(Reply.recording("anthropic_messages_stream/anthropic-sdk__tool_use_get_weather.sse", delay=1.0))
    out = CliRunner(env={"MIKA_LANGUAGE": lang}).invoke(models_group, ["test", "loop/claude-x", "--timeout", "0.5"])
    assert out.exit_code == 4
    said = out.output + out.stderr
    if lang == "en":
        assert "The probe took longer than 0.5 s" in said and "--timeout" in said
        assert "network" not in said.lower() and "Could not reach" not in said
    else:
        assert "测试超过了 0.5 秒" in said and "网络" not in said
    assert "Traceback" not in said
