"""How much of each request a provider could serve from its prompt cache.

A 40-step scripted phone-like run (the phone-shaped test capability: ~40-element screen
listings, screenshots on some reads, taps, a long help page, a steer typed mid-step and a
question the user answers) goes through the real TaskRun, with a step budget of 40 so its
last request is the last budgeted step. Every main request is serialised
deterministically as an OpenAI Chat Completions body (tools first, then the system and
the messages, as providers lay out the prompt; image bytes stand in as their hash), and
compared with the request before it.

Two runs in the same process, side by side (issue 16, target 3):
- `baseline`: the behaviour before (RunOptions.cache_baseline): the phone group unfolds
  after the first call, and the last budgeted step offers only end_not_done;
- `now`: the phone group is preloaded because the task names a phone action ("app"),
  and the last step keeps its tools and says in words that it is the last.

Per request it prints: total input tokens, the tokens of the byte-identical prefix shared
with the previous request, the share of this request's input a provider could serve from
cache (`cacheable`), and the share of the previous request that came back byte-identical
(`stable`; the previous step's screenshot, sent once by design, is not counted as
lost). Nothing is discounted in the totals: the first, compressed and unfold requests
count as they are. The stable share must stay >= 0.9 except where the prefix is allowed
to break: the first request, a compression, a tool group unfolding, a batch of old
screens folded into placeholders. The cacheable share is lower on small requests, where
this step's new content (never cacheable) weighs more.

    uv run python benchmarks/context_cache.py [--window 24000] [--steps 40] [--real-surface]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mika.agent.compressor import IMAGE_TOKENS, estimate_text
from mika.agent.history import PLACEHOLDER_MARK
from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone.preload import phone_reason
from mika.model.messages import Image, ModelRequest, Text, Thinking, ToolResult, Usage
from mika.model.testing import FunctionModel, Reply
from mika.record.events import Compressed, QuestionAsked, ToolsOpened
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.agent.phoneish import PhoneishCapability, PhoneishWorld

STABLE_SHARE = 0.9


def openai_chat_body(request: ModelRequest) -> tuple[str, list[int]]:
    """The request as Chat Completions JSON, and the offsets where each image sits."""
    tools = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in request.tools
    ]
    messages: list[dict] = [{"role": "system", "content": request.system}]
    for m in request.messages:
        if m.role == "assistant":
            calls = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.raw_arguments or json.dumps(c.arguments, ensure_ascii=False),
                    },
                }
                for c in m.tool_calls
            ]
            msg: dict = {"role": "assistant", "content": m.text or None}
            if calls:
                msg["tool_calls"] = calls
            messages.append(msg)
            continue
        content: list[dict] = []
        for p in m.parts:
            if isinstance(p, ToolResult):
                messages.append({"role": "tool", "tool_call_id": p.call_id, "content": p.text})
            elif isinstance(p, Text):
                content.append({"type": "text", "text": p.text})
            elif isinstance(p, Image):
                digest = hashlib.sha256(p.data).hexdigest()
                content.append({"type": "image_url", "image_url": {"url": f"data:{p.mime};sha256,{digest}"}})
            elif isinstance(p, Thinking):
                pass
        if content:
            messages.append({"role": "user", "content": content})
    body = json.dumps({"tools": tools, "messages": messages}, ensure_ascii=False, separators=(",", ":"))
    images = []
    at = body.find('"image_url":{"url":"data:')
    while at >= 0:
        images.append(at)
        at = body.find('"image_url":{"url":"data:', at + 1)
    return body, images


def tokens(body: str, images: list[int], upto: int | None = None) -> int:
    """Tokens of body[:upto]: text by the estimator, each whole image at its fixed cost."""
    end = len(body) if upto is None else upto
    n_images = sum(1 for at in images if at + 120 <= end)
    return estimate_text(body[:end]) + n_images * IMAGE_TOKENS


def tools_of(request: ModelRequest) -> list[str]:
    return [t.name for t in request.tools]


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on equal prefixes: fast on long bodies
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def script(steps: int) -> tuple[list[Reply], PhoneishWorld]:
    world = PhoneishWorld(lines=40)
    out = [Reply.call("sim_launch", app="Shop")]
    i = 0
    while len(out) < steps - 1:
        i += 1
        out.append(Reply.call("sim_read", shot=(i % 3 == 0)))
        if i == 5:
            world.say_during[f"Item {i}"] = "only kettles under ¥200 please"
        if i == 8:
            out.append(Reply.call("ask_user", question="Blue or red?", options=["blue", "red"]))
        if i == 11:
            out.append(Reply.call("sim_page", size=5000))
        out.append(Reply.call("sim_tap", label=f"Item {i}"))
    # Request `steps` is the last budgeted step: the answer comes there.
    out = out[: steps - 2]
    out.append(Reply.call("sim_read"))
    return out, world


class BenchPhone(PhoneishCapability):
    """The test phone with the real phone capability's preload rule."""

    def preload(self, spec: RunSpec, knowledge=None) -> tuple[str, ...]:
        return (self.group,) if phone_reason(spec.goal, knowledge) else ()


