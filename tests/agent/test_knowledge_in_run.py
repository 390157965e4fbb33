"""Knowledge in a real run: TaskRun + a scripted model + the phone capability on the
simulated phone through a real adb server, with knowledge from a temp folder.

What is shown: an app's knowledge reaches the model once, right after the run's first
screen of that app, and stays at that place in every later request with all bytes before
it unchanged (one cached prefix, never broken); at most 3 are given unasked; a task that
names the app gets it in the opening message instead, and not again; a compression keeps
it; the lookup tools answer from the same catalog and do not repeat what was given.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mika.agent.history import PLACEHOLDER_MARK
from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.model.messages import ModelRequest, Text
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import ListingDriver, step

# The sim app whose knowledge matters: (package, the name the launcher shows). After the
# merge the lead points this one line at ("com.mika.market", …) (search behind an unlabeled icon).
KNOWN_APP = ("com.mika.shop", "Shop")
OTHER_APPS = (("com.google.android.deskclock", "Clock"), ("com.android.contacts", "Contacts"))
FOURTH_APP = ("com.mika.notes", "Notes")


@pytest.fixture
def phone(sim_phone) -> PhoneCapability:
    # One hierarchy backend is enough here: what is tested is the loop, not the reader.
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="dump",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    return PhoneCapability(port)


def write_app(root: Path, package: str, name: str, body: str, extra: str = "") -> None:
    path = root / "apps" / package / "APP.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: {package}\nname: {name}\npackages: [{package}]\n{extra}---\n{body}\n", encoding="utf-8")


@pytest.fixture
def catalogs(tmp_path) -> tuple[KnowledgeCatalog, SkillCatalog]:
    root = tmp_path / "knowledge"
    package, name = KNOWN_APP
    write_app(
        root,
        package,
        name,
        "## Where things are\n- The search is the icon at the top right (unverified)\n## Traps\n- Paying is the user's to approve",
        extra="skills: [compare-prices]\n",
    )
    for package, name in (*OTHER_APPS, FOURTH_APP):
        write_app(root, package, name, f"## Where things are\n- {name}: the main tabs are at the bottom")
    skills = tmp_path / "skills" / "compare-prices"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        "---\nname: compare-prices\ndescription: Compare one product's price across two shops.\n---\n# Steps\n1. search\n",
        encoding="utf-8",
    )
    knowledge = KnowledgeCatalog.load([(root, "user")])
    skill_catalog = SkillCatalog.load([(tmp_path / "skills", "user")])
    assert not knowledge.problems and not skill_catalog.problems
    return knowledge, skill_catalog


def make_run(tmp_path, phone, model, catalogs, *, goal="Have a look around.") -> TaskRun:
    knowledge, skills = catalogs
    spec = RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c-k")
    caps = capabilities_for(spec, RunEnvironment(extra=[phone], knowledge=knowledge, skills=skills))
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path / "state",
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
        knowledge=knowledge,
        skills=skills,
    )
    return TaskRun(spec, model, caps, opts)


def given_events(run: TaskRun) -> list[tuple[str, str, str]]:
    events = [json.loads(line) for line in (Path(run.result.record_dir) / "events.jsonl").read_text().splitlines()]
    return [(e["id"], e["origin"], e["reason"]) for e in events if e["type"] == "knowledge_given"]


def compressions(run: TaskRun) -> list[dict]:
    events = [json.loads(line) for line in (Path(run.result.record_dir) / "events.jsonl").read_text().splitlines()]
    return [e for e in events if e["type"] == "compression"]


def head(package: str) -> str:
    return f'<context kind="app_knowledge" source="knowledge/apps/{package}" trust="trusted">'


def places(request: ModelRequest, package: str) -> list[tuple[int, int]]:
    """(message, part) of every text in the request that is or holds the app's block."""
    out = []
    for i, m in enumerate(request.messages):
        for j, p in enumerate(m.parts):
            if isinstance(p, Text) and head(package) in p.text:
                out.append((i, j))
    return out


