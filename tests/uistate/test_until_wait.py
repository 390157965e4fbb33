"""UntilWait with a scripted sequence of real screens and a fake clock (no real sleeping)."""

from __future__ import annotations

import asyncio

import pytest
from uistate_real import dump

from mika.uistate import UntilWait, WaitSpecError, build_screen, parse_hierarchy


def _s(name: str, edit=None):
    raw = dump(name).decode("utf-8")
    return build_screen(parse_hierarchy(edit(raw) if edit else raw))


CHAT = "wechat__chat_list__u2_multiwindow"
GROUP = "wechat__group_chat__u2_multiwindow"


class FakeTime:
    """The clock advances only when the waiter sleeps; reads cost `read_s` each."""

    def __init__(self, read_s: float = 0.05) -> None:
        self.now = 100.0
        self.read_s = read_s
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def reader(screens, time: FakeTime):
    seq = list(screens)

    async def read():
        time.now += time.read_s
        return seq.pop(0) if len(seq) > 1 else seq[0]

    return read


async def test_expect_met_after_a_few_reads() -> None:
    t = FakeTime()
    loaded = _s(CHAT, lambda r: r.replace('text="生活号"', 'text="加载完成"'))
    result = await UntilWait(expect="加载完成").run(
        reader([_s(CHAT), _s(CHAT), loaded], t), clock=t.clock, sleep=t.sleep
    )
    assert result.met and result.stopped is None
    assert result.waited_ms == round((3 * 0.05 + 2 * 0.3) * 1000)
    assert result.screen is loaded


async def test_expect_gone() -> None:
    t = FakeTime()
    gone = _s(CHAT, lambda r: r.replace('text="生活号"', 'text=""'))
    result = await UntilWait(expect_gone="生活号").run(reader([_s(CHAT), gone], t), clock=t.clock, sleep=t.sleep)
    assert result.met


async def test_timeout_defaults_to_8_seconds() -> None:
    t = FakeTime()
    result = await UntilWait(expect="never there").run(reader([_s(CHAT)], t), clock=t.clock, sleep=t.sleep)
    assert not result.met and result.stopped == "timeout"
    assert 8000 <= result.waited_ms <= 8100
    assert result.as_dict() == {"met": False, "stopped": "timeout", "waited_ms": result.waited_ms}


async def test_timeout_is_capped_at_20_and_bad_values_refused() -> None:
    assert UntilWait(wait_stable=True, timeout_s=60).timeout_s == 20
    with pytest.raises(WaitSpecError, match="positive"):
        UntilWait(wait_stable=True, timeout_s=0)
    with pytest.raises(WaitSpecError, match="give expect"):
        UntilWait()
    with pytest.raises(WaitSpecError, match="expect is empty"):
        UntilWait(expect="  ")


async def test_wait_stable_needs_two_equal_reads() -> None:
    t = FakeTime()
    moving = [_s(CHAT, lambda r, i=i: r.replace('text="生活号"', f'text="生活号{i}"')) for i in range(3)]
    result = await UntilWait(wait_stable=True).run(reader([*moving, _s(CHAT)], t), clock=t.clock, sleep=t.sleep)
    assert result.met
    assert len(t.sleeps) == 4  # three changing reads, then two equal ones


async def test_app_change_stops_early_unless_expected() -> None:
    t = FakeTime()
    other = _s("gmail__inbox_compose")
    result = await UntilWait(expect="nothing").run(reader([_s(CHAT), other], t), clock=t.clock, sleep=t.sleep)
    assert result.stopped == "app_changed" and not result.met
    t2 = FakeTime()
    ok = await UntilWait(expect_app="com.google.android.gm").run(
        reader([_s(CHAT), other], t2), clock=t2.clock, sleep=t2.sleep
    )
    assert ok.met


async def test_new_dialog_stops_early() -> None:
    t = FakeTime()
    dialog = _s("kakaotalk__delete_message_dialog_partial_bounds")
    start = _s("kakaotalk__friends_list_korean")
    result = await UntilWait(expect="never").run(reader([start, dialog], t), clock=t.clock, sleep=t.sleep)
    assert result.stopped == "dialog"


async def test_new_message_ends_the_wait_at_once() -> None:
    event = asyncio.Event()
    reads = 0

    async def read():
        nonlocal reads
        reads += 1
        return _s(CHAT)

    async def steer():
        await asyncio.sleep(0.05)
        event.set()

    # Real clock and sleep here: the point is that the event interrupts a real sleep.
    task = asyncio.ensure_future(steer())
    result = await UntilWait(expect="never", timeout_s=20, poll_s=5).run(read, event)
    await task
    assert result.stopped == "new_message" and not result.met
    assert result.waited_ms < 2000 and reads == 1


async def test_message_already_waiting_skips_reading() -> None:
    event = asyncio.Event()
    event.set()

    async def read():
        raise AssertionError("must not read")

    result = await UntilWait(expect="x").run(read, event)
    assert result.stopped == "new_message" and result.waited_ms == 0
