"""Lease files don't pile up in the state folder's `leases/`.

Before: a `ProcessLease` file went away only on `release()` (which nothing called at exit)
or when someone checked that very token, so even a normal `mika runs recover` left its
own `<pid>-<hex>.lock`, and 33 were found in one folder. Now a process releases its
leases at exit and recovery sweeps the files of gone processes at every start. Holders
here are real processes holding real flocks; "gone" is SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from mika.atomic_write import STALE_TEMP_S
from mika.run.state_lock import lease_alive, sweep_leases

ROOT = Path(__file__).resolve().parents[2]

# Takes N leases on the state dir, prints their tokens, then holds them until it is killed
# (or its stdin closes): it blocks on a read, no clock involved.
HOLDER = textwrap.dedent("""
    import sys
    from mika.run.state_lock import ProcessLease
    leases = [ProcessLease(sys.argv[1]).acquire() for _ in range(int(sys.argv[2]))]
    print(" ".join(lease.token for lease in leases), flush=True)
    sys.stdin.read()
""")

# A real acquire killed between its flock and its rename (os.replace wrapped to SIGKILL).
KILLED_ACQUIRE = textwrap.dedent("""
    import os, signal, sys
    from mika.run.state_lock import ProcessLease
    os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
    ProcessLease(sys.argv[1]).acquire()
""")

# Acquires and releases N times, checking every time that the file under its lease's name
# is the one it holds the flock on, from the rename until just before its release.
CHURN = textwrap.dedent("""
    import os, sys
    from mika.run.state_lock import ProcessLease
    state, n = sys.argv[1], int(sys.argv[2])
    for i in range(n):
        lease = ProcessLease(state).acquire()
        path = os.path.join(state, "leases", lease.token + ".lock")
        for _ in range(3):
            held = os.fstat(lease._fd).st_ino
            assert os.stat(path).st_ino == held, f"{path} was swept while held"
            os.sched_yield()  # let the sweeper in between the checks
        lease.release()
    print("ok", n, flush=True)
""")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def _holder(state: Path, n: int = 1) -> tuple[subprocess.Popen, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(state), str(n)],
        env=_env(),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    tokens = proc.stdout.readline().split()
    assert len(tokens) == n
    return proc, tokens


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL


def _files(state: Path) -> list[str]:
    return sorted(os.listdir(state / "leases"))


def test_a_killed_holders_lease_is_swept_and_a_live_holders_never(tmp_path):
    live, (alive_token,) = _holder(tmp_path)
    dead, (dead_token,) = _holder(tmp_path)
    try:
        _kill(dead)
        assert _files(tmp_path) == sorted([f"{alive_token}.lock", f"{dead_token}.lock"])
        for _ in range(5):  # however often it runs
            swept = sweep_leases(tmp_path, now=time.time() + 10 * STALE_TEMP_S)
            assert f"{alive_token}.lock" in _files(tmp_path)
        assert _files(tmp_path) == [f"{alive_token}.lock"]
        assert swept == []  # the first sweep took the dead one
        assert lease_alive(tmp_path, alive_token) and not lease_alive(tmp_path, dead_token)
    finally:
        _kill(live)
    assert [p.name for p in sweep_leases(tmp_path)] == [f"{alive_token}.lock"]
    assert _files(tmp_path) == []


def test_an_acquire_killed_before_its_rename_leaves_a_temp_file_that_is_swept_once_old(tmp_path):
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_ACQUIRE, str(tmp_path)], env=_env(), cwd=ROOT, capture_output=True, timeout=60
    )
    assert killed.returncode == -signal.SIGKILL
    (left,) = _files(tmp_path)
    assert left.startswith(".") and left.endswith(".new")
    # Young, it may be an acquire that has not taken its flock yet: left alone.
    assert sweep_leases(tmp_path) == [] and _files(tmp_path) == [left]
    assert [p.name for p in sweep_leases(tmp_path, now=time.time() + STALE_TEMP_S + 1)] == [left]
    assert _files(tmp_path) == []


def test_a_sweep_never_removes_a_held_lease_while_others_acquire(tmp_path):
    """Two processes take and release leases as fast as they can while this one sweeps
    without pause, with the temp files' age guard off (every unlocked `.new` counts as a
    dead acquire's): no held lease is ever removed, and every acquire succeeds."""
    (tmp_path / "leases").mkdir()
    churn = [
        subprocess.Popen(
            [sys.executable, "-c", CHURN, str(tmp_path), "400"],
            env=_env(),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    sweeps = 0
    while any(p.poll() is None for p in churn):
        sweep_leases(tmp_path, now=time.time() + 10 * STALE_TEMP_S)
        sweeps += 1
    for p in churn:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert out.strip() == "ok 400"
    assert sweeps > 10  # the sweeps really ran alongside
    assert _files(tmp_path) == []  # each released its own


def _mika(state: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_STATE_DIR=str(state), XDG_CONFIG_HOME=str(state.parent / "cfg"), MIKA_LANGUAGE="en")
    done = subprocess.run(
        [sys.executable, "-m", "mika.cli", "--device", "none", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_runs_recover_sweeps_33_stale_leases_and_leaves_none_of_its_own(tmp_path):
    state = tmp_path / "state"
    dead, tokens = _holder(state, 33)
    _kill(dead)
    live, (live_token,) = _holder(state)
    try:
        assert _files(state) == sorted([*(f"{t}.lock" for t in tokens), f"{live_token}.lock"])
        _mika(state, "runs", "recover")
        assert _files(state) == [f"{live_token}.lock"]  # the live holder's stays, the recovery's own is gone
    finally:
        _kill(live)
    _mika(state, "runs", "recover")
    assert _files(state) == []


def test_a_normal_run_leaves_no_lease_behind(tmp_path):
    state = tmp_path / "state"
    script = tmp_path / "s.json"
    script.write_text('["ok"]')
    assert _mika(state, "--no-ui", "--model", f"script:{script}", "say ok").stdout == "ok\n"
    assert _files(state) == []
