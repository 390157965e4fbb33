"""The reference-solution player (`--model script:PATH` with "pick"): it reads element
numbers off the run's latest screen listing, a delta screen rebuilt over its base, and a
pick that matches nothing ends the run as a `script_mismatch` model error naming the
label. Through a real adb server against the simulated phone, with the product's own
loader (the assembly's, which injects the listing reader)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from mika.assembly.models import load_reference_script
from mika.config.errors import ConfigError
from mika.model.messages import ToolResult
from mika.model.script_file import load_script
from mika.runtypes.result import OutcomeStatus
from mika.uistate.listing_read import ElementNotListed, current_listing, number_for
from tests.phone.test_fenced_results import default_cap
from tests.phone.test_runs import make_run, record

TO_WIFI = [
    {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Settings"}}]},
    {"tool_calls": [{"name": "phone_tap", "pick": "Network & internet"}]},
    {"tool_calls": [{"name": "phone_tap", "pick": "Internet", "role": "item"}]},
    # The switch's own row: its result is a delta (only the switch and a hint line change).
    {"tool_calls": [{"name": "phone_tap", "pick": "Use Wi-Fi", "role": "item"}]},
]


def write(tmp_path, script) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return str(path)


def sent_results(model, request: int = -1) -> list[str]:
    sent = model.requests[request]
    return [p.text for m in sent.messages for p in m.parts if isinstance(p, ToolResult)]


async def test_picks_are_read_off_the_listing_and_a_delta_is_rebuilt_over_its_base(tmp_path, sim_phone):
    # "Navigate up" is not in the delta after the switch: only its base listing has it,
    # so the pick works only when the delta is read over that base.
    script = [*TO_WIFI, {"tool_calls": [{"name": "phone_tap", "pick": "Navigate up"}]}, "Wi-Fi is off."]
    model = load_reference_script(write(tmp_path, script))
    run = make_run(tmp_path, default_cap(sim_phone), SimpleNamespace(model=model))  # type: ignore[arg-type]
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert sim_phone.device.world.state()["settings"]["wifi"] is False
    # As the model was sent them when it picked "Navigate up" (the record keeps full
    # listings; later requests send older screens as placeholders).
    results = sent_results(model, 4)
    delta = results[3]
    assert "Changed since screen v" in delta and '"Navigate up"' not in delta
    tapped = [e["arguments"] for e in record(run) if e["type"] == "tool_call"][4]
    # The number the base listing gave "Navigate up", as a model reading both would use.
    assert tapped["element"] == number_for(current_listing(results[:4]), "Navigate up")
    assert "Navigate up" in sent_results(model)[4]
    assert model.remaining == 0


async def test_a_pick_that_matches_nothing_ends_the_run_naming_the_label(tmp_path, sim_phone):
    # After Wi-Fi is off the saved networks are gone from the screen (the delta says so).
    script = [*TO_WIFI, {"tool_calls": [{"name": "phone_tap", "pick": "HomeNet"}]}, "joined"]
    model = load_reference_script(write(tmp_path, script))
    run = make_run(tmp_path, default_cap(sim_phone), SimpleNamespace(model=model))  # type: ignore[arg-type]
    result = await run.run()
    assert result.status is OutcomeStatus.FAILED
    assert result.subtype == "script_mismatch"
    assert "'HomeNet'" in result.answer and "reply 5" in result.answer
    assert sum(1 for e in record(run) if e["type"] == "tool_call") == 4  # the bad tap never ran


async def test_a_script_that_runs_out_of_replies_is_a_script_mismatch_too(tmp_path, sim_phone):
    model = load_reference_script(write(tmp_path, TO_WIFI[:1]))
    run = make_run(tmp_path, default_cap(sim_phone), SimpleNamespace(model=model))  # type: ignore[arg-type]
    result = await run.run()
    assert result.status is OutcomeStatus.FAILED and result.subtype == "script_mismatch"
    assert "no reply left after 1" in result.answer


def test_a_pick_without_a_listing_reader_is_refused_at_load(tmp_path):
    with pytest.raises(ConfigError, match="pick"):
        load_script(write(tmp_path, TO_WIFI))


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ([{"tool_calls": [{"name": "phone_tap", "pick": 3}]}], "pick"),
        ([{"tool_calls": [{"name": "phone_tap", "arguments": [1]}]}], "arguments"),
        ([], "non-empty"),
    ],
)
def test_malformed_scripts_are_config_errors_naming_the_field(tmp_path, bad, where):
    with pytest.raises(ConfigError, match=where):
        load_reference_script(write(tmp_path, bad))


def test_number_for_prefers_the_exact_label_then_containment_and_names_what_is_missing():
    listing = (
        'Screen v2 · x\n<untrusted source="screen">\n1 text "Network & internet"\n2 item "Internet · On"\n</untrusted>'
    )
    assert number_for(listing, "Network & internet") == 1
    assert number_for(listing, "Internet", "item") == 2
    assert number_for(listing, "internet") == 1  # containment, case-insensitive, first row
    with pytest.raises(ElementNotListed, match=r"button 'Internet'"):
        number_for(listing, "Internet", "button")


async def test_a_pick_made_stale_by_a_screen_change_is_picked_again_off_the_new_listing(tmp_path, sim_phone):
    from tests.agent.test_screen_delta_phone import open_messages

    open_messages(sim_phone)
    script = [
        {"tool_calls": [{"name": "phone_observe"}]},
        {"tool_calls": [{"name": "phone_tap", "pick": "Alice Chen"}]},
        "Opened Alice's thread.",
    ]
    model = load_reference_script(write(tmp_path, script))
    orig = model.fn

    def reply(request):
        if len(model.requests) == 2:
            # The player picks "Alice Chen" off the listing it was given, while a new
            # thread pushes every row down behind its back.
            world = sim_phone.device.world
            world.data["threads"].insert(
                0, {"id": "t9", "name": "Zed", "number": "9", "messages": [{"dir": "in", "text": "hi"}]}
            )
            world.changed()
        return orig(request)

    model.fn = reply
    run = make_run(tmp_path, default_cap(sim_phone), SimpleNamespace(model=model))  # type: ignore[arg-type]
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    results = sent_results(model)
    taps = [e["arguments"] for e in record(run) if e["type"] == "tool_call" and e["name"] == "phone_tap"]
    assert len(taps) == 2 and taps[0] != taps[1]  # the same pick, a new number
    assert results[1].startswith("[stale_element]")
    assert 'Tapped item "Alice Chen' in results[2] or "Alice Chen" in results[2].split("\n", 1)[0]
    assert model.remaining == 0


def test_match_stands_for_the_last_code_a_tool_read(tmp_path):
    from mika.model.errors import ModelError
    from mika.model.messages import Message, ModelRequest

    script = [
        {"tool_calls": [{"name": "phone_type_text", "arguments": {"text": "{match}", "submit": True}}]},
        "Signed in with the code {match}.",
    ]
    player = load_reference_script(write(tmp_path, script))
    read = ToolResult("c1", "phone_event", "A notification arrived.\nMatch: 482913")
    request = ModelRequest("sys", (Message.user("go"), Message("user", (read,))))
    first = player._reply(request)
    assert first.tool_calls == (("phone_type_text", {"text": "482913", "submit": True}),)
    again = ToolResult("c2", "phone_event", "Another one.\nMatch: 777001")
    assert player._reply(ModelRequest("sys", (*request.messages, Message("user", (again,))))).text == (
        "Signed in with the code 777001."
    )
    blind = load_reference_script(write(tmp_path, script))
    with pytest.raises(ModelError, match=r"uses \{match\}, but no tool of the run returned"):
        blind._reply(ModelRequest("sys", (Message.user("go"),)))
