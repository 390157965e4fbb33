"""Process leases across real processes, and the task center's queue rules under
random sequences of messages, finishes and stops (hypothesis)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mika.run.outbox import Outbox
from mika.run.state_lock import ProcessLease, lease_alive
from mika.run.task_center import Submitted, TaskCenter
from mika.runtypes.result import OutcomeStatus
from tests.run_center.doubles import RunFactory, settled

ROOT = Path(__file__).resolve().parents[2]


def test_a_lease_is_alive_exactly_while_its_process_runs(tmp_path):
    code = textwrap.dedent("""
        import sys, time
        from mika.run.state_lock import ProcessLease
        lease = ProcessLease(sys.argv[1]).acquire()
        print(lease.token, flush=True)
        time.sleep(60)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    token = proc.stdout.readline().strip()
    assert token and lease_alive(tmp_path, token)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not lease_alive(tmp_path, token)
    assert not (tmp_path / "leases" / f"{token}.lock").exists()  # the stale file is cleaned up
    assert not lease_alive(tmp_path, "")
    mine = ProcessLease(tmp_path).acquire()
    assert lease_alive(tmp_path, mine.token)
    mine.release()
    assert not lease_alive(tmp_path, mine.token)


CONVS = ("a", "b", "c")
op = st.one_of(
    st.tuples(st.just("say"), st.sampled_from(CONVS)),
    st.tuples(st.just("schedule"), st.sampled_from(CONVS)),
    st.tuples(st.just("take"), st.sampled_from(CONVS)),
    st.tuples(st.just("finish"), st.sampled_from(CONVS)),
    st.tuples(st.just("stop"), st.sampled_from(CONVS)),
)


async def _scenario(root: Path, ops, limit: int) -> None:
    factory = RunFactory()
    center = TaskCenter(factory, state_dir=root, outbox=Outbox(root, []), limit=limit)
    said: dict[str, tuple[str, str, int]] = {}  # message text -> (what became of it, conversation, when)
    stops: list[tuple[str, int]] = []
    n = 0
    for i, (kind, cid) in enumerate(ops):
        if kind in ("say", "schedule"):
            n += 1
            text = f"{kind} {n} to {cid}"
            sub = center.submit(cid, text, scheduled=kind == "schedule")
            said[text] = (sub.outcome.value, cid, i)
            if kind == "schedule":
                assert sub.outcome is not Submitted.STEERED  # never a steer
        elif kind == "take":
            run_id = center.running_in(cid)
            if run_id:
                factory.runs[run_id].take_steers()
        elif kind == "finish":
            run_id = center.running_in(cid)
            if run_id:
                factory.runs[run_id].finish("done", OutcomeStatus.NOT_DONE)
        else:
            center.stop(cid)
            stops.append((cid, i))
        await settled(3)
        state = center.state()
        running = [r.conversation_id for r in state.running]
        assert len(running) == len(set(running))  # one run per conversation
        assert len(running) <= center.limit
        # Nothing waits that could start: a queued task's conversation is busy, or all slots are taken.
        if len(running) < center.limit:
            assert all(q.conversation_id in running for q in state.queued)
    # Drain: finish everything, then every message has been somewhere.
    for _ in range(50):
        for active in center.state().running:
            factory.runs[active.run_id].finish("done")
        await settled(3)
        if not center.state().running and not center.state().queued:
            break
    await center.wait_idle()
    started_goals = [r.spec.goal for r in factory.order]
    assert len({r.spec.id for r in factory.order}) == len(factory.order)  # no run started twice
    for text, (outcome, cid, when) in said.items():
        stopped_later = any(c == cid and at > when for c, at in stops)
        if outcome in ("started", "queued"):
            # Started, or dropped only by a later stop in its own conversation.
            assert text in started_goals or stopped_later, text
        else:  # steered: consumed by the run, handed on as a next task, or dropped by a later stop
            run_with_it = [r for r in factory.order if text in r.consumed or text in r.spec.goal]
            assert run_with_it or stopped_later, text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=25), limit=st.integers(1, 3))
def test_queue_rules_hold_under_any_sequence(ops, limit):
    with tempfile.TemporaryDirectory() as root:
        asyncio.run(_scenario(Path(root), ops, limit))
