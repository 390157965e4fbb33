"""`mika models add|use` edit the user's config in place: their comments and layout
survive, and odd names and values come back unchanged through the real config loader."""

from __future__ import annotations

import tomllib

import pytest

from mika.config.errors import ConfigError
from mika.model.config_edit import add_model_table, plan_provider_table, set_role
from mika.model.providers_config import load_providers

HAND_WRITTEN = """\
# Mika config — written by hand, keep my notes!
roles.light = "main"  # cheap model later

[general]
language = "zh"   # 中文界面

[providers.deepseek]  # work account
preset = "deepseek"
api_key_env = "DEEPSEEK_API_KEY"

# the Settings screen owns [ui]
[ui]
graphics = "auto"
"""

COMMENTS = [
    "# Mika config — written by hand, keep my notes!",
    "# cheap model later",
    "# 中文界面",
    "# work account",
    "# the Settings screen owns [ui]",
]


@pytest.fixture
def cfg(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def _write_plan(path, provider_id, values):
    text, planned = plan_provider_table(path, provider_id, values)
    path.write_text(text, encoding="utf-8")
    return planned


def test_add_provider_model_and_roles_keep_every_comment(cfg) -> None:
    _write_plan(
        cfg,
        "local",
        {"preset": "custom", "kind": "openai-chat", "base_url": "http://127.0.0.1:8000/v1", "api_key_env": None},
    )
    add_model_table(cfg, "local", "qwen2.5-7b", {"context_window": 32768})
    set_role(cfg, "main", "local/qwen2.5-7b")
    set_role(cfg, "light", "deepseek/deepseek-chat")  # the dotted key at the top is edited where it is
    text = cfg.read_text(encoding="utf-8")
    for comment in COMMENTS:
        assert comment in text, comment
    assert text.startswith(HAND_WRITTEN.splitlines()[0])
    assert 'roles.light = "deepseek/deepseek-chat"' in text and "[roles]" not in text
    loaded = load_providers(tomllib.loads(text), cfg)
    assert loaded.roles.main == "local/qwen2.5-7b" and loaded.roles.light == "deepseek/deepseek-chat"
    assert loaded.providers["local"].base_url == "http://127.0.0.1:8000/v1"
    assert loaded.providers["local"].api_key_env is None  # None means "leave the key out"
    assert tomllib.loads(text)["providers"]["local"]["models"]["qwen2.5-7b"] == {"context_window": 32768}
    assert tomllib.loads(text)["ui"] == {"graphics": "auto"}


ODD = [
    'say "hi"',
    "line one\nline two",
    "back\\slash and tab\t",
    "中文 · émoji 🚀 · \u200b zero width",
    "'single' and \"double\" and '''triple'''",
]


@pytest.mark.parametrize("odd", ODD, ids=["quotes", "newline", "backslash", "unicode", "triple-quotes"])
def test_odd_values_round_trip_through_the_loader(cfg, odd) -> None:
    _write_plan(
        cfg,
        "odd",
        {
            "preset": "custom",
            "kind": "openai-chat",
            "base_url": "https://example.test/v1",
            "name": odd,
            "api_key_env": "KEY_" + "X",
        },
    )
    loaded = load_providers(tomllib.loads(cfg.read_text(encoding="utf-8")), cfg)
    assert loaded.providers["odd"].name == odd


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "org/model.v2", 'quoted "name"', "模型.大", "a]b[c"])
def test_model_names_with_dots_slashes_and_quotes_are_one_key(cfg, model) -> None:
    assert add_model_table(cfg, "deepseek", model, {"context_window": 1000}) is not None
    data = tomllib.loads(cfg.read_text(encoding="utf-8"))
    assert list(data["providers"]["deepseek"]["models"]) == [model]
    set_role(cfg, "main", f"deepseek/{model}")
    loaded = load_providers(tomllib.loads(cfg.read_text(encoding="utf-8")), cfg)
    assert loaded.roles.main == f"deepseek/{model}"
    assert model in loaded.providers["deepseek"].models
    # The user's own table for the model wins: nothing is written a second time.
    before = cfg.read_text(encoding="utf-8")
    assert add_model_table(cfg, "deepseek", model, {"context_window": 5}) is None
    assert cfg.read_text(encoding="utf-8") == before


def test_roles_in_a_table_or_inline_are_set_in_place(tmp_path) -> None:
    table = tmp_path / "t.toml"
    table.write_text('[roles]  # mine\nvision = "none"\n\n[ui]\ngraphics = "auto"\n')
    set_role(table, "main", "deepseek/deepseek-chat")
    text = table.read_text()
    assert text.count("[roles]") == 1 and "# mine" in text
    assert tomllib.loads(text)["roles"] == {"vision": "none", "main": "deepseek/deepseek-chat"}
    inline = tmp_path / "i.toml"
    inline.write_text('roles = { vision = "none" }  # inline\n')
    set_role(inline, "main", "deepseek/deepseek-chat")
    assert "# inline" in inline.read_text()
    assert tomllib.loads(inline.read_text())["roles"]["main"] == "deepseek/deepseek-chat"


def test_a_new_file_and_scattered_provider_tables(tmp_path) -> None:
    fresh = tmp_path / "new.toml"
    set_role(fresh, "main", "deepseek/deepseek-chat")
    assert tomllib.loads(fresh.read_text()) == {"roles": {"main": "deepseek/deepseek-chat"}}
    scattered = tmp_path / "s.toml"
    scattered.write_text(
        '[providers.a]\npreset = "deepseek"\n\n[roles]\nmain = "a/x"\n\n[providers.b]\npreset = "deepseek"\n'
    )
    _write_plan(scattered, "c", {"preset": "deepseek"})
    data = tomllib.loads(scattered.read_text())
    assert set(data["providers"]) == {"a", "b", "c"} and data["roles"] == {"main": "a/x"}


def test_a_value_where_a_table_belongs_is_a_config_error_and_nothing_is_written(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('providers = "oops"\nroles = 3\n')
    with pytest.raises(ConfigError) as info:
        plan_provider_table(path, "x", {"preset": "deepseek"})
    assert "providers" in str(info.value)
    with pytest.raises(ConfigError) as info:
        set_role(path, "main", "deepseek/deepseek-chat")
    assert "roles" in str(info.value)
    assert path.read_text() == 'providers = "oops"\nroles = 3\n'


def test_a_provider_id_that_is_no_bare_key_is_refused(cfg) -> None:
    with pytest.raises(ConfigError) as info:
        plan_provider_table(cfg, "a.b", {"preset": "deepseek"})
    assert "--id" in str(info.value)
    assert cfg.read_text(encoding="utf-8") == HAND_WRITTEN
