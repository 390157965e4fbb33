"""How the web tool tests run: a real TaskRun with the web capability over real Chromium
(PlaywrightWebPort), a scripted model reading the real listings (tests.phone.driver), the
real ActionExecutor and approval policy. Nothing of Mika is faked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.model.retry import RetryPolicy
from mika.record.events import ConfirmationAsked
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import ListingDriver


def web_cap(chromium_path: str, *, pace: str = "fast", **kw) -> WebCapability:
    options = WebOptions(browser=chromium_path, pace=pace)
    return WebCapability(PlaywrightWebPort(options), options, **kw)


def make_run(tmp_path: Path, cap, driver: ListingDriver, *, attendance=Attendance.UNATTENDED, goal="do it", clock=None):
    origin = RunOrigin.UI if attendance is Attendance.PRESENT else RunOrigin.CLI
    spec = RunSpec(goal=goal, provenance=RunProvenance(origin, attendance), conversation_id="c-web")
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    opts = RunOptions(
        pacing=False, state_dir=tmp_path, retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0)
    )
    if clock is not None:
        opts.clock = clock
    return TaskRun(spec, driver.model, caps, opts)


def consent_to_every_card(run: TaskRun, answer: bool = True) -> list[ConfirmationAsked]:
    """A person at the screen who answers every approval card with `answer`."""
    asked: list[ConfirmationAsked] = []

    def on(e) -> None:
        if isinstance(e, ConfirmationAsked):
            asked.append(e)
            asyncio.get_running_loop().call_soon(run.confirm, e.question_id, answer)

    run.subscribe(on)
    return asked


def record(run) -> list[dict]:
    d = Path(run.result.record_dir)
    return [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]


def results_of(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["type"] == "tool_result" and e["name"] == name]


def behind_the_back(driver: ListingDriver, at: int, action) -> None:
    """Before the model's reply to request number `at` (1-based), run `action()` (async):
    the page changes while the model thinks, as a page's own script or a person would."""
    plain = driver.model.fn

    async def reply(request):
        if len(driver.model.requests) == at:
            await action()
        return plain(request)

    driver.model.fn = reply


def untrusted_parts(text: str) -> tuple[str, str]:
    """(Mika's lines outside every fence, the text inside the fences)."""
    outside, inside = [], []
    rest = text
    while "<untrusted" in rest:
        before, _, after = rest.partition("<untrusted")
        outside.append(before)
        body, _, rest = after.partition("</untrusted>")
        inside.append(body.split(">", 1)[1] if ">" in body else body)
    outside.append(rest)
    return "".join(outside), "\n".join(inside)


class WebDriver(ListingDriver):
    """The listing driver, plus `pick_state="password"`: the element whose line carries
    that state (a password field has no label in the listing)."""

    def reply(self, request):
        from mika.model.messages import ToolResult
        from tests.phone.driver import current_listing, elements_in

        if self.steps and not isinstance(self.steps[0], str) and "pick_row" in self.steps[0].args:
            # A row of web_list_elements (one JSON object a line) by its label.
            results = list(self.results)
            if request.messages:
                results += [p.text for p in request.messages[-1].parts if isinstance(p, ToolResult)]
            label = self.steps[0].args.pop("pick_row")
            rows = [json.loads(line) for line in results[-1].splitlines() if line.startswith('{"n"')]
            self.steps[0].args["element"] = next(r["n"] for r in rows if r["label"] == label)
        if self.steps and not isinstance(self.steps[0], str) and "pick_state" in self.steps[0].args:
            results = list(self.results)
            if request.messages:
                results += [p.text for p in request.messages[-1].parts if isinstance(p, ToolResult)]
            state = self.steps[0].args.pop("pick_state")
            rows = elements_in(current_listing(results))
            self.steps[0].args["element"] = next(n for n, _, _, rest in rows if state in rest.split())
        return super().reply(request)
