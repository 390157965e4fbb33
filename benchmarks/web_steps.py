"""What a web step costs: time per web_navigate, web_observe, web_tap, web_type_text and
web_read_page through the real executor, in real Chromium against the loopback test site.

One run (real TaskRun, real web capability over `PlaywrightWebPort`, no phone) with a
scripted model that answers at once, so everything between one reply and the next
request is Mika's and the browser's: the URL policy, the action entry, the input events,
the settle on evidence, judging the effect, reading the accessibility tree, the listing,
recording. Each round on the login page (`/login/`):

    web_navigate /login/ → web_observe → web_tap "Keep me signed in" → web_type_text user name
    → web_read_page

The first navigate (it starts Chromium) is reported on its own line.

    uv run python benchmarks/web_steps.py [--rounds 20] [--browser PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from tests.phone.driver import current_listing, number_for
from tests.web.conftest import find_chromium

KINDS = ("navigate", "observe", "tap", "type", "read")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Script:
    """The round above, by the numbers of the latest listing; records when each reply
    left and when the next request came (the step's time)."""

    def __init__(self, rounds: int, login_url: str) -> None:
        self.rounds = rounds
        self.url = login_url
        self.results: list[str] = []
        self.kinds: list[str] = []  # the kind of each reply, in order
        self.entered: list[float] = []
        self.left_at: list[float] = []
        self.model = FunctionModel(self.reply)

    def reply(self, request) -> Reply | str:
        self.entered.append(time.perf_counter())
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                self.results.append(part.text)
        try:
            i = len(self.kinds)
            if i >= len(KINDS) * self.rounds:
                self.kinds.append("answer")
                return "done"
            kind = KINDS[i % len(KINDS)]
            self.kinds.append(kind)
            if kind == "navigate":
                return Reply.call("web_navigate", url=self.url)
            if kind == "observe":
                return Reply.call("web_observe")
            if kind == "read":
                return Reply.call("web_read_page")
            listing = current_listing(self.results)
            if kind == "tap":
                return Reply.call("web_tap", element=number_for(listing, "Keep me signed in"))
            return Reply.call(
                "web_type_text",
                element=number_for(listing, "User name 用户名", role="input"),
                text="mika-test",
                clear_first=True,
            )
        finally:
            self.left_at.append(time.perf_counter())

    def times_ms(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {k: [] for k in ("first navigate", *KINDS)}
        for i, kind in enumerate(self.kinds[:-1]):
            ms = (self.entered[i + 1] - self.left_at[i]) * 1000
            out["first navigate" if i == 0 else kind].append(ms)
        return out


async def measure(rounds: int, browser: str) -> tuple[dict[str, list[float]], list[str]]:
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.cap.web import WebCapability
    from mika.cap.web.options import WebOptions
    from mika.cap.web.playwright import PlaywrightWebPort
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
    from tests.web.site_server import LocalSite

    site = LocalSite()
    options = WebOptions(browser=browser)
    cap = WebCapability(PlaywrightWebPort(options), options)
    script = Script(rounds, site.url("/login/"))
    spec = RunSpec(goal="step through the login page", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run = TaskRun(spec, script.model, caps, RunOptions(pacing=False, state_dir=Path(tmp)))
            await run.run()
    finally:
        await cap.close()
        site.close()
    effects = [line for r in script.results for line in r.splitlines() if line.startswith("Effect:")]
    return script.times_ms(), effects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--browser", default=find_chromium() or shutil.which("chromium") or "auto")
    args = parser.parse_args()
    times, effects = asyncio.run(measure(args.rounds, args.browser))
    if len(times["type"]) != args.rounds:
        raise SystemExit(f"the scripted run went wrong: {sum(map(len, times.values()))} steps timed")
    print(f"{args.rounds} rounds in real Chromium ({args.browser}); ms per step, reply → next request")
    print(f"{'step':<16} {'n':>3} {'median':>8} {'p90':>8} {'min':>8} {'max':>8}")
    for kind, values in times.items():
        if values:
            print(
                f"{kind:<16} {len(values):>3} {statistics.median(values):>8.1f} {_pct(values, 0.9):>8.1f}"
                f" {min(values):>8.1f} {max(values):>8.1f}"
            )
    # Said beside the times: a step that reports no_effect may have skipped work.
    no_effect = [e for e in effects if "no_effect" in e]
    print(f"effects reported: {len(effects)}, of them no_effect: {len(no_effect)}")
    for line in sorted(set(no_effect)):
        print(f"  {line}")


if __name__ == "__main__":
    main()
