"""`mika mcp servers list|test` (the click group, driven with CliRunner) against a config
naming the real fixture MCP server, a broken one and an HTTP one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mika.commands.mcp_servers import servers_group
from tests.mcp_cap.conftest import SERVER


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path, monkeypatch, http_url):
    path = write_config(
        tmp_path,
        f"""
[general]
language = "en"

[mcp.servers.fx]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(SERVER))}]
env = {{ FIXTURE_TOKEN = "plum-orchard-7781" }}
start_timeout_s = 60

[mcp.servers.broken]
command = "/nonexistent/mcp-server"

[mcp.servers.remote]
url = "{http_url}"
headers = {{ "X-Api-Key" = "header-secret-123" }}
enabled = false
""",
    )
    monkeypatch.setenv("MIKA_CONFIG", str(path))
    return path


def run(*args: str):
    return CliRunner().invoke(servers_group, list(args), catch_exceptions=False)


class TestList:
    def test_the_table_names_each_server_and_never_a_secret(self, config):
        r = run("list")
        assert r.exit_code == 0, r.output
        lines = r.stdout.splitlines()
        assert lines[0].split() == ["NAME", "TRANSPORT", "ENABLED", "COMMAND", "/", "URL"]
        assert any(ln.startswith("fx ") and "stdio" in ln and "fixture_server.py" in ln for ln in lines)
        assert any(ln.startswith("remote ") and " no " in ln and "/mcp" in ln for ln in lines)
        assert "plum-orchard" not in r.output and "header-secret" not in r.output

    def test_json_gives_env_and_header_names_only(self, config):
        r = run("list", "--json")
        assert r.exit_code == 0
        data = {d["name"]: d for d in json.loads(r.stdout)}
        assert data["fx"]["transport"] == "stdio" and data["fx"]["env"] == ["FIXTURE_TOKEN"]
        assert data["remote"]["transport"] == "http" and data["remote"]["enabled"] is False
        assert data["remote"]["headers"] == ["X-Api-Key"]
        assert "plum-orchard" not in r.stdout and "header-secret" not in r.stdout

    def test_no_servers_is_said_on_stderr(self, tmp_path, monkeypatch):
        monkeypatch.setenv("MIKA_CONFIG", str(write_config(tmp_path, '[general]\nlanguage = "en"\n')))
        r = run("list")
        assert r.exit_code == 0 and r.stdout == ""
        assert "No MCP servers are configured" in r.stderr


class TestTest:
    def test_a_working_server_lists_its_tools_with_their_risk(self, config):
        r = run("test", "fx")
        assert r.exit_code == 0, r.output
        rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[1:]}
        assert rows["mcp_fx_lookup"][1:3] == ["lookup", "read"]
        assert rows["mcp_fx_delete_item"][1:3] == ["delete_item", "write"]
        assert rows["mcp_fx_send_note"][1:3] == ["send_note", "external"]
        assert rows["mcp_fx_plain_echo"][1:3] == ["plain_echo", "write"]
        assert "MCP server fx:" in r.stderr and "tool(s)" in r.stderr

    def test_an_http_server_is_tested_even_when_disabled_and_says_so(self, config):
        r = run("test", "remote")
        assert r.exit_code == 0, r.output
        assert "mcp_remote_lookup" in r.stdout
        assert "disabled in the config" in r.stderr

    def test_a_broken_server_is_one_line_and_exit_1(self, config):
        r = run("test", "broken")
        assert r.exit_code == 1
        errors = [ln for ln in r.stderr.splitlines() if ln.startswith("mika:")]
        assert len(errors) == 1
        assert "'broken'" in errors[0] and "command was not found" in errors[0]
        assert "Traceback" not in r.output

    def test_an_unknown_name_suggests_the_closest(self, config):
        r = run("test", "fxx")
        assert r.exit_code == 2
        assert "no MCP server named 'fxx'" in r.stderr and "did you mean fx?" in r.stderr

    def test_a_bad_config_names_the_key(self, tmp_path, monkeypatch):
        path = write_config(tmp_path, '[mcp.servers.both]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n')
        monkeypatch.setenv("MIKA_CONFIG", str(path))
        r = run("test", "both")
        assert r.exit_code == 2
        assert "mcp.servers.both" in r.stderr and "exactly one of command" in r.stderr
