"""do_steps on the simulated phone through a real run: a chat reply whose Send had no
effect (the field was still empty) is not reported as "All 3 steps done"; the batch stops
at that step, says why, and the reply is never typed after the fact."""

from __future__ import annotations

from mika.model.testing import Reply
from tests.phone.driver import ListingDriver, current_listing, number_for, step
from tests.phone.test_runs import make_run, record, results_of, world_state


class BatchDriver(ListingDriver):
    """A ListingDriver whose do_steps steps may `pick` elements from the latest listing too."""

    def reply(self, request):
        out = super().reply(request)
        if isinstance(out, Reply) and out.tool_calls and out.tool_calls[0][0] == "do_steps":
            listing = current_listing(self.results)
            for s in out.tool_calls[0][1]["steps"]:
                args = s.setdefault("args", {})
                if "pick" in args:
                    args["element"] = number_for(listing, args.pop("pick"), args.pop("role", None))
        return out


def chat_messages(sim_phone) -> list[str]:
    chats = world_state(sim_phone)["chats"]
    return [m["text"] for m in next(c for c in chats if c["id"] == "c1")["messages"]]


def _driver(optional: bool) -> BatchDriver:
    send = {"tool": "phone_tap", "args": {"pick": "发送"}}
    if optional:
        send["optional"] = True
    return BatchDriver(
        [
            step("phone_launch_app", app="微聊"),
            step("phone_tap", pick="小明"),
            # The model presses Send before typing: Send does nothing on an empty field.
            step(
                "do_steps",
                steps=[
                    send,
                    {"tool": "phone_type_text", "args": {"pick": "输入消息", "text": "好的，七点见"}},
                    {"tool": "phone_back", "args": {}},
                ],
            ),
            "done",
        ]
    )


async def test_a_send_with_no_effect_stops_the_batch(tmp_path, sim_phone, phone_cap):
    before = chat_messages(sim_phone)
    driver = _driver(optional=False)
    run = make_run(tmp_path, phone_cap, driver)
    await run.run()
    batch = driver.results[2]
    assert "All 3 steps done" not in batch, batch
    assert "1. phone_tap: ok · no_effect" in batch, batch
    assert (
        "Stopped after step 1 (phone_tap): it had no visible effect" in batch and "Steps 2, 3 were not done." in batch
    )
    assert chat_messages(sim_phone) == before  # nothing was sent, and the batch says so
    events = record(run)
    result = results_of(events, "do_steps")[0]
    assert result["code"] == "stopped_no_effect" and not result["ok"], result
    # The step itself went through the executor and was recorded with its effect.
    assert [t["effect"] for t in results_of(events, "phone_tap")][-1] == "no_effect"
    assert results_of(events, "phone_type_text") == []


async def test_an_optional_step_with_no_effect_lets_the_batch_go_on(tmp_path, sim_phone, phone_cap):
    driver = _driver(optional=True)
    run = make_run(tmp_path, phone_cap, driver)
    await run.run()
    batch = driver.results[2]
    assert "1. phone_tap: ok · no_effect · optional" in batch, batch
    assert "All 3 steps done." in batch and "2. phone_type_text: ok · " in batch, batch
