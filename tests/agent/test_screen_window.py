"""Old screens go out as placeholders a batch at a time, outside compression (issue 16, target 2).

The history itself is never rewritten; what a request carries keeps the last `recent` to
`recent + batch - 1` screens whole, and the cached prefix breaks only when a batch folds.
"""

from __future__ import annotations

import itertools
import re

import pytest

from mika.agent.context import ContextBuilder
from mika.agent.history import PLACEHOLDER_MARK, History, ResultInfo, ResultKind, ScreenWindow
from mika.agent.system_prompt import SystemPrompt
from mika.model.messages import Message, Text, ToolCall, ToolResult
from mika.model.testing import Reply, ScriptedModel
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.groups import ToolGroups
from tests.agent.phoneish import screen_listing


def builder(window: ScreenWindow | None) -> ContextBuilder:
    spec = RunSpec(goal="Find order 7731", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    b = ContextBuilder(spec, SystemPrompt({}), ToolGroups([]))
    b.history.screen_window = window
    return b


def read(b: ContextBuilder, i: int, *, kind: ResultKind = ResultKind.SCREEN, protected: bool = False) -> None:
    cid = f"c{i}"
    b.history.add_assistant(Message("assistant", (ToolCall(cid, "sim_read", {}),)))
    b.history.note_result(ResultInfo(cid, "sim_read", i + 1, kind, (f"o{i}",), protected=protected))
    b.history.add_user(ToolResult(cid, "sim_read", f"{screen_listing('Orders', i)}\n[observation o{i}]"))


def results(request) -> dict[str, str]:
    return {r.call_id: r.text for m in request.messages for r in m.tool_results}


def test_the_last_screens_stay_whole_and_older_ones_fold_a_batch_at_a_time():
    b = builder(ScreenWindow(recent=3, batch=4))
    sent = []
    for i in range(12):
        read(b, i)
        sent.append(results(b.build()))
    # Up to recent + batch - 1 = 6 screens nothing folds; at 7 the first 4 fold at once.
    for n in range(6):
        assert not any(PLACEHOLDER_MARK in t for t in sent[n].values()), n
    folded = [c for c, t in sent[6].items() if t.startswith(PLACEHOLDER_MARK)]
    assert folded == ["c0", "c1", "c2", "c3"]
    assert sent[6]["c0"] == "[old screen o0 omitted]"
    # Between folds the old ones stay folded and nothing else changes.
    assert sent[9] == {**sent[8], "c9": sent[9]["c9"]}
    # At 11 screens the next four fold; the current screen and the two before are always whole.
    assert [c for c, t in sent[10].items() if t.startswith(PLACEHOLDER_MARK)] == [f"c{i}" for i in range(8)]
    for n, r in enumerate(sent):
        for i in range(max(0, n - 2), n + 1):
            assert "Screen Orders" in r[f"c{i}"], (n, i)


def test_the_history_itself_keeps_every_screen_whole():
    b = builder(ScreenWindow(recent=1, batch=1))
    for i in range(5):
        read(b, i)
    b.build()
    texts = [r.text for m in b.history.messages for r in m.tool_results]
    assert len(texts) == 5 and all("Screen Orders" in t for t in texts)


def test_between_folds_each_request_extends_the_previous_one_byte_for_byte():
    b = builder(ScreenWindow(recent=2, batch=5))
    requests = []
    for i in range(20):
        read(b, i)
        requests.append(b.build())
    breaks = 0
    for prev, cur in itertools.pairwise(requests):
        same = cur.messages[: len(prev.messages) - 1] == prev.messages[: len(prev.messages) - 1]
        if not same:
            breaks += 1
            # A break is always a fold: more placeholders than the request before.
            assert sum(PLACEHOLDER_MARK in t for t in results(cur).values()) > sum(
                PLACEHOLDER_MARK in t for t in results(prev).values()
            )
    # 20 screens, 2 kept, batches of 5: folds at screens 7, 12, 17 only.
    assert breaks == 3


def test_results_that_are_not_screens_or_carry_the_users_words_never_fold():
    b = builder(ScreenWindow(recent=1, batch=1))
    read(b, 0, kind=ResultKind.TEXT)
    read(b, 1, protected=True, kind=ResultKind.SCREEN)
    read(b, 2)
    read(b, 3)
    got = results(b.build())
    assert "Screen Orders" in got["c0"] and "Screen Orders" in got["c1"]
    assert got["c2"].startswith(PLACEHOLDER_MARK) and "Screen Orders" in got["c3"]


def test_a_screen_noted_twice_counts_once():
    h = History(screen_window=ScreenWindow(recent=1, batch=1))
    info = ResultInfo("c0", "sim_read", 1, ResultKind.SCREEN, ("o0",))
    h.note_result(info)
    h.note_result(info)
    assert h.screen_calls == ["c0"]
    assert h.old_screens() == set()


def test_a_window_that_keeps_no_screen_is_refused():
    with pytest.raises(ValueError, match="at least the current screen"):
        ScreenWindow(recent=0)


async def test_a_long_run_sends_old_screens_as_placeholders_and_keeps_their_ids(make_run):
    steps = [Reply.call("sim_launch", app="Shop")]
    for i in range(1, 25):
        steps += [Reply.call("sim_read"), Reply.call("sim_tap", label=f"Item {i}")]
    model = ScriptedModel([*steps, Reply.call("sim_read"), "Item 3 is the cheapest."])
    run = make_run(model)
    result = await run.run()
    assert result.answer == "Item 3 is the cheapest."
    last = model.requests[-1]
    texts = list(results(last).values())
    whole = [t for t in texts if "Screen " in t and not t.startswith(PLACEHOLDER_MARK)]
    folded = [t for t in texts if t.startswith(PLACEHOLDER_MARK)]
    window = ScreenWindow()
    assert window.recent <= len(whole) < window.recent + window.batch
    assert folded and all(re.fullmatch(r"\[old screen o\d+(, o\d+)* omitted\]", t) for t in folded), folded
    # Every observation id a whole screen had is still named in the request.
    first = results(model.requests[window.recent + window.batch - 1])
    for text in first.values():
        for line in text.splitlines():
            if line.startswith("[observation "):
                assert line[1:-1] in "\n".join(texts)
    # The full history holds all 25 listings; the last request at most 10 of them.
    sent = sum(len(t) for t in texts)
    kept = sum(len(r.text) for m in run.loop.context.history.messages for r in m.tool_results)
    assert sent < 0.5 * kept, "the prompt must not grow with every read"


def step_end(b: ContextBuilder, i: int, *, steer: str = "") -> None:
    """Like `read`, but as the loop ends a step: the results, then the runtime line."""
    cid = f"c{i}"
    b.history.add_assistant(Message("assistant", (ToolCall(cid, "sim_read", {}),)))
    b.history.note_result(ResultInfo(cid, "sim_read", i + 1, ResultKind.SCREEN, (f"o{i}",)))
    result = ToolResult(cid, "sim_read", f"{screen_listing('Orders', i)}\n[observation o{i}]")
    b.history.add_step_end(result, runtime=b.runtime_state(i + 1, "com.example.shop"))
    if steer:
        b.history.add_user(Text(steer), users_words=True)


def test_by_default_only_the_current_screen_and_runtime_line_go_out_and_the_prefix_breaks_at_the_end():
    b = builder(ScreenWindow())
    requests = []
    for i in range(6):
        # The user types exactly what step 2's runtime line says.
        step_end(b, i, steer=b.runtime_state(2, "com.example.shop") if i == 1 else "")
        requests.append(b.build())
    last = requests[-1]
    got = results(last)
    assert [c for c, t in got.items() if not t.startswith(PLACEHOLDER_MARK)] == ["c5"]
    runtime = [p.text for m in last.messages for p in m.parts if isinstance(p, Text) and p.text.startswith("[step ")]
    # The current step's line, and the user's words that happen to look like one: a steer is never dropped.
    assert runtime == [b.runtime_state(2, "com.example.shop"), runtime[-1]]
    assert runtime[-1].startswith("[step 6 · on com.example.shop")
    for prev, cur in itertools.pairwise(requests):
        # Everything before the previous step's results comes back byte for byte.
        assert cur.messages[: len(prev.messages) - 1] == prev.messages[: len(prev.messages) - 1]
    # The full history still holds every screen and every runtime line.
    assert len(b.history.runtime_lines) == 6
    assert sum(isinstance(p, Text) and p.text.startswith("[step ") for m in b.history.messages for p in m.parts) == 7
