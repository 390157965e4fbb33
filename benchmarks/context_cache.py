"""How much of each request a provider could serve from its prompt cache.

A 40-step scripted phone-like run (the phone-shaped test capability: ~40-element screen
listings, screenshots on some reads, taps, a long help page, a steer typed mid-step and a
question the user answers) goes through the real TaskRun. Every main request is
serialised deterministically as an OpenAI Chat Completions body (tools first, then the
system and the messages, as providers lay out the prompt; image bytes stand in as their
hash), and compared with the request before it.

Per request it prints: total input tokens, the tokens of the byte-identical prefix shared
with the previous request, the share of this request's input a provider could serve from
cache (`cacheable`), and the share of the previous request that came back byte-identical
(`stable`; the previous step's screenshot, sent once by design, is not counted as
lost). The stable share must stay ≥ 0.9 except where the prefix is allowed to break:
the first request, a compression, a tool group unfolding, a batch of old screens folded
into placeholders. The cacheable share is lower
on small requests, where this step's new content (never cacheable) weighs more.

    uv run python benchmarks/context_cache.py [--window 24000] [--steps 40]
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
    out = out[: steps - 1]
    out.append(Reply.call("sim_read"))
    return out, world


class RealPhoneSurface(PhoneishCapability):
    """The test phone plus the real phone tools' declarations (offered, never called), so
    zone 0 is as large as a real phone run's. Its prompt section is the real one."""

    def tools(self):
        return super().tools() + _real_phone_tools()

    def prompt_section(self) -> str | None:
        from mika.resources import has_prompt, prompt

        return prompt("capabilities/phone.md") if has_prompt("capabilities/phone.md") else super().prompt_section()


def _real_phone_tools() -> list:
    import inspect

    import mika.cap.phone as phone  # the benchmark may know a capability; the core may not
    from mika.tool.declaration import AgentTool

    out = []
    for _, cls in inspect.getmembers(phone, inspect.isclass):
        if issubclass(cls, AgentTool) and getattr(cls, "capability", "") == "phone" and not inspect.isabstract(cls):
            try:
                out.append(cls())
            except TypeError:  # a tool that needs its siblings (do_steps) is left out
                continue
    return out


async def run(window: int, steps: int, real_surface: bool = False) -> list[dict]:
    replies, world = script(steps)
    spec = RunSpec(
        goal="Find the cheapest blue electric kettle in the shop app and tell me its price.",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.PRESENT),
        conversation_id="bench",
    )
    cap = RealPhoneSurface(world) if real_surface else PhoneishCapability(world)
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
    task = TaskRun(spec, model, caps, RunOptions(pacing=False))
    events = []
    task.subscribe(events.append)
    task.subscribe(
        lambda e: (
            isinstance(e, QuestionAsked) and asyncio.get_running_loop().call_soon(task.answer, e.question_id, "blue")
        )
    )
    await task.run()
    compressed_before = {e.step + 1 for e in events if isinstance(e, Compressed)}  # the request of the next step
    opened_before = {e.step + 1 for e in events if isinstance(e, ToolsOpened)}
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
            note.append("first")
        if n in compressed_before:
            note.append("compressed")
        if n in opened_before:
            note.append("group opened")
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=24_000, help="the model's context window in tokens")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument(
        "--real-surface",
        action="store_true",
        help="also offer the real phone tools' declarations and prompt section (a real-sized zone 0)",
    )
    args = ap.parse_args()
    rows = asyncio.run(run(args.window, args.steps, args.real_surface))
    surface = "real phone tool surface" if args.real_surface else "test phone tools only"
    print(f"context cache · {args.steps}-step phone-like run · window {args.window:,} tokens · {surface}")
    print(f"{'req':>4} {'input tok':>10} {'shared prefix':>14} {'cacheable':>10} {'stable':>8}  note")
    for r in rows:
        print(f"{r['n']:>4} {r['total']:>10,} {r['shared']:>14,} {r['share']:>9.1%} {r['stable']:>8.1%}  {r['note']}")
    steady = [r for r in rows if not r["note"]]
    worst = min(steady, key=lambda r: r["stable"]) if steady else None
    below = [r["n"] for r in steady if r["stable"] < STABLE_SHARE]
    total_in = sum(r["total"] for r in rows)
    total_shared = sum(r["shared"] for r in rows)
    print(
        f"requests {len(rows)} · compressions {sum('compressed' in r['note'] for r in rows)} · "
        f"screen folds {sum('screens folded' in r['note'] for r in rows)} · "
        f"input {total_in:,} tok · cacheable overall {total_shared / total_in:.1%}"
    )
    if worst:
        print(
            f"stable share (previous request reused byte-identically) outside first/compression/unfold/fold: "
            f"worst {worst['stable']:.1%} (request {worst['n']}); below {STABLE_SHARE:.0%}: {below or 'none'}"
        )
    print("cacheable = shared prefix / this request's input; the rest is this step's new content, never cacheable")
    return 0


if __name__ == "__main__":
    sys.exit(main())
