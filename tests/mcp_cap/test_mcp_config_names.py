"""`[mcp.servers.*]` parsing, unknown keys, secret discovery; tool names and risk levels."""

from __future__ import annotations

import pytest
from mcp_types import ToolAnnotations

from mika.cap.mcp.naming import MAX_LEN, assign_names, base_name
from mika.cap.mcp.risk import risk_of
from mika.cap.mcp.tool import action_label, input_schema
from mika.config.errors import ConfigError
from mika.config.secret_discovery import configured_secrets
from mika.config.settings import parse_settings
from mika.tool.declaration import Risk


class TestConfig:
    def test_stdio_and_http_servers_in_file_order(self):
        s = parse_settings(
            {
                "mcp": {
                    "servers": {
                        "b": {"command": "srv", "args": ["--x"], "env": {"K": "v"}},
                        "a": {"url": "http://127.0.0.1:9/mcp", "bearer_token_env": "A_TOKEN", "call_timeout_s": 5},
                    }
                }
            }
        )
        assert [x.name for x in s.mcp_servers] == ["b", "a"]
        b, a = s.mcp_servers
        assert b.transport == "stdio" and b.args == ("--x",) and dict(b.env) == {"K": "v"}
        assert a.transport == "http" and a.call_timeout_s == 5.0 and a.bearer_token_env == "A_TOKEN"

    @pytest.mark.parametrize(
        ("table", "key", "words"),
        [
            ({}, "mcp.servers.x", "exactly one of command"),
            ({"command": "a", "url": "http://h/mcp"}, "mcp.servers.x", "exactly one of command"),
            ({"url": "ftp://h/mcp"}, "mcp.servers.x.url", "http:// or https://"),
            ({"command": "a", "args": "b"}, "mcp.servers.x.args", "a list of strings"),
            ({"command": "a", "env": {"K": 1}}, "mcp.servers.x.env", 'NAME = "value"'),
            ({"url": "http://h/mcp", "env": {"K": "v"}}, "mcp.servers.x.env", "no env for a server reached by url"),
            ({"command": "a", "headers": {"K": "v"}}, "mcp.servers.x.headers", "reached by command"),
            ({"command": "a", "call_timeout_s": 0}, "mcp.servers.x.call_timeout_s", "from 1 to 3600"),
            ({"url": "http://h/mcp", "bearer_token_env": "not a name"}, "mcp.servers.x.bearer_token_env", "name"),
        ],
    )
    def test_bad_tables_name_the_key(self, table, key, words):
        with pytest.raises(ConfigError) as err:
            parse_settings({"mcp": {"servers": {"x": table}}})
        assert err.value.key == key and words in str(err.value)

    def test_a_bad_env_value_is_not_echoed(self):
        with pytest.raises(ConfigError) as err:
            parse_settings({"mcp": {"servers": {"x": {"command": "a", "env": {"K": ["s3cret-value-99"]}}}}})
        assert "s3cret" not in str(err.value)

    def test_a_bad_server_name(self):
        with pytest.raises(ConfigError, match="server name"):
            parse_settings({"mcp": {"servers": {"a b": {"command": "x"}}}})

    def test_unknown_keys_of_a_server_are_warned_with_a_guess(self):
        s = parse_settings({"mcp": {"servers": {"x": {"command": "a", "arg": []}}, "sever": 1}})
        assert "unknown key mcp.servers.x.arg (did you mean mcp.servers.x.args?)" in s.warnings
        assert any(w.startswith("unknown key mcp.sever") for w in s.warnings)

    def test_env_values_headers_and_bearer_tokens_are_secrets(self):
        raw = {
            "mcp": {
                "servers": {
                    "x": {"command": "a", "env": {"NOTES": "plum-orchard-7781"}},
                    "y": {"url": "http://h/mcp", "headers": {"X-Key": "hdr-value-4242"}, "bearer_token_env": "Y_TOK"},
                }
            }
        }
        found = configured_secrets(raw, None, environ={"Y_TOK": "bearer-value-5151"})
        assert {"plum-orchard-7781", "hdr-value-4242", "bearer-value-5151"} <= set(found)


class TestNames:
    def test_sanitised_and_prefixed(self):
        assert base_name("my files", "read.file/v2") == "mcp_my_files_read_file_v2"
        assert base_name("srv", "日本") == "mcp_srv_x"

    def test_capped_with_a_hash_that_keeps_long_names_apart(self):
        a = base_name("server", "a" * 80 + "one")
        b = base_name("server", "a" * 80 + "two")
        assert len(a) == len(b) == MAX_LEN and a != b

    def test_collisions_get_numbers_in_order_and_the_same_every_time(self):
        pairs = [("s", "a.b"), ("s", "a_b"), ("s", "a-b")]
        first = assign_names(pairs)
        assert first == ["mcp_s_a_b", "mcp_s_a_b_2", "mcp_s_a_b_3"]
        assert assign_names(pairs) == first
        assert all(len(n) <= MAX_LEN for n in assign_names([("s", "x" * 90)] * 3))
        assert len(set(assign_names([("s", "x" * 90)] * 3))) == 3


class TestRisk:
    @pytest.mark.parametrize(
        ("annotations", "risk"),
        [
            (None, Risk.WRITE),
            (ToolAnnotations(), Risk.WRITE),
            (ToolAnnotations(read_only_hint=True), Risk.READ),
            (ToolAnnotations(read_only_hint=True, open_world_hint=True), Risk.READ),
            (ToolAnnotations(destructive_hint=True), Risk.WRITE),
            (ToolAnnotations(destructive_hint=True, open_world_hint=True), Risk.EXTERNAL),
            (ToolAnnotations(open_world_hint=True), Risk.EXTERNAL),
            (ToolAnnotations(read_only_hint=False, open_world_hint=False), Risk.WRITE),
        ],
    )
    def test_annotations(self, annotations, risk):
        assert risk_of(annotations) is risk

    def test_labels_read_like_buttons_for_the_payment_check(self):
        assert action_label("placeOrder", "") == "place order"
        assert action_label("pay_now", "Pay now") == "pay now · Pay now"

    def test_odd_or_huge_schemas_become_an_open_object(self):
        assert input_schema({"type": "array"})["type"] == "object"
        assert input_schema(None)["type"] == "object"
        huge = {
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "description": "x" * 100} for i in range(200)},
        }
        assert input_schema(huge)["properties"] == {}
        assert input_schema({"properties": {"a": {"type": "string"}}})["type"] == "object"


def test_the_example_config_documents_every_server_key_and_its_example_parses():
    import tomllib
    from pathlib import Path

    from mika.config.mcp_servers import SERVER_KEYS

    text = (Path(__file__).parents[2] / "config.example.toml").read_text()
    block = text.split("# [mcp.servers.notes]", 1)[1].split("\n[ui]", 1)[0]
    # The example is commented out (no server by default): uncomment one level.
    toml = "[mcp.servers.notes]" + "\n".join(line.removeprefix("#").removeprefix(" ") for line in block.splitlines())
    for key in SERVER_KEYS:
        assert f"\n{key} = " in toml, key
    s = parse_settings(tomllib.loads(toml))
    assert s.warnings == ()
    assert [(x.name, x.transport) for x in s.mcp_servers] == [("notes", "stdio"), ("search", "http")]
