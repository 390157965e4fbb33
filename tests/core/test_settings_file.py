"""Config loading: defaults, overrides, and errors that name the file, key and expectation."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mika.config.errors import ConfigError
from mika.config.settings import load_settings, parse_settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_config_is_valid(monkeypatch):
    monkeypatch.delenv("MIKA_LANGUAGE", raising=False)
    s = load_settings(ROOT / "config.example.toml")
    assert s.language == "auto" and s.pace == "standard" and not s.autonomous
    assert s.raw["roles"]["main"] == "local/some-model"


def test_a_missing_default_config_means_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("MIKA_CONFIG", raising=False)
    assert load_settings().file is None


def test_a_wrong_type_names_file_key_and_expectation(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[general]\nautonomous = "yes"\n')
    with pytest.raises(ConfigError) as e:
        load_settings(f)
    assert str(e.value) == f"{f}: general.autonomous: expected true or false (got 'yes')"


def test_broken_toml_is_reported_with_the_file(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[general\n")
    with pytest.raises(ConfigError) as e:
        load_settings(f)
    assert str(f) in str(e.value) and "valid TOML" in str(e.value)


def test_environment_overrides_the_file(monkeypatch):
    monkeypatch.setenv("MIKA_PACE", "human")
    monkeypatch.setenv("MIKA_AUTONOMOUS", "1")
    s = parse_settings(tomllib.loads('[general]\npace = "fast"\n'))
    assert s.pace == "human" and s.autonomous


def test_choices_are_checked():
    with pytest.raises(ConfigError, match=r"run\.max_parallel"):
        parse_settings({"run": {"max_parallel": 9}})
    with pytest.raises(ConfigError, match="one of auto, en, zh"):
        parse_settings({"general": {"language": "fr"}})


def test_model_errors_speak_the_ui_language():
    from mika.model.errors import ModelError, ModelErrorKind

    err = ModelError(ModelErrorKind.AUTH, "invalid x-api-key", status=401)
    assert (
        err.user_message("en") == "The provider rejected the API key. Check the key in your config. (invalid x-api-key)"
    )
    assert err.user_message("zh").startswith("服务商拒绝了 API Key") and "invalid x-api-key" in err.user_message("zh")
