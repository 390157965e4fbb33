"""`mika routes list|show|delete` through click's runner on real route files."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mika.cli import cli
from mika.replay.store import RouteStore
from tests.replay.test_routes_store import a_route


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    return tmp_path


def mika(*args):
    return CliRunner().invoke(cli, ["routes", *args], catch_exceptions=False)


def test_list_show_delete(state):
    RouteStore(state).save(a_route())
    (state / "routes" / "bad00001.json").write_text("{nope")
    out = mika("list")
    assert out.exit_code == 0
    assert "ab12cd34" in out.stdout and "Set an alarm for 7:30" in out.stdout
    assert "Skipped route file bad00001.json: not valid JSON" in out.stderr
    data = json.loads(mika("list", "--json").stdout)
    assert [r["id"] for r in data] == ["ab12cd34"] and data[0]["steps"][2]["args"]["hour"] == "{p1}"
    shown = mika("show", "ab12cd34")
    assert shown.exit_code == 0
    assert "Parameters: p1 = '7', p2 = '30'" in shown.stdout
    assert 'phone_tap() on button "Add alarm"' in shown.stdout and "→ place_changed" in shown.stdout
    assert json.loads(mika("show", "ab12cd34", "--json").stdout)["id"] == "ab12cd34"
    gone = mika("delete", "ab12cd34")
    assert gone.exit_code == 0 and "Deleted route ab12cd34." in gone.stderr
    assert RouteStore(state).list() == []


def test_unknown_or_unreadable_ids_are_one_sentence_and_exit_2(state):
    (state / "routes").mkdir()
    (state / "routes" / "bad00001.json").write_text("[]")
    for args, said in (
        (("show", "ffff0000"), "no route 'ffff0000'"),
        (("delete", "ffff0000"), "no route 'ffff0000'"),
        (("show", "../etc"), "not a route id"),
        (("show", "bad00001"), "can't be read: not a JSON object"),
    ):
        out = mika(*args)
        assert out.exit_code == 2, out.output
        assert said in out.stderr and "Traceback" not in out.output


def test_an_empty_list_says_how_routes_come(state):
    out = mika("list")
    assert out.exit_code == 0 and out.stdout == "" and "[run] replay = true" in out.stderr


def test_chinese_text(state, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    assert "还没有录下的路线" in mika("list").stderr
