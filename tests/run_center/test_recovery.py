"""Recovery and delivery across real processes: a process that dies by SIGKILL leaves
state behind; several recoveries run at once and after each other; the user is told
exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from mika.run.conversations import ConversationStore
from mika.run.outbox import CallbackChannel, Delivery, DeliveryFailed, DeliveryState, Outbox
from mika.run.recovery import recover_at_start, settle
from mika.run.run_store import RunStore

ROOT = Path(__file__).resolve().parents[2]

# A Mika process that dies mid-work: one run mid-step with no answer, one that saved
# its answer but died before delivering it, one that died while delivering, one
# queued behind them, and one the user had stopped.
DYING = textwrap.dedent("""
    import os, signal, sys
    from mika.run.conversations import ConversationStore
    from mika.run.outbox import Delivery, Outbox
    from mika.run.phase import RunPhase
    from mika.run.run_store import RunStore
    from mika.runtypes.result import RunResult, OutcomeStatus
    root = sys.argv[1]
    conv, runs = ConversationStore(root), RunStore(root)
    def start(cid, rid, goal):
        runs.queued(rid, cid, goal); runs.set_phase(rid, RunPhase.RUNNING)
        conv.begin_turn(cid, rid, goal)
    start("c1", "r-mid", "order the groceries")
    start("c2", "r-saved", "what is on my calendar")
    runs.save_result("r-saved", RunResult("r-saved", OutcomeStatus.ANSWERED, answer="Two meetings today."))
    start("c3", "r-sending", "send the report")
    runs.save_result("r-sending", RunResult("r-sending", OutcomeStatus.ANSWERED, answer="Report sent."))
    class Hang:
        name = "hang"
        def send(self, d):
            os.kill(os.getpid(), signal.SIGKILL)  # dies while the channel is writing
    runs.queued("r-queued", "c1", "then pay the bill"); conv.begin_turn("c1", "r-queued", "then pay the bill", outcome="queued")
    start("c4", "r-stopped", "tidy up"); runs.stopping("r-stopped")
    Outbox(root, [Hang()]).deliver(Delivery(id="answer:r-sending", text="Report sent.", run_id="r-sending"))
""")

RECOVER = textwrap.dedent("""
    import asyncio, json, sys, time
    from mika.atomic_write import append_line
    from mika.run.recovery import recover_at_start, settle
    root, log, go = sys.argv[1], sys.argv[2], float(sys.argv[3])
    while time.time() < go:  # start together
        time.sleep(0.001)
    def deliver(d):
        append_line(log, json.dumps({"id": d.id, "text": d.display_text, "recovered": d.recovered}))
    report = recover_at_start(root, deliver)
    asyncio.run(settle(root, deliver, lang="en"))
