"""Where config and state live: the platform's folders (XDG on Linux) unless an override
names another place; the overrides are read when asked, so a changed environment is seen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mika.config.paths import config_file, state_dir

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the XDG variables are the Linux convention; macOS and Windows use their own folders",
)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ("MIKA_CONFIG", "MIKA_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_explicit_config_beats_mika_config(clean_env, tmp_path) -> None:
    clean_env.setenv("MIKA_CONFIG", str(tmp_path / "env.toml"))
    assert config_file(tmp_path / "flag.toml") == tmp_path / "flag.toml"
    assert config_file() == tmp_path / "env.toml"


def test_mika_config_beats_xdg_and_expands_home(clean_env, tmp_path) -> None:
    clean_env.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    clean_env.setenv("MIKA_CONFIG", "~/mine.toml")
    assert config_file() == tmp_path / "home" / "mine.toml"


def test_mika_state_dir_beats_xdg(clean_env, tmp_path) -> None:
    clean_env.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    clean_env.setenv("MIKA_STATE_DIR", str(tmp_path / "state here"))
    assert state_dir() == tmp_path / "state here"


def test_empty_overrides_count_as_unset(clean_env, tmp_path) -> None:
    clean_env.setenv("MIKA_CONFIG", "")
    clean_env.setenv("MIKA_STATE_DIR", "  ")
    assert config_file().name == "config.toml" and config_file().parent.name == "mika"
    assert state_dir().name == "mika"


@linux_only
def test_xdg_variables_are_honoured_on_linux(clean_env, tmp_path) -> None:
    clean_env.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    clean_env.setenv("XDG_STATE_HOME", str(tmp_path / "st"))
    assert config_file() == tmp_path / "cfg" / "mika" / "config.toml"
    assert state_dir() == tmp_path / "st" / "mika"
    # Read on each call, not once at import.
    clean_env.setenv("XDG_STATE_HOME", str(tmp_path / "other"))
    assert state_dir() == tmp_path / "other" / "mika"


@linux_only
def test_linux_defaults_without_any_variable(clean_env, tmp_path) -> None:
    home = Path(tmp_path / "home")
    assert config_file() == home / ".config" / "mika" / "config.toml"
    assert state_dir() == home / ".local" / "state" / "mika"
