from __future__ import annotations

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.core.toy import ToyCapability, ToyWorld


@pytest.fixture
def world() -> ToyWorld:
    return ToyWorld()


@pytest.fixture
def make_run(tmp_path, world):
    def make(
        model,
        *,
        goal="do the thing",
        attendance=Attendance.UNATTENDED,
        origin=RunOrigin.CLI,
        autonomous=False,
        read_only=False,
        budget=0,
        record=True,
        retry=None,
    ):
        spec = RunSpec(
            goal=goal,
            provenance=RunProvenance(origin, attendance),
            read_only=read_only,
            step_budget=budget,
            conversation_id="conv-1",
        )
        caps = capabilities_for(spec, RunEnvironment(autonomous=autonomous, extra=[ToyCapability(world)]))
        opts = RunOptions(
            autonomous=autonomous,
            pacing=False,
            state_dir=tmp_path if record else None,
            retry=retry or RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
        )
        return TaskRun(spec, model, caps, opts)

    return make