""")


def _python(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _die_mid_work(root: Path) -> None:
    proc = _python(DYING, str(root))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, err.decode()


def _told(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_recovery_run_concurrently_tells_the_user_exactly_once(tmp_path):
    import time

    _die_mid_work(tmp_path)
    log = tmp_path / "told.jsonl"
    go = time.time() + 1.5
    procs = [_python(RECOVER, str(tmp_path), str(log), str(go)) for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    # …and ten more restarts after that.
    for _ in range(10):
        proc = _python(RECOVER, str(tmp_path), str(log), "0")
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()

    told = _told(log)
    ids = sorted(x["id"] for x in told)
    assert ids == sorted(
        [
            "interrupted:r-mid",  # no answer: a failed turn and one notice
            "interrupted:r-queued",  # queued, never started: same
            "answer:r-saved",  # saved, never delivered: delivered once, recovered
            "uncertain:answer:r-sending",  # died mid-send: not re-sent, one line
        ]
    )
    by_id = {x["id"]: x for x in told}
    assert by_id["answer:r-saved"]["recovered"] and by_id["answer:r-saved"]["text"].endswith("Two meetings today.")
    assert "may already have been delivered" in by_id["uncertain:answer:r-sending"]["text"]

    runs = {r.run_id: r for r in RunStore(tmp_path).all()}
    assert runs["r-mid"].phase == "interrupted"
    assert runs["r-saved"].phase == "ended"  # its answer is known delivered now
    assert runs["r-sending"].phase == "interrupted"
    assert runs["r-stopped"].phase == "ended"

    conv = ConversationStore(tmp_path)
    mid = conv.get("c1").turns
    assert [(t.run_id, t.outcome, t.subtype) for t in mid] == [
        ("r-mid", "failed", "interrupted"),
        ("r-queued", "failed", "interrupted"),
    ]
    assert mid[0].answer == "The task was interrupted; you can start it again."
    saved = conv.get("c2").turns[0]
    assert saved.outcome == "answered" and saved.answer == "Two meetings today." and saved.recovered

    outbox = Outbox(tmp_path)
    assert outbox.state("answer:r-sending") is DeliveryState.UNCERTAIN
    for path in tmp_path.rglob("*.json"):
        json.loads(path.read_text())


def test_recovery_leaves_runs_of_a_live_process_alone(tmp_path):
    """A second Mika on the same state dir must not mark our running run interrupted."""
    runs = RunStore(tmp_path)
    runs.queued("r-live", "c1", "still going")
    proc = _python(RECOVER, str(tmp_path), str(tmp_path / "told.jsonl"), "0")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert runs.get("r-live").phase == "queued"
    assert _told(tmp_path / "told.jsonl") == []


async def test_recover_in_process_is_idempotent(tmp_path):
    _die_mid_work(tmp_path)
    sent: list[Delivery] = []
    first = recover_at_start(tmp_path, sent.append)
    assert set(first.interrupted) == {"r-mid", "r-saved", "r-sending", "r-queued", "r-stopped"}
    assert first.uncertain == ("answer:r-sending",)
    report = await settle(tmp_path, sent.append)
    assert set(report.told) == {"r-mid", "r-queued", "r-sending"} and report.delivered == ("r-saved",)
    again = recover_at_start(tmp_path, sent.append)
    assert again.interrupted == ()
    report2 = await settle(tmp_path, sent.append)
    assert report2.told == () and report2.delivered == ()
    assert len(sent) == 4


async def test_failed_answer_delivery_is_sent_again_once_as_failed_notice(tmp_path):
    from mika.run.phase import RunPhase
    from mika.runtypes.result import OutcomeStatus, RunResult

    class Refuses:
        name = "refuses"

        def send(self, d):
            raise DeliveryFailed("terminal closed")

    runs = RunStore(tmp_path, lease=_dead_lease(tmp_path))
    runs.queued("r1", "c1", "g")
    runs.set_phase("r1", RunPhase.RUNNING)
    runs.save_result("r1", RunResult("r1", OutcomeStatus.ANSWERED, answer="42"))
    assert (
        Outbox(tmp_path, [Refuses()], lease=_dead_lease(tmp_path)).deliver(Delivery("answer:r1", "42", run_id="r1"))
        is DeliveryState.FAILED
    )
    sent: list[Delivery] = []
    recover_at_start(tmp_path)
    await settle(tmp_path, sent.append)
    await settle(tmp_path, sent.append)
    assert [(d.id, d.text, d.recovered) for d in sent] == [("failed:answer:r1", "42", True)]


def _dead_lease(root: Path):
    """A lease whose process is gone: taken and released (as at a clean exit)."""
    from mika.run.state_lock import ProcessLease

    lease = ProcessLease(root).acquire()
    lease.release()
    return lease


def test_a_delivery_id_is_never_delivered_twice(tmp_path):
    got: list[str] = []
    outbox = Outbox(tmp_path, [CallbackChannel(lambda d: got.append(d.id))])
    assert outbox.deliver(Delivery("answer:r1", "hi")) is DeliveryState.DELIVERED
    assert outbox.deliver(Delivery("answer:r1", "hi again")) is DeliveryState.DELIVERED
    other = Outbox(tmp_path, [CallbackChannel(lambda d: got.append(d.id))])  # another center
    assert other.deliver(Delivery("answer:r1", "hi")) is DeliveryState.DELIVERED
    assert got == ["answer:r1"]


def test_deliveries_from_many_processes_at_once_go_out_once(tmp_path):
    import time

    code = textwrap.dedent("""
        import sys, time
        from mika.atomic_write import append_line
        from mika.run.outbox import CallbackChannel, Delivery, Outbox
        root, log, go = sys.argv[1], sys.argv[2], float(sys.argv[3])
        while time.time() < go:
            time.sleep(0.001)
        box = Outbox(root, [CallbackChannel(lambda d: append_line(log, d.id))])
        for i in range(20):
            box.deliver(Delivery(f"notice:{i}", "x"))
    """)
    log = tmp_path / "sent.log"
    go = time.time() + 1.5
    procs = [_python(code, str(tmp_path), str(log), str(go)) for _ in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    lines = log.read_text().splitlines()
    assert sorted(lines) == sorted(f"notice:{i}" for i in range(20))


def test_channel_outcomes_decide_the_state(tmp_path):
    class Broken:
        name = "broken"

        def send(self, d):
            raise ConnectionResetError("pipe broke after writing half")

    class Refuses:
        name = "refuses"

        def send(self, d):
            raise DeliveryFailed("no notifier")

    ok = CallbackChannel(lambda d: None, "ok")
    assert Outbox(tmp_path, [Refuses(), ok]).deliver(Delivery("a", "x")) is DeliveryState.DELIVERED
    assert Outbox(tmp_path, [Refuses()]).deliver(Delivery("b", "x")) is DeliveryState.FAILED
    assert Outbox(tmp_path, [Broken(), Refuses()]).deliver(Delivery("c", "x")) is DeliveryState.UNCERTAIN
    entry = Outbox(tmp_path).entry("c")
    assert entry.channels == {"broken": "uncertain", "refuses": "failed"}


# A process that saved its runs and died before writing their turns: one in a
# conversation that still exists, one in a conversation the user then deleted.
NO_TURN = textwrap.dedent("""
    import sys
    from mika.run.conversations import ConversationStore
    from mika.run.phase import RunPhase
    from mika.run.run_store import RunStore
    root = sys.argv[1]
    conv, runs = ConversationStore(root), RunStore(root)
    for cid in ("c-kept", "c-gone"):
        conv.create(cid)
        runs.queued("r-" + cid, cid, "book a table"); runs.set_phase("r-" + cid, RunPhase.RUNNING)
""")


async def test_a_run_killed_before_its_turn_was_written_gets_its_turn_once(tmp_path):
    # The killed process must be gone before the test goes on; nothing else runs on the loop yet.
    subprocess.run(
        [sys.executable, "-c", NO_TURN, str(tmp_path)],
        check=True,
        timeout=60,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    ConversationStore(tmp_path).delete("c-gone")
    told = []
    recover_at_start(tmp_path)
    for _ in range(2):
        await settle(tmp_path, told.append, lang="en")
    assert sorted(d.id for d in told) == ["interrupted:r-c-gone", "interrupted:r-c-kept"]
    (turn,) = ConversationStore(tmp_path).get("c-kept").turns
    assert (turn.run_id, turn.user, turn.outcome, turn.answer) == (
        "r-c-kept",
        "book a table",
        "failed",
        "The task was interrupted; you can start it again.",
    )
    assert not ConversationStore(tmp_path).exists("c-gone")  # never brought back
