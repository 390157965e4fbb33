"""ContextCompressor, ContextRecovery and the ContextBuilder's compression policy."""

from __future__ import annotations

import itertools

from mika.agent.compressor import ContextCompressor, estimate_messages, estimate_text
from mika.agent.context import ContextBuilder
from mika.agent.history import History, ResultInfo, ResultKind, only_last_image
from mika.agent.recovery import ContextRecovery
from mika.agent.system_prompt import SystemPrompt
from mika.model.errors import ModelError, ModelErrorKind
from mika.model.messages import Image, Message, Text, ToolCall, ToolResult, Usage
from mika.model.testing import FunctionModel, Reply
from mika.record.events import Compressed
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.groups import ToolGroups
from tests.agent.phoneish import screen_listing

SCREEN = screen_listing("Orders", 1)


def build_history(turns: int, *, steer_at: int = -1, ask_at: int = -1, page_at: int = -1) -> History:
    h = History()
    h.add_user(Text("Find order 7731"), users_words=True)
    for i in range(turns):
        cid = f"c{i}"
        if i == ask_at:
            h.add_assistant(
                Message("assistant", (ToolCall(cid, "ask_user", {"question": "Which one?"}),)), exchange=True
            )
            h.note_result(ResultInfo(cid, "ask_user", i + 1, ResultKind.PLAIN, ("o-ans",), protected=True))
            h.add_user(ToolResult(cid, "ask_user", "The user answered: the blue one"))
        elif i == page_at:
            h.add_assistant(Message("assistant", (ToolCall(cid, "sim_page", {}),)))
            h.note_result(ResultInfo(cid, "sim_page", i + 1, ResultKind.TEXT, (f"o{i}",)))
            h.add_user(ToolResult(cid, "sim_page", "help " * 2000 + f"\n[observation o{i}]"))
        else:
            h.add_assistant(Message("assistant", (Text(f"reading {i}"), ToolCall(cid, "sim_read", {}))))
            h.note_result(ResultInfo(cid, "sim_read", i + 1, ResultKind.SCREEN, (f"o{i}",)))
            # As the loop writes it: the read, then its observation id.
            h.add_user(ToolResult(cid, "sim_read", f"{SCREEN}\n[observation o{i}]"), Text(f"[step {i + 1}]"))
        if i == steer_at:
            h.add_user(Text("The user adds: only this week's orders"), users_words=True)
    return h


def all_text(messages) -> str:
    out = []
    for m in messages:
        for p in m.parts:
            out.append(getattr(p, "text", "") or "")
    return "\n".join(out)


def check_shape(view: list[Message]) -> None:
    """Roles alternate, and every tool result answers a call sent before it (and back)."""
    assert view[0].role == "user"
    for a, b in itertools.pairwise(view):
        assert a.role != b.role, "two messages of the same role in a row"
    calls = {c.id for m in view for c in m.tool_calls}
    results = {r.call_id for m in view for r in m.tool_results}
    assert calls == results


class TestLevels:
    def test_level_one_turns_old_screens_into_placeholders_that_keep_ids(self):
        h = build_history(20, page_at=2)
        c = ContextCompressor().compress(h, 1)
        view = list(c.head) + h.messages[c.cut :]
        text = all_text(view)
        assert "[old screen o0 omitted]" in text
        assert "more characters cut; observation o2" in text
        # The last 12 turns are the live messages themselves.
        assert h.messages[c.cut :] == h.messages[-24:]
        check_shape(view)
        assert estimate_text(all_text(view)) < estimate_text(all_text(h.messages))

    def test_folding_keeps_the_users_words_verbatim_and_the_exchange_whole(self):
        h = build_history(30, steer_at=3, ask_at=5)
        for level in (2, 3, 4, 5):
            c = ContextCompressor().compress(h, level)
            view = list(c.head) + h.messages[c.cut :]
            text = all_text(view)
            assert "Find order 7731" in text
            assert "The user adds: only this week's orders" in text
            assert "The user answered: the blue one" in text
            assert any(call.name == "ask_user" for m in view for call in m.tool_calls)
            assert "Earlier steps (compressed):" in text
            for i in range(30):
                if i not in (3, 5):
                    assert f"o{i}" in text, f"level {level} lost observation o{i}"
            check_shape(view)

    def test_each_level_is_smaller_than_the_one_before(self):
        h = build_history(40)
        sizes = []
        for level in range(1, 6):
            c = ContextCompressor().compress(h, level)
            # What the request would cost (the compressor's own estimate, per message and
            # per call), not the bare text: a folded line replaces a whole call and its result.
            sizes.append(estimate_messages(list(c.head) + h.messages[c.cut :]))
        assert sizes == sorted(sizes, reverse=True) and sizes[-1] < sizes[0] / 3

    def test_a_short_history_is_left_alone(self):
        h = build_history(5)
        c = ContextCompressor().compress(h, 2)
        assert c.cut == 0 and c.head == ()


