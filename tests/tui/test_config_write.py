"""What the Settings and Models screens save: set inside the user's own file, keeping
their comments, with odd values and dotted keys coming back the same through the real
settings loader; a fresh file is written whole."""

from __future__ import annotations

import tomllib

import pytest

from mika.config.settings import load_settings
from mika_tui.config_write import ConfigWriteError, dumps, update_config

HAND_WRITTEN = """\
# my Mika config — 我的配置
[general]
language = "zh"  # 界面语言
pace = "standard"

# keys I rebound
[keymap]
"main.stop" = "ctrl+s"

[providers.deepseek]  # work
preset = "deepseek"
"""


def test_an_edit_keeps_the_users_comments_and_other_tables(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    update_config(path, {"general": {"autonomous": True, "pace": "human"}, "ui": {"graphics": "halfcell"}})
    text = path.read_text(encoding="utf-8")
    for comment in ("# my Mika config — 我的配置", "# 界面语言", "# keys I rebound", "# work"):
        assert comment in text, comment
    settings = load_settings(path)
    assert (settings.language, settings.pace, settings.autonomous, settings.graphics) == (
        "zh",
        "human",
        True,
        "halfcell",
    )
    assert settings.keymap == {"main.stop": "ctrl+s"}
    assert tomllib.loads(text)["providers"]["deepseek"] == {"preset": "deepseek"}
    # Only what changed changed: the rest of the file is byte for byte the user's.
    assert text.startswith('# my Mika config — 我的配置\n[general]\nlanguage = "zh"  # 界面语言\n')


ODD_KEYS = {
    "main.stop": 'ctrl+"q"',
    "chat.send": "ctrl+\n",
    "键.位": "ctrl+中",
    "with space": "a\\b\tc",
    "run]x[": "'''",
}


def test_odd_keys_and_values_round_trip_through_the_settings_loader(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    update_config(path, {"keymap": ODD_KEYS})
    assert load_settings(path).keymap == {**ODD_KEYS}
    fresh = tmp_path / "fresh.toml"
    update_config(fresh, {"keymap": ODD_KEYS, "general": {"language": "en"}})
    assert load_settings(fresh).keymap == ODD_KEYS and load_settings(fresh).language == "en"


def test_a_missing_file_is_written_fresh(tmp_path) -> None:
    path = tmp_path / "sub" / "config.toml"
    path.parent.mkdir()
    update_config(path, {"general": {"language": "en"}, "ui": {"graphics": "auto"}})
    assert tomllib.loads(path.read_text()) == {"general": {"language": "en"}, "ui": {"graphics": "auto"}}
    assert tomllib.loads(dumps({"a": {"b": {"c": 'x"y\nz'}}})) == {"a": {"b": {"c": 'x"y\nz'}}}


def test_a_broken_file_is_refused_and_left_alone(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[general\nlanguage = 'zh'\n")
    with pytest.raises(ConfigWriteError) as info:
        update_config(path, {"general": {"language": "en"}})
    assert str(path) in str(info.value)
    assert path.read_text() == "[general\nlanguage = 'zh'\n"


def test_a_value_where_a_table_is_needed_names_the_key(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('ui = "big"  # oops\n')
    with pytest.raises(ConfigWriteError) as info:
        update_config(path, {"ui": {"graphics": "auto"}})
    assert "ui is a value in the file" in str(info.value)
    assert path.read_text() == 'ui = "big"  # oops\n'


def test_values_toml_cannot_hold_are_a_clear_error(tmp_path) -> None:
    with pytest.raises(ConfigWriteError):
        update_config(tmp_path / "c.toml", {"general": {"language": None}})
