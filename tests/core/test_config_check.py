"""Unknown config keys warn with the closest known key; `mika config check` exits 2 on
them (and on bad values), 0 with one OK line when the file is clean. Through the real
click CLI and real files."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mika.cli import cli
from mika.config.settings import load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("MIKA_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def check(*args: str):
    return CliRunner().invoke(cli, ["config", "check", *args])


def test_a_typo_warns_with_the_closest_key(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[general]\npase = "fast"\n')
    seen: list[str] = []
    settings = load_settings(cfg, warn=seen.append)
    assert settings.pace == "standard"  # the typo was not taken as pace …
    assert seen == [f"{cfg}: unknown key general.pase (did you mean general.pace?)"]  # … and is said


def test_unknown_keys_are_named_in_every_table(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('pace = "fast"\n[genral]\nlanguage = "en"\n[run]\nmax_paralel = 2\n[ui]\nzzzz = 1\n')
    out = check("--config", str(cfg))
    assert out.exit_code == 2
    lines = out.stderr.strip().splitlines()
    assert lines == [
        f"mika: {cfg}: unknown key pace (did you mean general.pace?)",
        f"mika: {cfg}: unknown table [genral] (did you mean general?)",
        f"mika: {cfg}: unknown key run.max_paralel (did you mean run.max_parallel?)",
        f"mika: {cfg}: unknown key ui.zzzz",
    ]
    assert "Traceback" not in out.output


def test_a_clean_file_is_one_ok_line(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        '[general]\npace = "fast"\n[keymap]\nstop_run = "escape"\n'
        '[providers.local]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:8000/v1"\n'
        '[roles]\nmain = "local/m"\n'
    )
    out = check("--config", str(cfg))
    assert out.exit_code == 0, out.output
    assert out.stdout == f"config OK: {cfg}\n"


def test_the_top_level_config_option_is_used_too(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[general]\npase = "fast"\n')
    out = CliRunner().invoke(cli, ["--config", str(cfg), "config", "check"])
    assert out.exit_code == 2 and "did you mean general.pace?" in out.stderr


def test_no_file_means_defaults_and_is_ok(tmp_path):
    out = check()
    assert out.exit_code == 0 and out.stdout.startswith("config OK: no file at ")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            '[providers.x]\nkind = "openai-chat"\nbase_url = "http://h/v1"\napi_key_evn = "K"\n',
            "providers.x.api_key_evn: expected one of",
        ),
        (
            '[providers.x]\nkind = "openai-chat"\nbase_url = "http://h/v1"\n[providers.x.models."m"]\ncontext_windw = 8\n',
            'did you mean providers.x.models."m".context_window?',
        ),
        ('[roles]\nmian = "x/y"\n', "did you mean roles.main?"),
        ('[general]\npace = "slow"\n', "general.pace: expected one of fast, standard, human"),
        ("[general\n", "expected valid TOML"),
    ],
    ids=["provider_key", "model_key", "role", "bad_value", "bad_toml"],
)
def test_provider_and_value_errors_exit_2_naming_the_key(tmp_path, text, words):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    out = check("--config", str(cfg))
    assert out.exit_code == 2
    assert words in out.stderr
    if "api_key_evn" in text:
        assert "did you mean providers.x.api_key_env?" in out.stderr


def test_a_headless_run_warns_on_stderr(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[general]\npase = "fast"\n')
    script = tmp_path / "s.json"
    script.write_text('["ok"]')
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_DEVICE="none", MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    r = subprocess.run(
        [sys.executable, "-m", "mika.cli", "--no-ui", "--config", str(cfg), "--model", f"script:{script}", "go"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"
    assert "unknown key general.pase (did you mean general.pace?)" in r.stderr