async def test_the_first_screen_of_an_app_brings_its_knowledge_once_and_it_stays_in_place(tmp_path, phone, catalogs):
    package, name = KNOWN_APP
    driver = ListingDriver(
        [
            step("phone_launch_app", app=name),
            step("phone_observe"),
            *(step("phone_launch_app", app=n) for _, n in OTHER_APPS),
            step("phone_launch_app", app=FOURTH_APP[1]),
            step("knowledge_read", id=package),
            step("knowledge_read", id=FOURTH_APP[0]),
            step("knowledge_search", query="notes tabs"),
            "Looked around.",
        ]
    )
    run = make_run(tmp_path, phone, driver.model, catalogs)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    requests = driver.model.requests
    assert len(requests) == 9

    # The opening holds the skill index (before the goal) and no app knowledge.
    opening = requests[0].messages[0].text
    assert '<context kind="skill_index" source="skills" trust="trusted">' in opening
    assert "- compare-prices — Compare one product's price across two shops." in opening
    assert opening.endswith("Have a look around.")
    assert places(requests[0], package) == []

    # Right after the first shop screen: the block, once, after the launch's result and
    # before the runtime-state line.
    first = requests[1]
    assert places(first, package) == [(len(first.messages) - 1, 1)], driver.results[0]
    last = first.messages[-1].parts
    assert last[0].name == "phone_launch_app" and f"({package})" in last[0].text
    block = last[1].text
    assert block.startswith(head(package) + f"\n{name} ({package}) — partly unverified")
    assert "- The search is the icon at the top right (unverified)" in block
    assert last[2].text.startswith("[step 1 · on ")
    at, part = places(first, package)[0]

    # Every later request: the block once, at the same place, every byte before it the same,
    # except the launch's screen, which goes out as a placeholder once a newer screen came.
    for later in requests[2:]:
        assert places(later, package) == [(at, part)]
        assert later.messages[:at] == first.messages[:at]
        now, then = later.messages[at].parts, first.messages[at].parts
        assert now[part] == then[part]
        for p, q in zip(now[:part], then[:part], strict=True):
            assert p == q or (p.call_id == q.call_id and p.text.startswith(PLACEHOLDER_MARK)), p
        assert (later.system, later.tools) == (first.system, first.tools)

    # Clock and Contacts make three; the fourth app's knowledge is not given unasked.
    for i, (other, _) in enumerate(OTHER_APPS, start=3):
        assert len(places(requests[i], other)) == 1
    fourth = FOURTH_APP[0]
    assert places(requests[5], fourth) == []
    # Asked for, the shop is not repeated; the fourth app is read (reads are not capped).
    assert driver.results[5].startswith(f"Knowledge {package} ({name}) was already given: it was added")
    assert driver.results[6].startswith(head(fourth))
    assert f"- {fourth} — Notes (app) [already in your context]: Where things are" in driver.results[7]
    assert given_events(run) == [
        (package, "user", "screen"),
        (OTHER_APPS[0][0], "user", "screen"),
        (OTHER_APPS[1][0], "user", "screen"),
        (fourth, "user", "read"),
    ]


async def test_a_task_that_names_the_app_gets_it_in_the_opening_and_not_again(tmp_path, phone, catalogs):
    package, name = KNOWN_APP
    driver = ListingDriver([step("phone_launch_app", app=name), step("phone_observe"), "Seen."])
    run = make_run(tmp_path, phone, driver.model, catalogs, goal=f"Open the {name} and tell me what is on sale.")
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    opening = driver.model.requests[0].messages[0].text
    # Knowledge, then the skill index with the app's related skill first, then the user's words.
    k, s, g = opening.find(head(package)), opening.find('<context kind="skill_index"'), opening.find("Open the")
    assert 0 <= k < s < g
    assert opening[s:].splitlines()[1].startswith("- compare-prices — ")
    for request in driver.model.requests:
        assert places(request, package) == [(0, 0)]
    assert given_events(run) == [(package, "user", "task")]