class TestRecovery:
    def test_puts_back_the_opening_and_missing_words(self):
        h = build_history(20, steer_at=2)
        c = ContextCompressor().compress(h, 3)
        # A faulty level: it lost the opening and the steer.
        broken = type(c)(
            head=(Message("user", (Text("Earlier steps (compressed):\n- step 1"),)),), cut=c.cut, level=c.level
        )
        fixed = ContextRecovery().restore(broken, h)
        text = all_text(list(fixed.compressed.head) + h.messages[fixed.compressed.cut :])
        assert fixed.compressed.head[0].parts[0] == h.messages[0].parts[0]
        assert "The user adds: only this week's orders" in text
        assert "opening" in fixed.restored

    def test_quiet_when_nothing_is_missing(self):
        h = build_history(20, steer_at=2)
        c = ContextCompressor().compress(h, 3)
        assert ContextRecovery().restore(c, h).restored == ()


def make_builder(window: int) -> ContextBuilder:
    spec = RunSpec(goal="Find order 7731", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    builder = ContextBuilder(spec, SystemPrompt({}), ToolGroups([]), window=window)
    # The policy is tested on a history that grows with every read: old screens stay
    # whole here (placeholders outside compression are tested in test_screen_delta.py).
    builder.history.screen_window = None
    return builder


def grow(builder: ContextBuilder, turns: int, start: int = 0) -> None:
    for i in range(start, start + turns):
        cid = f"g{i}"
        builder.history.add_assistant(Message("assistant", (ToolCall(cid, "sim_read", {}),)))
        builder.history.note_result(ResultInfo(cid, "sim_read", i, ResultKind.SCREEN, (f"o{i}",)))
        builder.history.add_user(ToolResult(cid, "sim_read", SCREEN))


class TestPolicy:
    def test_compresses_past_the_trigger_and_lands_below_half_of_it(self):
        b = make_builder(20_000)
        grow(b, 40)
        b.build()
        assert b.compressions, "over 0.6 of the window: must compress"
        trigger, target, _ = b._limits()
        assert b.compressions[0].before_tokens > trigger
        assert b.compressions[0].after_tokens <= target

    def test_never_twice_without_new_input(self):
        b = make_builder(20_000)
        grow(b, 40)
        b.build()
        b.build()
        assert len(b.compressions) == 1
        grow(b, 1, start=40)
        b.build()
        assert len(b.compressions) == 1  # well below the trigger again: hysteresis

    def test_quiet_below_the_trigger(self):
        b = make_builder(200_000)
        grow(b, 40)
        b.build()
        assert not b.compressions

    def test_calibrates_by_reported_usage(self):
        b = make_builder(20_000)
        grow(b, 5)
        request = b.build()
        estimated = b.estimate(request)
        b.calibrate(request, Usage(input_tokens=estimated * 2))
        assert 1.9 < b.ratio < 2.1
        assert b.estimate(request) > 1.9 * estimated
        b.calibrate(request, Usage(reported=False))
        assert 1.9 < b.ratio < 2.1

    def test_a_huge_result_is_cut_where_it_enters(self):
        b = make_builder(10_000)
        text = b.cut_result("x" * 100_000, ("o9",))
        assert len(text) < 10_000 and text.endswith("cut to fit the context; observation o9]")
        assert b.cut_result("short", ()) == "short"


def test_only_the_last_message_keeps_its_image():
    img = Image(b"png", ref="o1")
    msgs = [
        Message("user", (Text("a"), img)),
        Message("assistant", (Text("b"),)),
        Message("user", (Text("c"), Image(b"2"))),
    ]
    out = only_last_image(msgs)
    assert out[0].parts[1] == Text("[screenshot o1 from an earlier step, not re-sent]")
    assert isinstance(out[2].parts[1], Image)


async def test_a_context_overflow_is_retried_once_at_a_harsher_level(make_run):
    seen = []

    def reply(request):
        seen.append(request)
        if len(seen) <= 20:
            return Reply.calls(("sim_tap", {"label": f"Item {len(seen)}"}), ("sim_read", {}))
        if len(seen) == 21:
            return Reply(error=ModelError(ModelErrorKind.CONTEXT_OVERFLOW, "prompt is too long"))
        return "Order 7731 was found."

    model = FunctionModel(reply, context_window=400_000)
    run = make_run(model)
    events = []
    run.subscribe(events.append)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    assert len(seen) == 22
    comp = [e for e in events if isinstance(e, Compressed)]
    assert len(comp) == 1 and comp[0].level >= 3
    assert len(seen[21].messages) < len(seen[20].messages)
    assert "check my orders" in all_text(seen[21].messages)


async def test_an_overflow_that_persists_fails_the_run_with_its_sentence(make_run):
    model = FunctionModel(
        lambda r: Reply(error=ModelError(ModelErrorKind.CONTEXT_OVERFLOW, "too long")), context_window=50_000
    )
    result = await make_run(model).run()
    assert result.status is OutcomeStatus.FAILED and result.subtype == "context_overflow"
    assert "context window" in result.answer
