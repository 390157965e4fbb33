"""The web capability in the assembly and the faces (issue 15): `[web]` settings, one
run's WebOptions, the browser left out with one notice (or, `--web-only`, the error),
`mika --no-ui --web-only` with no adb server touched, stream-json web steps.

Real parts: the real `mika` CLI in a subprocess, real Chromium and the loopback test
site (tests/web/conftest.py), the scripted model (`--model script:PATH`).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.web import downloads_for, no_browser_notice, web_language, web_options
from mika.config.errors import ConfigError
from mika.config.language import set_language
from mika.config.settings import parse_settings
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.web.conftest import chromium_path, site  # noqa: F401  (fixtures)

CLI = RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED)


# -- [web] settings ------------------------------------------------------------------------


def test_web_settings_default_to_on_auto_headless_100mb():
    s = parse_settings({})
    assert (s.web_enabled, s.web_browser, s.web_headless, s.web_download_cap_mb) == (True, "auto", True, 100)
    s = parse_settings({"web": {"enabled": False, "browser": "/opt/chrome", "headless": False, "download_cap_mb": 5}})
    assert (s.web_enabled, s.web_browser, s.web_headless, s.web_download_cap_mb) == (False, "/opt/chrome", False, 5)
    assert s.warnings == ()


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"enabled": "yes"}, "web.enabled"),
        ({"browser": 3}, "web.browser"),
        ({"browser": "  "}, "web.browser"),
        ({"headless": 1}, "web.headless"),
        ({"download_cap_mb": 0}, "web.download_cap_mb"),
        ({"download_cap_mb": 10_001}, "web.download_cap_mb"),
        ({"download_cap_mb": True}, "web.download_cap_mb"),
        ({"download_cap_mb": "100"}, "web.download_cap_mb"),
    ],
)
def test_a_bad_web_value_is_a_config_error_naming_the_key(table, key):
    with pytest.raises(ConfigError) as err:
        parse_settings({"web": table}, Path("/cfg/config.toml"))
    assert err.value.key == key
    assert key in str(err.value) and "/cfg/config.toml" in str(err.value)


def test_a_misspelt_web_key_is_warned_with_the_right_one():
    s = parse_settings({"web": {"headles": True}})
    assert any("web.headles" in w and "web.headless" in w for w in s.warnings)


def test_the_example_config_documents_every_web_key():
    text = (Path(__file__).parents[2] / "config.example.toml").read_text()
    web = text.split("[web]", 1)[1].split("\n[", 1)[0]
    for key in ("enabled", "browser", "headless", "download_cap_mb"):
        assert f"\n{key} = " in web


# -- one run's WebOptions --------------------------------------------------------------------


def test_a_runs_browser_downloads_into_its_conversations_workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_DATA_DIR", str(tmp_path / "data"))
    settings = parse_settings({"web": {"headless": False, "download_cap_mb": 7}})
    spec = RunSpec(goal="look", provenance=CLI, conversation_id="c1")
    opts = web_options(settings, tmp_path / "state", spec, browser="/usr/bin/chromium", pace="standard")
    assert opts.downloads_dir == tmp_path / "state" / "workspaces" / "c1" / "downloads"
    assert opts.profile_dir == tmp_path / "data" / "browser"
    assert opts.site_modes_file == tmp_path / "data" / "web_site_modes.json"
    assert (opts.browser, opts.headless, opts.download_cap_mb, opts.pace) == ("/usr/bin/chromium", False, 7, "standard")
    # Outside any conversation: a folder of the run's own, never another run's.
    alone = RunSpec(goal="look", provenance=CLI)
    assert downloads_for(alone, tmp_path) == tmp_path / "downloads" / alone.id


def test_a_conversation_id_that_is_a_path_is_refused_for_downloads(tmp_path):
    spec = RunSpec(goal="look", provenance=CLI, conversation_id="../../etc")
    with pytest.raises(Exception, match="conversation"):
        downloads_for(spec, tmp_path)


def test_the_page_language_follows_mika_only_when_the_user_chose_one(monkeypatch):
    monkeypatch.delenv("MIKA_LANGUAGE", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # the system's language is not a choice
    assert web_language(parse_settings({})) is None
    assert web_language(parse_settings({"general": {"language": "en"}})) == "en"
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    assert web_language(parse_settings({})) == "zh"


def test_the_no_browser_notice_is_in_the_ui_language():
    try:
        set_language("zh")
        assert no_browser_notice("X").startswith("网页工具暂时不可用")
        set_language("en")
        assert no_browser_notice("X") == "The web tools are off for now: X"
    finally:
        set_language(None)


class _Named:
    def __init__(self, ident: str) -> None:
        self.id = ident
        self.group = ident
        self.surface = None

    def tools(self):
        return []

    def prompt_section(self):
        return None

    def services(self):
        return ()

    async def close(self) -> None:
        return None


def test_spec_capabilities_filter_the_web_like_the_phone():
    built: list[str] = []

    def web(spec: RunSpec) -> _Named:
        built.append(spec.id)
        return _Named("web")

    env = RunEnvironment(phone=lambda: _Named("phone"), web=web)
    every = capabilities_for(RunSpec(goal="g", provenance=CLI), env)
    assert [c.id for c in every][1:] == ["phone", "web"]
    phone_only = capabilities_for(RunSpec(goal="g", provenance=CLI, capabilities=("phone",)), env)
    assert [c.id for c in phone_only][1:] == ["phone"]
    web_only = capabilities_for(RunSpec(goal="g", provenance=CLI, capabilities=("web",)), env)
    assert [c.id for c in web_only][1:] == ["web"]
    assert len(built) == 2  # never built for a run that may not use it


# -- the faces ---------------------------------------------------------------------------------


class AdbTrap:
    """A listener where the adb server would be: any connection means something reached
    for adb. (The real adb server would answer; this only has to notice being asked.)"""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.touched = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        self.touched.set()
        conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def no_adb(tmp_path):
    trap = AdbTrap()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_") and not k.startswith("ANDROID_")}
    env.update(
        ANDROID_ADB_SERVER_PORT=str(trap.port),
        ADBUTILS_ADB_PATH=str(tmp_path / "no-adb-here"),  # nothing can start an adb server
        MIKA_STATE_DIR=str(tmp_path / "state"),
        MIKA_DATA_DIR=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
    )
    env.pop("ADB_SERVER_SOCKET", None)
    yield trap, env
    trap.close()


def mika(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def script(tmp_path: Path, replies: list) -> str:
    p = tmp_path / "script.json"
    p.write_text(json.dumps(replies))
    return f"script:{p}"


def config(tmp_path: Path, web: str) -> str:
    p = tmp_path / "config.toml"
    p.write_text(f"[web]\n{web}\n")
    return str(p)


def test_web_only_reads_a_page_with_no_adb_server_touched(tmp_path, no_adb, chromium_path, site):  # noqa: F811
    trap, env = no_adb
    url = site.url("/engine/second.html")
    model = script(
        tmp_path, [{"tool_calls": [{"name": "web_navigate", "arguments": {"url": url}}]}, "It is the second page."]
    )
    cfg = config(tmp_path, f'browser = "{chromium_path}"')
    r = mika(
        ["--no-ui", "--web-only", "--config", cfg, "--output-format", "stream-json", "--model", model, "which page?"],
        env,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    called = [e for e in lines if e["type"] == "tool_call" and e["name"] == "web_navigate"]
    finished = [e for e in lines if e["type"] == "tool_result" and e["name"] == "web_navigate"]
    # stream-json shows the web step like a phone step: call and result, capability "web".
    assert called and called[0]["capability"] == "web"
    assert finished and finished[0]["capability"] == "web" and finished[0]["ok"], finished
    assert "The second page" in finished[0]["text"]
    assert lines[-1]["type"] == "result" and lines[-1]["answer"] == "It is the second page."
    assert any(req.path == "/engine/second.html" for req in site.seen)
    started = next(e for e in lines if e["type"] == "run_started")
    assert "phone" not in started["capabilities"] and "web" in started["capabilities"]
    assert not trap.touched.is_set(), "a --web-only run reached for the adb server"


def test_device_none_runs_offer_the_web_tools(tmp_path, no_adb, chromium_path, site):  # noqa: F811
    trap, env = no_adb
    url = site.url("/engine/button.html")
    model = script(tmp_path, [{"tool_calls": [{"name": "web_navigate", "arguments": {"url": url}}]}, "Read."])
    cfg = config(tmp_path, f'browser = "{chromium_path}"')
    r = mika(
        ["--no-ui", "--device", "none", "--config", cfg, "--output-format", "json", "--model", model, "read it"], env
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["answer"] == "Read."
    assert any(req.path == "/engine/button.html" for req in site.seen)
    assert not trap.touched.is_set()


def test_web_only_without_a_browser_is_exit_3_with_the_sentence(tmp_path, no_adb):
    trap, env = no_adb
    missing = tmp_path / "no-chromium"
    cfg = config(tmp_path, f'browser = "{missing}"')
    r = mika(["--no-ui", "--web-only", "--config", cfg, "--model", script(tmp_path, ["never"]), "look"], env)
    assert r.returncode == 3, r.stderr
    assert str(missing) in r.stderr and "does not exist" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    # "auto" with no browser anywhere: the sentence names both ways to get one.
    env = {**env, "PATH": str(tmp_path / "empty-bin"), "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "no-pw")}
    r = mika(["--no-ui", "--web-only", "--model", script(tmp_path, ["never"]), "look"], env)
    assert r.returncode == 3, r.stderr
    assert "playwright install chromium" in r.stderr and "[web] browser" in r.stderr
    assert not trap.touched.is_set()


def test_without_a_browser_the_web_is_left_out_with_one_notice(tmp_path, no_adb):
    trap, env = no_adb
    cfg = config(tmp_path, f'browser = "{tmp_path / "no-chromium"}"')
    r = mika(
        [
            "--no-ui",
            "--device",
            "none",
            "--config",
            cfg,
            "--output-format",
            "stream-json",
            "--model",
            script(tmp_path, ["fine"]),
            "hi",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    notices = [e for e in lines if e["type"] == "notice" and "web tools are off" in e["text"]]
    assert len(notices) == 1 and notices[0]["level"] == "warning"
    started = next(e for e in lines if e["type"] == "run_started")
    assert "web" not in started["capabilities"]
    assert not trap.touched.is_set()


def test_web_off_in_the_config_leaves_it_out_without_a_word(tmp_path, no_adb):
    trap, env = no_adb
    cfg = config(tmp_path, "enabled = false")
    r = mika(
        [
            "--no-ui",
            "--device",
            "none",
            "--config",
            cfg,
            "--output-format",
            "stream-json",
            "--model",
            script(tmp_path, ["fine"]),
            "hi",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert not [e for e in lines if e["type"] == "notice" and "web" in e["text"]]
    assert "web" not in next(e for e in lines if e["type"] == "run_started")["capabilities"]
    assert not trap.touched.is_set()


def test_web_only_with_a_phone_named_is_a_usage_error(tmp_path, no_adb):
    trap, env = no_adb
    r = mika(["run", "--web-only", "--device", "sim", "--model", script(tmp_path, ["x"]), "look"], env)
    assert r.returncode == 2
    assert "--web-only runs without a phone" in r.stderr
    assert not trap.touched.is_set()
