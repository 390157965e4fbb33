"""Nothing a model, a phone or a stored record says reaches the terminal as a control sequence.

A hostile model answers with an OSC title change, a CSI screen clear, an 8-bit CSI, a bare
carriage return that would print "yes" over "no", backspaces and a bidi override; the goal
the user typed carries the same. The run is real (`mika --no-ui` in a subprocess with a
scripted model); `runs list|show`, `conversations list|show` and `usage` then read what it
stored. Text output keeps the words and loses the controls; JSON output keeps the exact
value (it round-trips) with no raw ESC, C1 or bidi character in the bytes written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mika.commands.conversations import conversations_group
from mika.commands.usage import usage_command
from mika.model.messages import Usage
from mika.terminal_text import for_terminal, json_for_terminal, one_line
from mika.usage.ledger import UsageLedger

EVIL = "Paid: no\rPaid: yes\x1b]0;owned title\x07\x1b[2J\x9b2J\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ ab\x08\x08 \u202eevil\u202c"
# What a terminal would act on: ESC and every other C0 but \t \n, DEL, C1, bidi controls.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def assert_clean(text: str) -> None:
    found = RAW.findall(text)
    assert not found, f"raw control characters reached the terminal: {found!r} in {text!r}"


class TestTheModule:
    @pytest.mark.parametrize(
        "raw",
        [
            "\x1b]0;title\x07",
            "\x1b]0;title\x1b\\",
            "\x1b]0;unterminated",
            "\x1b[2J",
            "\x1b[38;5;196m",
            "\x1bc",
            "\x1b(0",
            "\x9b2J",
            "\x9d0;t\x9c",
            "\x90dcs\x9c",
            "\x1bP+q\x1b\\",
            "\x08",
            "\x7f",
            "\x00",
            "\u202e",
            "\u2066",
        ],
    )
    def test_each_sequence_is_removed_whole(self, raw):
        out = for_terminal(f"before{raw}after")
        # An OSC nobody ends swallows the rest, as the terminal itself would.
        assert out == ("before" if raw.endswith("unterminated") else "beforeafter")

    def test_words_tabs_newlines_and_other_scripts_stay(self):
        text = "Total: ¥42.10\n\t订单已提交 — 注文 ✓ [b]not markup[/b]"
        assert for_terminal(text) == text
        assert for_terminal("no\rYES") == "no\nYES" and for_terminal("a\r\nb") == "a\nb"
        assert one_line("title\nwith\tbreaks\x1b[2J") == "title with breaks"

    def test_json_escapes_what_json_dumps_passes_through_and_round_trips(self):
        value = {"answer": EVIL, "中文": "好"}
        out = json_for_terminal(value, indent=1)
        assert_clean(out)
        assert json.loads(out) == value
        assert "中文" in out  # still readable UTF-8, not ensure_ascii


def mika(args, env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    full.update(env, MIKA_DEVICE="none", MIKA_LANGUAGE="en")
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args], capture_output=True, text=True, timeout=90, env=full
    )


@pytest.fixture(scope="module")
def hostile_state(tmp_path_factory):
    """One real headless run whose goal and answer are hostile; its text output is kept."""
    tmp = tmp_path_factory.mktemp("hostile")
    env = {"MIKA_STATE_DIR": str(tmp / "state"), "XDG_CONFIG_HOME": str(tmp / "cfg")}
    script = tmp / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}, EVIL]))
    run = mika(["--no-ui", "--model", f"script:{script}", "buy " + EVIL], env)
    assert run.returncode == 0, run.stderr
    return env, run


def test_headless_text_output_is_clean(hostile_state):
    _, run = hostile_state
    assert_clean(run.stdout)
    assert_clean(run.stderr)
    assert "Paid: no\nPaid: yes" in run.stdout and "evil" in run.stdout and "link" in run.stdout


def test_headless_stream_json_is_clean_and_exact(hostile_state, tmp_path):
    env, _ = hostile_state
    script = tmp_path / "s.json"
    script.write_text(json.dumps([EVIL]))
    run = mika(["run", "--output-format", "stream-json", "--model", f"script:{script}", "go"], env)
    assert run.returncode == 0, run.stderr
    assert_clean(run.stdout)
    final = json.loads(run.stdout.splitlines()[-1])
    assert final["type"] == "result" and final["answer"] == EVIL
    single = mika(["run", "--output-format", "json", "--model", f"script:{script}", "go"], env)
    assert_clean(single.stdout)
    assert json.loads(single.stdout)["answer"] == EVIL


def test_runs_list_and_show(hostile_state):
    env, _ = hostile_state
    listed = mika(["runs", "list"], env)
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed.stdout)
    rows = [line for line in listed.stdout.splitlines() if "Paid" in line]
    assert len(rows) == 1 and rows[0].endswith("buy Paid: no Paid: yes")  # one row: the \r did not split it
    as_json = mika(["runs", "list", "--json"], env)
    assert_clean(as_json.stdout)
    run = next(r for r in json.loads(as_json.stdout) if r["goal"].startswith("buy"))
    assert run["goal"] == "buy " + EVIL
    shown = mika(["runs", "show", run["id"]], env)
    assert shown.returncode == 0, shown.stderr
    assert_clean(shown.stdout)
    assert "outcome: answered" in shown.stdout and "evil" in shown.stdout
    shown_json = mika(["runs", "show", run["id"], "--json"], env)
    assert_clean(shown_json.stdout)
    events = json.loads(shown_json.stdout)["events"]
    assert any(e.get("answer") == EVIL for e in events)


def test_conversations_list_and_show(hostile_state, monkeypatch):
    env, _ = hostile_state
    monkeypatch.setenv("MIKA_STATE_DIR", env["MIKA_STATE_DIR"])
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    runner = CliRunner()
    listed = runner.invoke(conversations_group, ["list"], catch_exceptions=False)
    conv_id = json.loads(runner.invoke(conversations_group, ["list", "--json"]).stdout)[0]["id"]
    # The title is the goal's first words: give it the hostile text outright too.
    assert runner.invoke(conversations_group, ["rename", conv_id, EVIL]).exit_code == 0
    for args in (["list"], ["show", conv_id], ["list", "--json"], ["show", conv_id, "--json"]):
        out = runner.invoke(conversations_group, args, catch_exceptions=False)
        assert out.exit_code == 0, out.output
        assert_clean(out.stdout)
        assert_clean(out.stderr)
    assert_clean(listed.stdout)
    table = runner.invoke(conversations_group, ["list"]).stdout
    count = len(json.loads(runner.invoke(conversations_group, ["list", "--json"]).stdout))
    assert len(table.strip().splitlines()) == 1 + count  # a header and one row each: no \r broke a row
    shown = json.loads(runner.invoke(conversations_group, ["show", conv_id, "--json"]).stdout)
    # Rename folds the title's line breaks; the controls are stored as typed, and only output cleans them.
    assert shown["title"] == " ".join(EVIL.split()) and "\x1b]0;" in shown["title"]
    assert shown["turns"][0]["answer"] == EVIL


def test_usage_with_hostile_provider_and_model_names(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("MIKA_CONFIG", str(tmp_path / "config.toml"))
    ledger = UsageLedger(tmp_path / "state" / "usage-v1.json")
    ledger.record("evil\x1b]0;t\x07", "model\x9b2J\u202e", "main", Usage(10, 5, 0))
    ledger.close()
    for args in ([], ["--json"]):
        out = CliRunner().invoke(usage_command, args, catch_exceptions=False)
        assert out.exit_code == 0, out.output
        assert_clean(out.stdout)
    assert "evil/model " in CliRunner().invoke(usage_command, []).stdout


def test_devices_with_a_hostile_model_name(sim_phone_factory):
    """A phone names itself: its model reaches `mika devices` (table and JSON) as text."""
    from mika.commands.devices import devices_command
    from mika.sim.phone import make_device

    device = make_device("evil-sim", None, None)
    device.world.props["ro.product.model"] = "Pixel\x1b]0;owned\x07\x1b[2J\x9b2J\u202eX"
    phone = sim_phone_factory(device, serial="evil-sim")
    table = CliRunner().invoke(devices_command, [], catch_exceptions=False)
    assert table.exit_code == 0, table.output
    assert_clean(table.stdout)
    assert phone.serial in table.stdout
    as_json = CliRunner().invoke(devices_command, ["--json"], catch_exceptions=False)
    assert_clean(as_json.stdout)
    row = next(r for r in json.loads(as_json.stdout) if r["serial"] == phone.serial)
    assert row["model"] == device.world.props["ro.product.model"]  # JSON keeps the value, escaped
    assert "\tPixelX\t" in table.stdout  # the table shows its text, none of its controls


def test_models_list_with_hostile_model_ids_from_the_provider(tmp_path, monkeypatch):
    """A provider on loopback lists model ids carrying controls: `mika models list` shows text."""
    from mika.commands.models import models_group
    from tests.models.replay_server import ReplayServer, Reply

    monkeypatch.setenv("MIKA_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LOOP_KEY", "sk-loop")
    hostile = "m-1\x1b]0;owned\x07\x1b[2J\u202e"
    with ReplayServer() as server:
        (tmp_path / "config.toml").write_text(
            f'[providers.loop]\nkind = "openai-chat"\nbase_url = "{server.url}"\napi_key_env = "LOOP_KEY"\n'
        )
        for args in (["list", "loop"], ["list", "loop", "--json"]):
            server.queue(Reply(json.dumps({"data": [{"id": hostile}]}).encode()))
            out = CliRunner().invoke(models_group, args, catch_exceptions=False)
            assert out.exit_code == 0, out.output
            assert_clean(out.stdout)
            if "--json" in args:
                assert json.loads(out.stdout)["loop"][0]["name"] == hostile
            else:
                assert "m-1" in out.stdout