class RealPhoneSurface(BenchPhone):
    """The test phone plus the real phone tools' declarations (offered, never called), so
    zone 0 is as large as a real phone run's. Its prompt section is the real one."""

    def tools(self):
        return super().tools() + _real_phone_tools()

    def prompt_section(self) -> str | None:
        from mika.resources import has_prompt, prompt

        return prompt("capabilities/phone.md") if has_prompt("capabilities/phone.md") else super().prompt_section()


def _real_phone_tools() -> list:
    import inspect

    # The module that gathers the phone tools (the package itself loads its names lazily);
    # the benchmark may know a capability, the core may not.
    import mika.cap.phone.capability as phone
    from mika.tool.declaration import AgentTool

    out = []
    names: set[str] = set()
    for _, cls in inspect.getmembers(phone, inspect.isclass):
        if issubclass(cls, AgentTool) and getattr(cls, "capability", "") == "phone" and not inspect.isabstract(cls):
            # One tool per name: PhoneReadLink stands in for phone_open_link in read-only
            # runs with Mika's browser, never beside it.
            if cls.name in names:
                continue
            names.add(cls.name)
            try:
                out.append(cls())
            except TypeError:  # a tool that needs its siblings (do_steps) is left out
                continue
    return out


async def run(window: int, steps: int, real_surface: bool = False, baseline: bool = False) -> list[dict]:
    replies, world = script(steps)
    spec = RunSpec(
        goal="Find the cheapest blue electric kettle in the shop app and tell me its price.",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.PRESENT),
        conversation_id="bench",
        step_budget=steps,
    )
    cap = RealPhoneSurface(world) if real_surface else BenchPhone(world)
    caps = capabilities_for(spec, RunEnvironment(extra=[cap]))
    requests: list[ModelRequest] = []

    def reply(request: ModelRequest) -> Reply:
        requests.append(request)
        n = len(requests) - 1
        body, images = openai_chat_body(request)
        usage = Usage(input_tokens=tokens(body, images), output_tokens=20)
        step = replies[n] if n < len(replies) else Reply(text="The cheapest blue kettle is Item 3 at ¥12.0.")
        return Reply(text=step.text, tool_calls=step.tool_calls, usage=usage)

    model = FunctionModel(reply, context_window=window)
    task = TaskRun(spec, model, caps, RunOptions(pacing=False, cache_baseline=baseline))
    events = []
    task.subscribe(events.append)
    task.subscribe(
        lambda e: (
            isinstance(e, QuestionAsked) and asyncio.get_running_loop().call_soon(task.answer, e.question_id, "blue")
        )
    )
    result = await task.run()
    if result.status.value != "answered":  # a broken run measures nothing: say so
        raise SystemExit(f"the benchmark run ended {result.status.value}: {result.answer}")
    compressed_before = {e.step + 1 for e in events if isinstance(e, Compressed)}  # the request of the next step
    opened_before = {e.step + 1 for e in events if isinstance(e, ToolsOpened) and not e.preloaded}
    preloaded = any(isinstance(e, ToolsOpened) and e.preloaded for e in events)
    rows = []
    prev = None
    prev_total = prev_images = prev_folded = 0
    for n, request in enumerate(requests, 1):
        body, images = openai_chat_body(request)
        # Old screens become placeholders a batch at a time: a planned break, like a compression.
        folded = body.count(PLACEHOLDER_MARK)
        total = tokens(body, images)
        shared = tokens(body, images, common_prefix(prev, body)) if prev is not None else 0
        note = []
        if n == 1:
            note.append("first, phone preloaded" if preloaded else "first")
        if n in compressed_before:
            note.append("compressed")
        if n in opened_before:
            note.append("group opened")
        if n > 1 and tools_of(request) != tools_of(requests[n - 2]) and n not in opened_before:
            note.append("tools changed")
        if folded > prev_folded and n not in compressed_before:
            note.append("screens folded")
        # The screenshot of the previous step was only ever meant for that one request
        # ("only the current step's screenshot is sent"): it is not counted as lost.
        kept = prev_total - prev_images * IMAGE_TOKENS
        stable = min(1.0, shared / kept) if kept > 0 else 0.0
        rows.append(
            {
                "n": n,
                "total": total,
                "shared": shared,
                "share": shared / total if total else 0.0,
                "stable": stable,
                "note": ", ".join(note),
            }
        )
        last_images = sum(isinstance(p, Image) for p in request.messages[-1].parts) if request.messages else 0
        prev, prev_total, prev_images, prev_folded = body, total, last_images, folded
    return rows


