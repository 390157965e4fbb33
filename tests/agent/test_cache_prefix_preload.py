"""The phone group is open from the first request when the task obviously needs it
(issue 16, target 3; seed §4 "开局预先展开 … Capability.preload").

Before, the group unfolded after the first phone call, so request 2 changed zone 0 and
only ~10% of it came from the cache. Now a task whose words name an app the knowledge
catalog knows, or a phone action, opens the group at the start: request 2's prefix is
request 1 whole. The phone tests run on the simulated phone through a real adb server.
"""

from __future__ import annotations

import pytest

from benchmarks.context_cache import STABLE_SHARE, openai_chat_body
from benchmarks.context_cache import run as bench_run
from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.preload import phone_reason
from mika.knowledge.catalog import KnowledgeCatalog
from mika.model.retry import RetryPolicy
from mika.model.testing import Reply, ScriptedModel
from mika.resources import knowledge_dir
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.agent.phoneish import PhoneishCapability


@pytest.fixture(scope="module")
def shipped() -> KnowledgeCatalog:
    catalog = KnowledgeCatalog.load([(knowledge_dir(), "shipped")])
    assert not catalog.problems
    return catalog


@pytest.fixture
def phone(sim_phone) -> PhoneCapability:
    # One hierarchy backend is enough: what is tested is what is offered, not the reader.
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="dump",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    return PhoneCapability(port)


def _spec(goal: str) -> RunSpec:
    return RunSpec(goal=goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED), conversation_id="c-pre")


def _run(tmp_path, cap, model, goal: str, knowledge: KnowledgeCatalog | None = None) -> TaskRun:
    spec = _spec(goal)
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path / "state",
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
        knowledge=knowledge,
    )
    return TaskRun(spec, model, capabilities_for(spec, RunEnvironment(extra=[cap], knowledge=knowledge)), opts)


class TestWhatNamesThePhone:
    @pytest.mark.parametrize(
        ("goal", "reason"),
        [
            ("给张三发微信说我晚点到", 'app "WeChat"'),
            ("用支付宝查一下余额", 'app "Alipay"'),
            ("Set an alarm for 7am", 'app "Clock"'),
            ("打开B站看看热门", 'app "Bilibili"'),
            ("ＯＰＥＮ the Ｃｌｏｃｋ", 'app "Clock"'),  # full-width letters fold like the catalog's names
            ("帮我定一个明早7点的闹钟", 'app "Clock"'),  # 闹钟 is one of Clock's names
            ("帮我拨打10086", 'action "拨打"'),
            ("tap the second result", 'action "tap"'),
            ("Which apps use the most battery?", 'action "apps"'),
        ],
    )
    def test_an_app_or_a_phone_action_preloads(self, shipped, goal, reason):
        assert phone_reason(goal, shipped) == reason

    @pytest.mark.parametrize(
        "goal",
        [
            "What is 17 times 23?",
            # Latin words need word edges: "happen", "wrapped", "tape", "reopening", "called".
            "Did it happen that the wrapped tape was reopening? I called it done.",
            # A site is not an app: "淘宝网" is Taobao (web), and the app's "淘宝" inside it does not count.
            "在淘宝网上搜一下电水壶的价格",
            "Summarise the Wikipedia article on kettles",
            "What do you call a baby kangaroo?",
            "帮我解这道应用题",
            "安装Python要注意什么",
        ],
    )
    def test_other_tasks_keep_the_phone_folded(self, shipped, goal):
        assert phone_reason(goal, shipped) == ""

    def test_without_a_catalog_only_actions_count(self):
        assert phone_reason("用支付宝查一下余额") == ""
        assert phone_reason("打开支付宝") == 'action "打开"'