async def test_a_compression_keeps_the_block(tmp_path, phone, catalogs):
    package, name = KNOWN_APP
    steps = [step("phone_launch_app", app=name)]
    steps += [step("phone_scroll", direction=d) for d in ("down", "up") * 5]
    driver = ListingDriver([*steps, "Scrolled."])
    # A window just above the fixed part (system prompt + tools): the screens soon overflow it.
    driver.model.context_window = 5_000
    run = make_run(tmp_path, phone, driver.model, catalogs)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    done = compressions(run)
    assert done, "the small window never made the run compress"
    assert max(c["level"] for c in done) >= 2  # old turns were folded, not only shrunk
    block = next(
        p.text for p in driver.model.requests[1].messages[-1].parts if isinstance(p, Text) and head(package) in p.text
    )
    for request in driver.model.requests[1:]:
        texts = [p.text for m in request.messages for p in m.parts if isinstance(p, Text)]
        # Whole, once: as its own part, or verbatim among the folded steps (like the user's words).
        assert sum(t.count(block) for t in texts) == 1
        assert sum(t.count(head(package)) for t in texts) == 1
    # The folded steps are there too: the block was not kept by luck of not being old.
    last = driver.model.requests[-1]
    assert any("Earlier steps (compressed)" in p.text for m in last.messages for p in m.parts if isinstance(p, Text))
    assert given_events(run) == [(package, "user", "screen")]


# -- the same rule on a bare history, for every level (no phone needed) -----------------


def history_with_block(turns: int = 30, at: int = 2):
    from tests.agent.test_compressor import SCREEN, build_history

    h = build_history(turns)
    block = (
        f"{head('com.mika.shop')}\nShop (com.mika.shop) — verified\n\n- search: the icon at the top right\n</context>"
    )
    # As the loop writes it: after that step's results, before the runtime-state line.
    i = 2 * at + 2
    parts = h.messages[i].parts
    h.messages[i] = type(h.messages[i])("user", (*parts[:-1], Text(block), parts[-1]))
    h.kept_texts.append(block)
    assert SCREEN in parts[0].text
    return h, block


def test_no_level_of_the_compressor_folds_or_trims_a_kept_block():
    from mika.agent.compressor import ContextCompressor

    h, block = history_with_block()
    for level in range(1, 6):
        c = ContextCompressor().compress(h, level)
        assert c.cut > 0
        texts = [p.text for m in (*c.head, *h.messages[c.cut :]) for p in m.parts if isinstance(p, Text)]
        assert sum(t.count(block) for t in texts) == 1, f"level {level}"


def test_recovery_puts_a_lost_block_back():
    from mika.agent.compressor import Compressed, ContextCompressor
    from mika.agent.recovery import ContextRecovery
    from mika.model.messages import Message

    h, block = history_with_block()
    c = ContextCompressor().compress(h, 3)
    # A faulty level that kept only the opening.
    broken = Compressed(
        head=(h.messages[0], Message("assistant", (Text("…"),)), Message("user", (Text("x"),))), cut=c.cut, level=3
    )
    fixed = ContextRecovery().restore(broken, h)
    assert block in fixed.restored
    texts = [p.text for m in (*fixed.compressed.head, *h.messages[c.cut :]) for p in m.parts if isinstance(p, Text)]
    assert texts.count(block) == 1


async def test_the_block_sits_before_the_steps_screenshot_so_nothing_before_it_changes(tmp_path, phone, catalogs):
    from mika.model.messages import Image
    from mika.model.testing import Reply, ScriptedModel

    package, name = KNOWN_APP
    model = ScriptedModel(
        [
            Reply.calls(("phone_launch_app", {"app": name}), ("phone_screenshot", {})),
            Reply.call("phone_observe"),
            "Seen.",
        ]
    )
    run = make_run(tmp_path, phone, model, catalogs)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    first, second = model.requests[1], model.requests[2]
    parts = first.messages[-1].parts
    kinds = [type(p).__name__ for p in parts]
    assert kinds == ["ToolResult", "ToolResult", "Text", "Image", "Text"], kinds
    assert head(package) in parts[2].text and isinstance(parts[3], Image)
    at = len(first.messages) - 1
    # Next request: the screenshot became a line, after the block; everything up to the block is the same.
    assert second.messages[:at] == first.messages[:at]
    assert second.messages[at].parts[:3] == parts[:3]
    assert not isinstance(second.messages[at].parts[3], Image)
    assert places(second, package) == [(at, 2)]
