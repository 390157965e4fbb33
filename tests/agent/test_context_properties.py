"""Property tests over long scripted runs through the real TaskRun (issue 7, "Done means").

Hypothesis draws a run: a window size and 20–70 steps of reads (some with screenshots),
taps, long page reads, steers typed while a tap runs, and questions the user answers.
The model is a FunctionModel that plays the script and reports input usage 1.25× our
estimate (a provider whose tokenizer counts differently), so calibration is exercised.

Over every main request:
- the user's words (the task, each steer, each answer) are present once said;
- the provider-counted input never exceeds 0.9 of the window;
- compression never runs twice without new input, nor on consecutive steps;
- every observation id given to the model stays present.
"""

from __future__ import annotations

import asyncio
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mika.agent.compressor import estimate_request
from mika.agent.history import PLACEHOLDER_MARK
from mika.assembly import RunEnvironment, capabilities_for
from mika.model.messages import ModelRequest, Text, ToolCall, ToolResult, Usage
from mika.model.testing import FunctionModel, Reply
from mika.record.events import Compressed, ObservationMade, QuestionAsked
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.agent.phoneish import PhoneishCapability, PhoneishWorld

PROVIDER_RATIO = 1.25
GOAL = "Find the cheapest blue kettle in the shop app and tell me its price"

step_kind = st.sampled_from(["read", "read", "read_shot", "tap", "tap", "page", "steer", "ask"])


def request_text(request: ModelRequest) -> str:
    out = [request.system]
    for m in request.messages:
        for p in m.parts:
            if isinstance(p, (Text, ToolResult)):
                out.append(p.text)
            elif isinstance(p, ToolCall):
                out.append(str(p.arguments))
    return "\n".join(out)


def provider_tokens(request: ModelRequest) -> int:
    return int(estimate_request(request) * PROVIDER_RATIO)


async def play(kinds: list[str], window: int, lines: int):
    world = PhoneishWorld(lines=lines)
    spec = RunSpec(goal=GOAL, provenance=RunProvenance(RunOrigin.CLI, Attendance.PRESENT), conversation_id="c")
    caps = capabilities_for(spec, RunEnvironment(extra=[PhoneishCapability(world)]))
    steers: list[str] = []
    answers: list[str] = []
    script: list[Reply] = [Reply.call("sim_launch", app="Shop")]
    reads = 0
    for i, kind in enumerate(kinds):
        if kind in ("read", "read_shot", "page"):
            reads += 1
            if reads > 2:
                # Reading an unchanged screen again and again is a guard's business, not this test's.
                script.append(Reply.call("sim_tap", label=f"Next {i}"))
                reads = 1
        elif kind in ("tap", "steer"):
            reads = 0
        if kind == "read":
            script.append(Reply.call("sim_read"))
        elif kind == "read_shot":
            script.append(Reply.call("sim_read", shot=True))
        elif kind == "tap":
            script.append(Reply.call("sim_tap", label=f"Item {i}"))
        elif kind == "page":
            script.append(Reply.call("sim_page", size=3000 + 97 * i))
        elif kind == "steer":
            label = f"Item {i}"
            words = f"also check kettle model K-{i} please"
            world.say_during[label] = words
            steers.append(words)
            script.append(Reply.call("sim_tap", label=label))
        elif kind == "ask":
            answers.append(f"choice {i}")
            script.append(Reply.call("ask_user", question=f"Which colour for step {i}?", options=["blue", "red"]))
    main_requests: list[ModelRequest] = []

    def reply(request: ModelRequest) -> Reply:
        main_requests.append(request)
        n = len(main_requests) - 1
        usage = Usage(input_tokens=provider_tokens(request), output_tokens=10)
        step = script[n] if n < len(script) else Reply(text="The cheapest blue kettle costs ¥12.0.")
        return Reply(text=step.text, tool_calls=step.tool_calls, usage=usage)

    model = FunctionModel(reply, context_window=window)
    run = TaskRun(spec, model, caps, RunOptions(pacing=False))
    events = []
    run.subscribe(events.append)
    pending = list(answers)

    def answer(event) -> None:
        if isinstance(event, QuestionAsked):
            text = pending.pop(0)
            asyncio.get_running_loop().call_soon(run.answer, event.question_id, text)

    run.subscribe(answer)
    result = await asyncio.wait_for(run.run(), 60)
    return result, main_requests, events, steers, answers, run


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(step_kind, min_size=20, max_size=70), window=st.integers(6_000, 40_000), lines=st.integers(20, 60)
)
async def test_long_runs_keep_the_users_words_fit_the_window_and_keep_ids(kinds, window, lines):
    result, requests, events, steers, answers, run = await play(kinds, window, lines)
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    said: list[str] = [GOAL]
    ids: list[str] = []
    seen_obs = [
        e.observation["id"] for e in events if isinstance(e, ObservationMade) and e.observation["kind"] == "read"
    ]
    for i, request in enumerate(requests):
        text = request_text(request)
        # Words said so far (in an earlier request) must all still be there.
        for words in steers + [f"The user answered: {a}" for a in answers]:
            if words not in said and any(words in request_text(r) for r in requests[:i]):
                said.append(words)
        for words in said:
            assert words in text, f"request {i} lost the user's words {words!r}"
        for obs_id in ids:
            assert obs_id in text, f"request {i} lost observation id {obs_id}"
        ids.extend(o for o in seen_obs if o not in ids and f"observation {o}" in text)
        assert provider_tokens(request) <= 0.9 * window, f"request {i}: {provider_tokens(request)} > 0.9 × {window}"
    # Every steer and answer reached the model.
    final = request_text(requests[-1])
    for words in steers:
        assert words in final
    compressions = [e for e in events if isinstance(e, Compressed)]
    done = run.loop.context.compressions
    versions = [d.version for d in done]
    assert versions == sorted(set(versions)), "compressed twice without new input"
    assert all(b.step > a.step for a, b in itertools.pairwise(compressions))
    if window >= 12_000:
        # With steps small against the window, hysteresis keeps compressions apart.
        steps = [e.step for e in compressions]
        assert all(b - a >= 2 for a, b in itertools.pairwise(steps)), f"compressed on consecutive steps: {steps}"
    assert all(d.after_tokens < d.before_tokens for d in done)


async def test_a_long_run_does_compress_and_stays_cacheable_between_compressions():
    """The property above could pass by never compressing: pin a run that must."""
    kinds = ["read", "tap"] * 30
    result, requests, events, *_ = await play(kinds, 4_000, 40)
    assert result.status is OutcomeStatus.ANSWERED
    compressions = [e for e in events if isinstance(e, Compressed)]
    assert len(compressions) >= 3
    assert max(e.level for e in compressions) >= 2
    # Between compressions each request extends the one before (append-only tail), except
    # where a batch of old screens became placeholders (more of them than the request before).
    at = {e.step for e in compressions}

    def folded(r) -> int:
        return sum(p.text.count(PLACEHOLDER_MARK) for m in r.messages for p in m.tool_results)

    for i in range(1, len(requests)):
        if i in at or i - 1 in at or folded(requests[i]) > folded(requests[i - 1]):
            continue
        prev, cur = requests[i - 1].messages, requests[i].messages
        assert cur[: len(prev) - 1] == prev[: len(prev) - 1]