def summary(rows: list[dict]) -> dict:
    """Totals without discounting anything; `from2` is every request from the second on."""
    later = rows[1:]
    steady = [r for r in rows if not r["note"]]
    return {
        "requests": len(rows),
        "input": sum(r["total"] for r in rows),
        "uncached": sum(r["total"] - r["shared"] for r in rows),
        "breaks": sum(1 for r in later if r["stable"] < STABLE_SHARE),
        "overall": sum(r["shared"] for r in rows) / max(1, sum(r["total"] for r in rows)),
        "from2": sum(r["shared"] for r in later) / max(1, sum(r["total"] for r in later)),
        "req2": later[0]["share"] if later else 0.0,
        "last": rows[-1]["share"] if len(rows) > 1 else 0.0,
        "worst_stable": min((r["stable"] for r in steady), default=1.0),
        "below": [r["n"] for r in steady if r["stable"] < STABLE_SHARE],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=24_000, help="the model's context window in tokens")
    ap.add_argument("--steps", type=int, default=40, help="the run's steps, also its step budget")
    ap.add_argument(
        "--real-surface",
        action="store_true",
        help="also offer the real phone tools' declarations and prompt section (a real-sized zone 0)",
    )
    args = ap.parse_args()
    old = asyncio.run(run(args.window, args.steps, args.real_surface, baseline=True))
    new = asyncio.run(run(args.window, args.steps, args.real_surface))
    surface = "real phone tool surface" if args.real_surface else "test phone tools only"
    print(
        f"context cache · {args.steps}-step phone-like run, step budget {args.steps} · "
        f"window {args.window:,} tokens · {surface}"
    )
    print(f"{'':>4} | {'baseline (before issue 16)':^42} | {'now':^42}")
    head = f"{'input tok':>9} {'shared':>7} {'cacheable':>9} {'stable':>7}  {'note':<7}"
    print(f"{'req':>4} | {head} | {head}")

    def cell(r: dict | None) -> str:
        if r is None:
            return f"{'':>42}"
        return f"{r['total']:>9,} {r['shared']:>7,} {r['share']:>9.1%} {r['stable']:>7.1%}  {r['note']:<7}"

    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else None
        b = new[i] if i < len(new) else None
        print(f"{i + 1:>4} | {cell(a)} | {cell(b)}")
    so, sn = summary(old), summary(new)
    print()
    print(f"{'':<46} {'baseline':>10} {'now':>10}")
    for label, key, fmt in (
        ("requests", "requests", "{:>10}"),
        ("input tokens, all requests", "input", "{:>10,}"),
        ("input tokens not served from cache", "uncached", "{:>10,}"),
        ("prefix breaks from request 2 (stable < 90%)", "breaks", "{:>10}"),
        ("cacheable, all requests", "overall", "{:>10.1%}"),
        ("cacheable, requests 2..n (target >= 95%)", "from2", "{:>10.1%}"),
        ("cacheable, request 2", "req2", "{:>10.1%}"),
        ("cacheable, the last budgeted step", "last", "{:>10.1%}"),
        ("worst stable share outside first/compr./unfold", "worst_stable", "{:>10.1%}"),
    ):
        print(f"{label:<46} {fmt.format(so[key])} {fmt.format(sn[key])}")
    print(
        f"{'requests with stable < 90% outside breaks':<46} {so['below'] or 'none'!s:>10} {sn['below'] or 'none'!s:>10}"
    )
    print("cacheable = shared prefix / this request's input; the rest is this step's new content, never cacheable")
    print("nothing discounted: the first, compressed and unfold requests count in every total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
