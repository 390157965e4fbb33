"""Routes on disk: one JSON file a route, atomic, and a broken file is a note, not a crash."""

from __future__ import annotations

import json
import stat

import pytest

from mika.replay.route import Route, RouteStep, fill, normalise, placeholders
from mika.replay.store import RouteNotFound, RouteStore


def a_route(route_id: str = "ab12cd34", **kw) -> Route:
    base: dict = {
        "id": route_id,
        "goal": "Set an alarm for 7:30",
        "normalised_goal": normalise("Set an alarm for 7:30"),
        "params": {"p1": "7", "p2": "30"},
        "steps": (
            RouteStep("phone_launch_app", {"app": "Clock"}, effect="place_changed"),
            RouteStep(
                "phone_tap",
                {},
                place={"app": "com.google.android.deskclock", "activity": ".Alarms"},
                anchor={"label": "Add alarm", "role": "button", "resource_id": "", "desc": ""},
                effect="place_changed",
            ),
            RouteStep("phone_set_alarm", {"hour": "{p1}", "minute": "{p2}"}),
        ),
        "created": 100.0,
    }
    base.update(kw)
    return Route(**base)


def test_a_route_round_trips_through_its_file_and_the_file_is_private(tmp_path):
    store = RouteStore(tmp_path)
    path = store.save(a_route())
    assert path == tmp_path / "routes" / "ab12cd34.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.get("ab12cd34") == a_route()
    assert [r.id for r in store.list()] == ["ab12cd34"]
    # Nothing of a coordinate or an element number is in the file.
    text = path.read_text()
    assert '"element"' not in text and '"x"' not in text


def test_list_is_most_recently_used_first_and_delete_removes_the_file(tmp_path):
    store = RouteStore(tmp_path)
    store.save(a_route("aaaa0001", created=10.0))
    store.save(a_route("aaaa0002", created=20.0))
    store.used(store.get("aaaa0001"), at=30.0)
    assert [r.id for r in store.list()] == ["aaaa0001", "aaaa0002"]
    assert store.get("aaaa0001").uses == 1
    store.delete("aaaa0002")
    assert not (tmp_path / "routes" / "aaaa0002.json").exists()
    with pytest.raises(RouteNotFound, match="no route 'aaaa0002'"):
        store.delete("aaaa0002")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({"id": "bad00001", "goal": "x", "steps": []}), "'steps' must be a non-empty list"),
        (json.dumps({"id": "bad00001", "goal": "x", "steps": [{"tool": 3}]}), "'tool' must be a tool name"),
        (json.dumps({"format": 9, "id": "bad00001", "goal": "x", "steps": [{"tool": "t"}]}), "format 9"),
        (json.dumps({"id": "other001", "goal": "x", "steps": [{"tool": "t"}]}), "not its file name"),
        ("\xff\xfe", "not valid JSON"),
    ],
)
def test_a_corrupt_route_file_is_skipped_with_a_note_and_get_names_it(tmp_path, content, why):
    store = RouteStore(tmp_path)
    store.save(a_route())
    (tmp_path / "routes" / "bad00001.json").write_text(content, encoding="latin-1")
    assert [r.id for r in store.list()] == ["ab12cd34"]
    assert store.problems and store.problems[0][0] == "bad00001.json" and why in store.problems[0][1]
    with pytest.raises(RouteNotFound, match="can't be read"):
        store.get("bad00001")


def test_an_id_that_could_name_another_file_is_refused(tmp_path):
    store = RouteStore(tmp_path)
    for bad in ("../x", "a/b", "", "ZZZZ"):
        with pytest.raises(RouteNotFound, match="not a route id"):
            store.get(bad)


def test_no_routes_folder_is_an_empty_list(tmp_path):
    assert RouteStore(tmp_path).list() == []


def test_normalise_folds_case_punctuation_and_space():
    assert normalise("  Turn ON dark mode!! ") == normalise("turn on dark   mode")
    assert normalise("在微聊里回复小明：好的，七点见") == normalise("在微聊里回复小明 好的 七点见")
    assert normalise("7:30") == "7 30"


def test_fill_puts_params_back_with_their_type():
    args = {"hour": "{p1}", "text": "at {p1}:{p2}", "days": ["{p3}"]}
    assert fill(args, {"p1": "7", "p2": "30", "p3": "mon"}) == {"hour": 7, "text": "at 7:30", "days": ["mon"]}
    assert placeholders(args) == {"p1", "p2", "p3"}
