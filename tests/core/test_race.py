"""race(work, *events): real asyncio tasks and events, no mocks and no sleeps for ordering."""

from __future__ import annotations

import asyncio

import pytest

from mika.tool.race import Interrupted, race


def _others() -> set[asyncio.Task]:
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def test_work_wins_and_nothing_is_left_pending():
    stop = asyncio.Event()
    assert await race(asyncio.sleep(0, result="done"), stop) == "done"
    assert _others() == set()
    assert not stop.is_set()


async def test_event_wins_the_work_is_cancelled_and_cleaned_up():
    started, cleaned = asyncio.Event(), asyncio.Event()
    stop = asyncio.Event()

    async def work() -> str:
        started.set()
        try:
            await asyncio.Event().wait()  # never ends by itself
        finally:
            cleaned.set()
        return "never"

    async def press_stop() -> None:
        await started.wait()
        stop.set()

    presser = asyncio.ensure_future(press_stop())
    with pytest.raises(Interrupted) as caught:
        await race(work(), asyncio.Event(), stop)
    await presser
    assert caught.value.by is stop
    assert cleaned.is_set(), "the loser's finally ran before race returned"
    assert _others() == set()


async def test_work_exception_is_raised_as_it_is():
    class Boom(Exception):
        pass

    async def work() -> None:
        raise Boom("broken")

    with pytest.raises(Boom, match="broken"):
        await race(work(), asyncio.Event())
    assert _others() == set()


async def test_an_already_set_event_loses_to_work_that_is_already_done():
    stop = asyncio.Event()
    stop.set()
    done = asyncio.get_running_loop().create_future()
    done.set_result(7)
    assert await race(done, stop) == 7


async def test_an_already_set_event_interrupts_unfinished_work():
    stop = asyncio.Event()
    stop.set()
    with pytest.raises(Interrupted):
        await race(asyncio.Event().wait(), stop)
    assert _others() == set()


async def test_a_future_owned_by_someone_else_interrupts_and_is_not_cancelled():
    loop = asyncio.get_running_loop()
    owned = loop.create_future()
    loop.call_soon(owned.set_result, "stop")
    with pytest.raises(Interrupted) as caught:
        await race(asyncio.Event().wait(), owned)
    assert caught.value.by is owned and owned.result() == "stop"

    untouched = loop.create_future()
    assert await race(asyncio.sleep(0, result=1), untouched) == 1
    assert not untouched.done(), "a losing future the caller owns is left alone"
    untouched.cancel()


async def test_cancelling_the_caller_cancels_the_work_and_propagates():
    entered, cleaned = asyncio.Event(), asyncio.Event()

    async def work() -> None:
        entered.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.set()

    outer = asyncio.ensure_future(race(work(), asyncio.Event()))
    await entered.wait()
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert cleaned.is_set()
    assert _others() == set()


async def test_work_that_fails_while_being_cancelled_does_not_hide_the_interrupt():
    stop = asyncio.Event()

    async def work() -> None:
        try:
            stop.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    with pytest.raises(Interrupted):
        await race(work(), stop)
    assert _others() == set()


async def test_only_events_and_futures_are_accepted():
    work = asyncio.sleep(0)
    with pytest.raises(TypeError, match=r"asyncio\.Event or futures"):
        await race(work, "stop")  # type: ignore[arg-type]
    work.close()  # never started: race refused before it made a task of it
    assert _others() == set()