async def test_request_two_reuses_request_one_whole_when_the_phone_is_preloaded(tmp_path, sim_phone, phone, shipped):
    model = ScriptedModel([Reply.call("phone_launch_app", app="时钟"), "时钟已经打开了。"])
    run = _run(tmp_path, phone, model, "打开时钟看看现在几点", shipped)
    events: list = []
    run.subscribe(events.append)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    first, second = model.requests
    assert "phone_tap" in [t.name for t in first.tools]  # the whole group, not only its entries
    assert first.tools == second.tools and first.system == second.system
    body1, _ = openai_chat_body(first)
    body2, _ = openai_chat_body(second)
    assert body1.endswith("]}") and body2.startswith(body1[:-2])  # every byte of request 1 comes back first
    opened = [(e.group, e.preloaded, e.step) for e in events if e.type == "tools_opened"]
    assert sorted(opened) == [("phone", True, 0), ("screens", True, 0)]  # recorded as preloaded, nothing later
    assert "com.google.android.deskclock" in sim_phone.shell("dumpsys window")  # the preloaded tool really ran


async def test_a_preloaded_tap_before_any_screen_was_read_is_still_checked(tmp_path, sim_phone, phone, shipped):
    """Preloading hands the model phone_tap in request 1, before it has seen a listing:
    a tap by a number it was never shown must not land on whatever is there."""
    before = sim_phone.shell("dumpsys window")
    model = ScriptedModel([Reply.call("phone_tap", element=3), "没能点到。"])
    run = _run(tmp_path, phone, model, "打开设置，点第三个", shipped)
    await run.run()
    result_text = model.requests[1].messages[-1].text
    assert "phone_tap" in [t.name for t in model.requests[0].tools]
    assert "Tapped" not in result_text and "Effect: " not in result_text, result_text
    assert sim_phone.shell("dumpsys window") == before, result_text


def test_the_phone_capability_preloads_only_for_such_tasks(phone, shipped):
    assert phone.preload(_spec("打开时钟"), shipped) == ("phone",)
    assert phone.preload(_spec("Have a look around."), shipped) == ()


class _Broken(PhoneishCapability):
    def preload(self, spec, knowledge=None):
        raise RuntimeError("no idea")


class _Wants(PhoneishCapability):
    def preload(self, spec, knowledge=None):
        return ("phone",)


async def test_a_capability_that_cannot_say_leaves_its_group_folded_and_the_run_goes_on(tmp_path):
    model = ScriptedModel(["Hello."])
    run = _run(tmp_path, _Broken(), model, "open the shop app")
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED
    names = [t.name for t in model.requests[0].tools]
    assert "sim_launch" in names and "sim_tap" not in names


async def test_the_task_run_asks_every_capability(tmp_path):
    model = ScriptedModel(["Hello."])
    await _run(tmp_path, _Wants(), model, "anything").run()
    assert "sim_tap" in [t.name for t in model.requests[0].tools]


async def test_the_benchmark_run_keeps_its_prefix_from_request_two_where_the_baseline_broke_it():
    # The real phone tools' declarations and prompt section: a real-sized zone 0.
    now = await bench_run(24_000, 12, real_surface=True)
    old = await bench_run(24_000, 12, real_surface=True, baseline=True)
    assert "phone preloaded" in now[0]["note"]
    # No group opens, no tool list changes, no compression: the only planned breaks left
    # are old screens folding into placeholders.
    assert all(r["note"] in ("", "screens folded") for r in now[1:]), [r["note"] for r in now]
    # Request 1 came back whole: all of it but, at most, the one estimated token (4 chars)
    # its end shares with what request 2 appends — a rounding of the estimate, not a break.
    assert now[1]["shared"] >= now[0]["total"] - 1, (now[0]["total"], now[1]["shared"])
    assert now[1]["share"] >= 0.95
    # The last budgeted step: same tools, the prefix holds up to the screen it folds — it
    # keeps as much of the request before it as the run's other folding steps keep.
    folding = [r["stable"] for r in now[1:-1] if r["note"] == "screens folded"]
    assert "tools changed" not in now[-1]["note"]
    assert folding and now[-1]["stable"] >= min(min(folding), STABLE_SHARE), (now[-1], folding)
    # The baseline really is the old behaviour: the group opens at 2, the last step drops tools.
    assert old[1]["note"] == "group opened" and old[1]["share"] < 0.2
    assert "tools changed" in old[-1]["note"] and old[-1]["share"] < 0.05
